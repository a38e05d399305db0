"""``biasforge curate slguset``: corpus → datatrove tasks → merged, deterministic run directory.

The corpus stages run as a datatrove pipeline (``[CorpusReader, MineStep]``) under
``LocalPipelineExecutor`` with ``--num-proc`` workers; on a cluster the same two steps go to
``SlurmPipelineExecutor``/``RayPipelineExecutor`` unchanged. The merge is cheap (only sentences
that contain a gender keyword reach it): it orders rows by (file, line, sentence) and drops
duplicates across tasks, so the candidates are identical for any number of processes.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from biasforge.contract.rundir import input_entry, write_run
from biasforge.errors import BiasforgeError, InputError
from biasforge.families.slguset import SCHEMA as FAMILY_SCHEMA
from curation.checks import CheckStats
from curation.report import examples_md, md_table, rules_md
from curation.slguset.lexicon import load_lexicon
from curation.slguset.readers import check_encoding, expand_corpus, kind_of, plan_units

SCHEMA = FAMILY_SCHEMA  # the candidate record, described once in biasforge.families.slguset


def build_pipeline(
    corpus: list[str],
    parts_dir: str | Path,
    *,
    tasks: int,
    encoding: str = "utf-8",
    text_field: str = "text",
    skip_bad_lines: bool = False,
    lexicon_dir: str | None = None,
    tagger: str = "fast",
) -> tuple[list, int]:
    """The datatrove steps for ``tasks`` tasks, and the number of tasks worth running.

    The same steps run under any datatrove executor; on a Slurm cluster, with ``parts_dir`` on
    shared storage::

        from datatrove.executor import SlurmPipelineExecutor
        steps, tasks = build_pipeline(files, "/shared/slguset/parts", tasks=1000)
        SlurmPipelineExecutor(pipeline=steps, tasks=tasks, time="04:00:00",
                              partition="cpu", logging_dir="/shared/slguset/logs",
                              job_name="slguset").run()
        # once every task is done:
        finish_run("/shared/slguset/parts", "runs/slguset", corpus=files)
    """
    from curation.slguset.steps import CorpusReader, MineStep

    check_encoding(encoding)  # before any process starts
    units = plan_units(corpus, world_size=tasks)
    steps = [
        CorpusReader(
            units,
            encoding=encoding,
            text_field=text_field,
            skip_bad_lines=skip_bad_lines,
            parts_dir=str(parts_dir),
        ),
        MineStep(str(parts_dir), lexicon_dir=lexicon_dir, tagger=tagger),
    ]
    return steps, max(1, min(tasks, len(units)))


def run_pipeline(
    corpus: list[str],
    parts_dir: Path,
    *,
    num_proc: int = 1,
    encoding: str = "utf-8",
    text_field: str = "text",
    skip_bad_lines: bool = False,
    lexicon_dir: str | None = None,
    tagger: str = "fast",
    executor: str = "local",
    verbose: bool = False,
) -> dict[str, Any]:
    """Run the datatrove pipeline into ``parts_dir``; return datatrove's merged stats."""
    from curation.slguset.steps import QuietLocalExecutor

    if num_proc < 1:
        raise BiasforgeError("--num-proc must be at least 1")
    pipeline, tasks = build_pipeline(
        corpus,
        parts_dir,
        tasks=num_proc,
        encoding=encoding,
        text_field=text_field,
        skip_bad_lines=skip_bad_lines,
        lexicon_dir=lexicon_dir,
        tagger=tagger,
    )
    if executor != "local":
        raise BiasforgeError(
            f"executor {executor!r}: only 'local' is wired to the CLI; build the same two steps "
            "into datatrove's SlurmPipelineExecutor/RayPipelineExecutor for a cluster"
        )
    logs = parts_dir / "datatrove-logs"
    runner = QuietLocalExecutor(
        pipeline=pipeline,
        tasks=tasks,
        workers=tasks,
        logging_dir=str(logs),
        skip_completed=False,
        verbose=verbose,
    )
    try:
        runner.run()
    except Exception as exc:
        for error in sorted(parts_dir.glob("error-*.json")):
            info = json.loads(error.read_text(encoding="utf-8"))
            message = info["message"].split(": ", 1)[-1]
            raise InputError(info["path"], message, line=info["line"]) from None
        kept_logs = parts_dir.parent.parent / f"{parts_dir.parent.name}-logs"
        shutil.copytree(logs, kept_logs, dirs_exist_ok=True)
        raise BiasforgeError(
            f"slguset pipeline failed: {exc} (datatrove task logs: {kept_logs})"
        ) from exc
    stats_file = logs / "stats.json"
    return json.loads(stats_file.read_text(encoding="utf-8")) if stats_file.exists() else {}


def _read_parts(parts_dir: Path, kind: str) -> pd.DataFrame:
    """All tasks' rows of one kind, in corpus order (file, line, piece, sentence), parsed and
    sorted by Arrow (the run directory's writer needs a pandas frame at the end)."""
    import pyarrow.json as pj

    tables = [
        pj.read_json(path, read_options=pj.ReadOptions(block_size=64 << 20))
        for path in sorted(parts_dir.glob(f"{kind}-*.jsonl"))
        if path.stat().st_size
    ]
    if not tables:
        return pd.DataFrame()
    table = pa.concat_tables(tables, promote_options="permissive")
    keys = ["_f", "_l", "_p", "_s"]
    table = table.sort_by([(k, "ascending") for k in keys]).drop_columns(keys)
    return table.to_pandas()


def _merge_stats(parts_dir: Path) -> dict[str, Any]:
    total: dict[str, Any] = {"rules": {}, "seconds": Counter()}
    for path in sorted(parts_dir.glob("stats-*.json")):
        part = json.loads(path.read_text(encoding="utf-8"))
        for key, value in part.items():
            if key == "rules":
                for name, rule in value.items():
                    mine = total["rules"].setdefault(
                        name, dict(rule, seen=0, failed=0, seconds=0.0)
                    )
                    for field in ("seen", "failed", "seconds"):
                        mine[field] += rule[field]
            elif key == "seconds":
                total["seconds"].update(value)
            elif key.startswith("task_"):
                total.setdefault(key, {}).update(value)
            else:
                total[key] = total.get(key, 0) + value
    total["seconds"] = {k: round(v, 6) for k, v in total["seconds"].items()}
    return total


def curate_slguset(
    corpus: list[str],
    out: str | Path,
    *,
    num_proc: int = 1,
    encoding: str = "utf-8",
    text_field: str = "text",
    skip_bad_lines: bool = False,
    lexicon_dir: str | Path | None = None,
    tagger: str = "fast",
    name_eval: str | Path | None = None,
    overwrite: bool = False,
    verbose: bool = False,
) -> dict[str, Any]:
    """Mine the corpus into a SlguSet run directory; return the run's stats."""
    if not corpus:
        raise BiasforgeError("give at least one --corpus")
    out = Path(out)
    if out.exists() and not overwrite:
        raise BiasforgeError(f"{out} already exists; choose another --out or pass --overwrite")
    lexicon = load_lexicon(lexicon_dir)
    from curation.slguset.names import load_models

    if tagger not in load_models():
        raise BiasforgeError(f"unknown --tagger {tagger!r}: choose fast or posseg")
    if name_eval and not Path(name_eval).is_file():
        raise InputError(name_eval, "gold file for the name-filter evaluation not found")
    started = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.work-", dir=out.parent))
    try:
        dt_stats = run_pipeline(
            [str(c) for c in corpus],
            work / "parts",
            num_proc=num_proc,
            encoding=encoding,
            text_field=text_field,
            skip_bad_lines=skip_bad_lines,
            lexicon_dir=str(lexicon.directory),
            tagger=tagger,
            verbose=verbose,
        )
        return finish_run(
            work / "parts",
            out,
            corpus=corpus,
            num_proc=num_proc,
            encoding=encoding,
            text_field=text_field,
            skip_bad_lines=skip_bad_lines,
            lexicon_dir=lexicon.directory,
            tagger=tagger,
            name_eval=name_eval,
            overwrite=overwrite,
            datatrove_stats=dt_stats,
            mining_seconds=time.perf_counter() - started,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def finish_run(
    parts_dir: str | Path,
    out: str | Path,
    *,
    corpus: list[str],
    num_proc: int = 1,
    encoding: str = "utf-8",
    text_field: str = "text",
    skip_bad_lines: bool = False,
    lexicon_dir: str | Path | None = None,
    tagger: str = "fast",
    name_eval: str | Path | None = None,
    overwrite: bool = False,
    datatrove_stats: dict[str, Any] | None = None,
    mining_seconds: float = 0.0,
) -> dict[str, Any]:
    """Merge the tasks' parts into the run directory (ordered by file, line, sentence;
    duplicates across tasks dropped), with stats, report and manifest."""
    parts_dir = Path(parts_dir)
    lexicon = load_lexicon(lexicon_dir)
    dt_stats = datatrove_stats
    if dt_stats is None:
        stats_file = parts_dir / "datatrove-logs" / "stats.json"
        dt_stats = json.loads(stats_file.read_text(encoding="utf-8")) if stats_file.exists() else {}
    merge_started = time.perf_counter()
    kept = _read_parts(parts_dir, "kept")
    rejected = _read_parts(parts_dir, "rejected")
    mined = _merge_stats(parts_dir)
    cross_duplicates = 0
    if not kept.empty:
        before = len(kept)
        kept = kept.drop_duplicates("sentence", keep="first").reset_index(drop=True)
        cross_duplicates += before - len(kept)
    if not rejected.empty:
        before = len(rejected)
        rejected = rejected.drop_duplicates("sentence", keep="first").reset_index(drop=True)
        if not kept.empty:
            rejected = rejected[~rejected["sentence"].isin(set(kept["sentence"]))].copy()
        cross_duplicates += before - len(rejected)
    for frame in (kept, rejected):
        if not frame.empty:
            frame["family"] = "slguset"
            frame["language"] = "zh"
            frame["source_language"] = "zh"
    evaluation = None
    if name_eval:
        from curation.slguset.name_eval import evaluate_name_filter

        evaluation = evaluate_name_filter(name_eval, tagger)
    bad_lines = _datatrove_stat(dt_stats, "bad_lines")
    stats = {
        "family": "slguset",
        "language": "zh",
        "corpus": [str(c) for c in corpus],
        "num_proc": num_proc,
        "tagger": tagger,
        "documents": mined.get("documents", 0),
        "raw_chars": mined.get("raw_chars", 0),
        "bad_lines_skipped": bad_lines,
        "documents_without_keyword": mined.get("documents_without_keyword", 0),
        "sentences_seen": mined.get("sentences_seen", 0),
        "sentences_without_keyword": mined.get("sentences_without_keyword", 0),
        "duplicates": mined.get("duplicates", 0) + cross_duplicates,
        "quote_repairs": mined.get("quote_repairs", 0),
        "kept": len(kept),
        "rejected": len(rejected),
        "needs_review": int(kept["needs_review"].sum()) if len(kept) else 0,
        "per_keyword": _per_keyword(kept, lexicon),
        "rejections_per_rule": _rejections(rejected),
        "rules": _cheap_rules(mined, cross_duplicates) + list(mined.get("rules", {}).values()),
        "seconds": {
            **mined.get("seconds", {}),
            "mining_wall": round(mining_seconds, 3),
            "merge": round(time.perf_counter() - merge_started, 3),
        },
        "raw_chars_per_second": round(mined.get("raw_chars", 0) / max(mining_seconds, 1e-9)),
        "task_cpu_seconds": mined.get("task_cpu_seconds", {}),
        "task_peak_rss_mb": mined.get("task_peak_rss_mb", {}),
        "name_filter_eval": evaluation,
    }
    config = {
        "family": "slguset",
        "num_proc": num_proc,
        "encoding": encoding,
        "text_field": text_field,
        "skip_bad_lines": skip_bad_lines,
        "tagger": tagger,
        "lexicon": str(lexicon.directory),
    }
    files = expand_corpus([str(c) for c in corpus])
    inputs = [input_entry(c, "corpus") for c in files if kind_of(c) != "hf"]
    inputs += [{"role": "corpus", "path": c} for c in files if kind_of(c) == "hf"]
    inputs += [input_entry(p, f"slguset lexicon: {p.name}") for p in lexicon.files()]
    write_run(
        out,
        candidates=kept,
        rejected=rejected,
        schema=SCHEMA,
        stats=stats,
        report_md=_report(stats, kept, rejected),
        inputs=inputs,
        config=config,
        overwrite=overwrite,
    )
    return stats


def _cheap_rules(mined: dict[str, Any], cross_duplicates: int) -> list[dict[str, Any]]:
    """The steps before the row checks, as rules: counted, timed, never written as rows (a
    sentence without a gender form is not a candidate, and a duplicate is its first copy)."""
    seconds = mined.get("seconds", {})
    keyword_sentences = mined.get("sentences_seen", 0) - mined.get("sentences_without_keyword", 0)
    return [
        {
            "rule": "keyword_prefilter",
            "severity": "reject",
            "description": "regex: the document, then the sentence, contains a gender form "
            "(seen/failed count sentences of documents that had one; whole documents without "
            "one are in the funnel)",
            "seen": mined.get("sentences_seen", 0),
            "failed": mined.get("sentences_without_keyword", 0),
            "seconds": seconds.get("keyword_prefilter", 0.0),
        },
        {
            "rule": "duplicate",
            "severity": "reject",
            "description": "exact duplicate of an earlier sentence (per task, then across tasks)",
            "seen": keyword_sentences,
            "failed": mined.get("duplicates", 0) + cross_duplicates,
            "seconds": seconds.get("preprocess_dedup", 0.0),
        },
    ]


def _datatrove_stat(dt_stats: Any, name: str) -> int:
    """Sum a counter of the reader step from datatrove's merged stats."""
    total = 0
    for step in dt_stats.get("stats", []) if isinstance(dt_stats, dict) else dt_stats or []:
        for key, value in (step.get("stats") or {}).items():
            if key == name:
                total += int(value.get("total", value) if isinstance(value, dict) else value)
    return total


def _per_keyword(kept: pd.DataFrame, lexicon) -> list[dict[str, Any]]:
    counts = Counter(kept["keyword"]) if len(kept) else Counter()
    rows = []
    for pair in lexicon.pairs:
        forms = [f for f in lexicon.forms.values() if f.pair == pair]
        male = sum(counts[f.text] for f in forms if f.gender == "male")
        female = sum(counts[f.text] for f in forms if f.gender == "female")
        detail = ", ".join(f"{f.text} {counts[f.text]}" for f in forms if counts[f.text])
        rows.append({"pair": pair, "male": male, "female": female, "forms": detail})
    return rows


def _rejections(rejected: pd.DataFrame) -> dict[str, int]:
    counts: Counter = Counter()
    if len(rejected):
        for reasons in rejected["reasons"]:
            counts[reasons[0].split(":", 1)[0]] += 1
    return dict(counts)


def _report(stats: dict[str, Any], kept: pd.DataFrame, rejected: pd.DataFrame) -> str:
    rules = [
        CheckStats(r["rule"], r["severity"], r["description"], r["seen"], r["failed"], r["seconds"])
        for r in stats["rules"]
    ]
    per_kw = md_table(
        ["pair", "male", "female", "forms"],
        [[r["pair"], r["male"], r["female"], r["forms"]] for r in stats["per_keyword"]],
    )
    timings = md_table(
        ["stage", "seconds"], [[k, f"{v:.3f}"] for k, v in sorted(stats["seconds"].items())]
    )
    funnel = md_table(
        ["stage", "count"],
        [
            ["documents (lines/records)", stats["documents"]],
            ["raw characters", stats["raw_chars"]],
            ["undecodable lines skipped", stats["bad_lines_skipped"]],
            [
                "documents without any gender form (regex prefilter)",
                stats["documents_without_keyword"],
            ],
            ["sentences in documents with a form", stats["sentences_seen"]],
            ["… without a gender form (regex prefilter)", stats["sentences_without_keyword"]],
            ["exact duplicates dropped", stats["duplicates"]],
            ["quote repairs", stats["quote_repairs"]],
            ["rejected by a rule (rejected.parquet)", stats["rejected"]],
            ["kept candidates", stats["kept"]],
            ["… flagged for review", stats["needs_review"]],
        ],
    )
    evaluation = stats.get("name_filter_eval")
    if evaluation:
        ev_rows = []
        for part in ("tune", "heldout", "all"):
            for who in ("model", "jieba_nr"):
                r = evaluation[part][who]
                ev_rows.append(
                    [
                        part,
                        "this filter" if who == "model" else "jieba nr* alone",
                        r["sentences"],
                        r["positives"],
                        r["flagged"],
                        f"{r['precision']:.3f}",
                        f"{r['recall']:.3f}",
                    ]
                )
        eval_md = (
            f"Sentence-level precision/recall on `{evaluation['file']}` (gold person names), "
            "split into fixed halves by a hash of each id: the model was fitted on `tune` (so "
            "its `tune` figures are optimistic), `heldout` is the honest figure. Sentence "
            "positive = at least one gold name; flagged = the filter found one. Targets: "
            "recall ≥ 0.95, precision ≥ 0.70.\n\n"
            + md_table(
                ["part", "filter", "sentences", "with names", "flagged", "precision", "recall"],
                ev_rows,
            )
        )
    else:
        eval_md = "_not measured in this run (pass `--name-eval FILE` with gold names)_"
    rej_counts = md_table(
        ["rule (first failed)", "rows"], sorted(stats["rejections_per_rule"].items())
    )
    return f"""# SlguSet run

Corpus: {", ".join(f"`{c}`" for c in stats["corpus"])} — {stats["num_proc"]} process(es),
name tagger `{stats["tagger"]}`, {stats["raw_chars_per_second"]:,} raw characters/s overall.

## Funnel

{funnel}

## Kept candidates per keyword pair

{per_kw}

## Rules

Every candidate carries each rule's verdict (`checks`). `reject` rules drop the sentence into
`rejected.parquet` with its reasons; `review` rules keep it and flag it for annotators (the
paper's criteria 1–3 are decided by people).

{rules_md(rules)}

Rejected rows by the rule that dropped them:

{rej_counts}

## Timings

{timings}

## Person-name filter quality

{eval_md}

## Flagged for review (examples)

{examples_md(kept, "review_reasons") if len(kept) else "_none_"}

## Rejected (examples)

{examples_md(rejected, "reasons") if len(rejected) else "_none_"}
"""
