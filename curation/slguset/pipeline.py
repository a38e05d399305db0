"""``biasforge curate slguset``: corpus → datatrove tasks → merged, deterministic run directory.

The corpus is mined by a datatrove pipeline (:func:`build_pipeline`: the reader, then the
steps of :mod:`curation.slguset.mine`), run here by ``LocalPipelineExecutor`` with
``num_proc`` workers; on a cluster the same steps go to ``SlurmPipelineExecutor`` or
``RayPipelineExecutor`` unchanged, and :func:`finish_run` merges what the tasks wrote::

    from datatrove.executor import SlurmPipelineExecutor
    options = Options(corpus=tuple(files))
    steps, tasks = build_pipeline(options, "/shared/slguset/parts", tasks=1000)
    SlurmPipelineExecutor(pipeline=steps, tasks=tasks, time="04:00:00", partition="cpu",
                          logging_dir="/shared/slguset/logs", job_name="slguset").run()
    # once every task is done:
    finish_run(options, "/shared/slguset/parts", "runs/slguset",
               logging_dir="/shared/slguset/logs")
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from biasforge.contract.rundir import RunResult, input_entry, write_run
from biasforge.errors import BiasforgeError, InputError
from biasforge.families.slguset import SCHEMA
from curation.slguset.counts import keyword_seconds, mined_counts
from curation.slguset.lexicon import Lexicon, load_lexicon
from curation.slguset.lifecycle import START_METHOD, children_die_with_parent, work_folder
from curation.slguset.merge import merge_parts
from curation.slguset.mine import mining_steps
from curation.slguset.names import MODES
from curation.slguset.readers import (
    CorpusReader,
    check_encoding,
    expand_corpus,
    kind_of,
    plan_units,
)
from curation.slguset.report import per_form, per_keyword, rejections, render_report
from curation.slguset.resources import TaskResources
from curation.slguset.sample import BUNDLED_SAMPLE
from curation.slguset.steps import TaskLogs

LOGS = "datatrove-logs"


@dataclass(frozen=True)
class Options:
    """Everything a SlguSet run depends on (the run directory and overwriting aside)."""

    corpus: Sequence[str | Path] = (str(BUNDLED_SAMPLE),)  # files, folders, hf:NAME[::SPLIT]
    num_proc: int = 1  # datatrove tasks run in parallel here
    encoding: str = "utf-8"  # of text/JSONL files
    text_field: str = "text"  # of JSONL records and dataset rows
    skip_bad_lines: bool = False  # count undecodable/malformed lines instead of failing
    lexicon_dir: Path | None = None  # gender pairs and word lists (default: bundled)
    tagger: str = "fast"  # name-filter tokens: fast | posseg
    name_eval: Path | None = None  # gold JSONL to measure the name filter's P/R on
    include_collective: bool = False  # keep 他们/她们 … (collective_forms.tsv: exclude), flagged
    verbose: bool = False  # show datatrove's task logs

    def __post_init__(self) -> None:
        object.__setattr__(self, "corpus", tuple(str(c) for c in self.corpus))

    def validate(self) -> Lexicon:
        """Refuse a bad option before any process starts; return the lexicon it names."""
        if not self.corpus:
            raise BiasforgeError("give at least one --corpus")
        if self.num_proc < 1:
            raise BiasforgeError("--num-proc must be at least 1")
        if self.tagger not in MODES:
            raise BiasforgeError(f"unknown --tagger {self.tagger!r}: choose fast or posseg")
        if self.name_eval:
            from curation.slguset.name_eval import read_gold

            read_gold(self.name_eval)  # a bad gold file is refused now, not after the mining
        check_encoding(self.encoding)
        return load_lexicon(self.lexicon_dir)


def curate(options: Options, out: Path, *, overwrite: bool = False) -> RunResult:
    """Mine ``options.corpus`` into the SlguSet run directory ``out``."""
    out = Path(out)
    if out.exists() and not overwrite:
        raise BiasforgeError(f"{out} already exists; choose another --out or pass --overwrite")
    options = replace(options, lexicon_dir=options.validate().directory)
    started = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    with work_folder(out) as work:
        run_pipeline(options, work / "parts", work / LOGS)
        return finish_run(
            options,
            work / "parts",
            out,
            logging_dir=work / LOGS,
            overwrite=overwrite,
            mining_seconds=time.perf_counter() - started,
        )


def build_pipeline(
    options: Options, parts_dir: str | Path, *, tasks: int | None = None
) -> tuple[list, int]:
    """The datatrove steps for ``tasks`` tasks (default ``options.num_proc``), and the number
    of tasks worth running; rows and errors go to ``parts_dir`` (shared storage on a cluster)."""
    check_encoding(options.encoding)  # before any process starts
    tasks = tasks or options.num_proc
    units = plan_units(list(options.corpus), world_size=tasks)
    lexicon_dir = str(options.lexicon_dir) if options.lexicon_dir else None
    reader = CorpusReader(
        units,
        encoding=options.encoding,
        text_field=options.text_field,
        skip_bad_lines=options.skip_bad_lines,
        errors_dir=str(parts_dir),
    )
    resources = TaskResources(lexicon_dir, options.tagger, options.include_collective)
    steps = [TaskLogs(options.verbose), reader, *mining_steps(resources, parts_dir)]
    return steps, max(1, min(tasks, len(units)))


@contextmanager
def datatrove_logs(verbose: bool) -> Iterator[None]:
    """datatrove's own log messages in this process and the workers forked from it (task start
    banners included): as datatrove sets them up (``verbose``), or switched off with loguru's
    ``disable`` (counts and timings are in the stats files)."""
    from loguru import logger

    if verbose:
        yield
        return
    logger.disable("datatrove")
    try:
        yield
    finally:
        logger.enable("datatrove")


def run_pipeline(options: Options, parts_dir: Path, logging_dir: Path) -> None:
    """Run the pipeline with ``LocalPipelineExecutor`` and ``options.num_proc`` workers, forked
    from this process (so they start with datatrove's messages switched off as here, and die
    with it: :mod:`curation.slguset.lifecycle`)."""
    from datatrove.executor import LocalPipelineExecutor

    pipeline, tasks = build_pipeline(options, parts_dir)
    executor = LocalPipelineExecutor(
        pipeline=pipeline,
        tasks=tasks,
        workers=tasks,
        logging_dir=str(logging_dir),
        skip_completed=False,
        start_method=START_METHOD,
    )
    try:
        with datatrove_logs(options.verbose), children_die_with_parent():
            executor.run()
    except Exception as exc:
        for error in sorted(parts_dir.glob("error-*.json")):
            info = json.loads(error.read_text(encoding="utf-8"))
            message = info["message"].split(": ", 1)[-1]
            raise InputError(info["path"], message, line=info["line"]) from None
        hint = "" if options.verbose else "; --verbose shows datatrove's task logs"
        raise BiasforgeError(f"slguset pipeline failed: {exc}{hint}") from exc


def finish_run(
    options: Options,
    parts_dir: str | Path,
    out: str | Path,
    *,
    logging_dir: str | Path,
    overwrite: bool = False,
    mining_seconds: float = 0.0,
) -> RunResult:
    """Merge the tasks' rows into the run directory ``out`` (ordered by file, line, sentence;
    duplicates across tasks dropped), with stats, report and manifest; the counts come from
    the stats files in the executor's ``logging_dir``."""
    lexicon = load_lexicon(options.lexicon_dir)
    merge_started = time.perf_counter()
    kept, rejected, cross_duplicates = merge_parts(parts_dir)
    mined = mined_counts(logging_dir, options.tagger)
    stats = _stats(options, lexicon, mined, kept, rejected, cross_duplicates)
    stats["seconds"]["mining_wall"] = round(mining_seconds, 3)
    stats["seconds"]["merge"] = round(time.perf_counter() - merge_started, 3)
    if options.name_eval:
        from curation.slguset.name_eval import evaluate_name_filter

        eval_started = time.perf_counter()
        stats["name_filter_eval"] = evaluate_name_filter(options.name_eval, options.tagger)
        stats["seconds"]["name_filter_eval"] = round(time.perf_counter() - eval_started, 3)
    if mining_seconds:
        stats["raw_chars_per_second"] = round(stats["raw_chars"] / mining_seconds)
    return write_run(
        out,
        schema=SCHEMA,
        candidates=kept,
        rejected=rejected,
        stats=stats,
        report_md=render_report(stats, kept, rejected),
        inputs=_inputs(options, lexicon),
        config=_config(options, lexicon),
        overwrite=overwrite,
    )


def _stats(
    options: Options,
    lexicon: Lexicon,
    mined: dict[str, Any],
    kept,
    rejected,
    cross_duplicates: int,
) -> dict[str, Any]:
    duplicates = mined["duplicates"] + cross_duplicates
    return {
        "family": "slguset",
        "language": "zh",
        "corpus": list(options.corpus),
        "num_proc": options.num_proc,
        "tagger": options.tagger,
        "include_collective": options.include_collective,
        "documents": mined["documents"],
        "raw_chars": mined["raw_chars"],
        "bad_lines_skipped": mined["bad_lines"],
        "documents_without_keyword": mined["documents_without_keyword"],
        "sentences_seen": mined["sentences_seen"],
        "sentences_without_keyword": mined["sentences_without_keyword"],
        "duplicates": duplicates,
        "quote_repairs": mined["quote_repairs"],
        "kept": len(kept),
        "rejected": len(rejected),
        "needs_review": int(kept["needs_review"].sum()) if len(kept) else 0,
        "per_keyword": per_keyword(kept, rejected, lexicon),
        "per_form": per_form(kept, rejected, lexicon, options.include_collective),
        "rejections_per_rule": rejections(rejected),
        "rules": _cheap_rules(mined, duplicates) + mined["rules"],
        "seconds": dict(mined["seconds"]),
        "raw_chars_per_second": 0,
        "task_cpu_seconds": mined["task_cpu_seconds"],
        "task_peak_rss_mb": mined["task_peak_rss_mb"],
        "name_filter_eval": None,
    }


def _cheap_rules(mined: dict[str, Any], duplicates: int) -> list[dict[str, Any]]:
    """The steps before the row rules, as rules: counted, timed, never written as rows (a
    sentence without a gender form is not a candidate, and a duplicate is its first copy)."""
    seconds = mined["seconds"]
    with_keyword = mined["sentences_seen"] - mined["sentences_without_keyword"]
    return [
        {
            "rule": "keyword_prefilter",
            "severity": "reject",
            "description": "regex: the document, then the sentence, contains a gender form "
            "(seen/failed count sentences of documents that had one; whole documents without "
            "one are in the funnel)",
            "seen": mined["sentences_seen"],
            "failed": mined["sentences_without_keyword"],
            "seconds": round(keyword_seconds(seconds), 6),
        },
        {
            "rule": "duplicate",
            "severity": "reject",
            "description": "exact duplicate of an earlier sentence (per task, then across tasks)",
            "seen": with_keyword,
            "failed": duplicates,
            "seconds": seconds.get("duplicate", 0.0),
        },
    ]


def _inputs(options: Options, lexicon: Lexicon) -> list[dict[str, Any]]:
    files = expand_corpus(list(options.corpus))
    inputs = [input_entry(c, "corpus") for c in files if kind_of(c) != "hf"]
    inputs += [{"role": "corpus", "path": c} for c in files if kind_of(c) == "hf"]
    inputs += [input_entry(p, f"slguset lexicon: {p.name}") for p in lexicon.files()]
    return inputs


def _config(options: Options, lexicon: Lexicon) -> dict[str, Any]:
    return {
        "family": "slguset",
        "num_proc": options.num_proc,
        "encoding": options.encoding,
        "text_field": options.text_field,
        "skip_bad_lines": options.skip_bad_lines,
        "tagger": options.tagger,
        "include_collective": options.include_collective,
        "lexicon": str(lexicon.directory),
    }
