"""``biasforge curate slguset``: corpus → datatrove tasks → merged, deterministic run directory.

The corpus is mined by a datatrove pipeline (:func:`build_pipeline`: the reader, then the
steps of :mod:`biasforge.curation.slguset.mine`) under one of datatrove's executors
(``Options.executor``):

* ``local`` — ``LocalPipelineExecutor``, ``num_proc`` workers forked from this process;
* ``ray`` — ``RayPipelineExecutor`` on a Ray cluster (``ray_address``), or on a local one
  started here with ``num_proc`` CPUs; the tasks write to the work folder, so on a real
  cluster ``--out`` must be on storage every node sees;
* ``slurm`` — ``SlurmPipelineExecutor``: :func:`submit_slurm` writes the job (pickled
  pipeline, sbatch scripts) into ``OUT.slurm/`` and submits a job array for the mining and a
  one-task job, after it, that merges (:class:`FinishRun`).

Whatever the executor and the number of tasks, :func:`finish_run` merges what the tasks wrote
(:mod:`biasforge.curation.slguset.merge`: external k-way merge, deduplication through hash shards on
disk) into the same candidates in the same order, streamed into parquet
(:mod:`biasforge.curation.slguset.output`). The same pieces by hand::

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
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from datatrove.pipeline.base import PipelineStep

from biasforge.contract.redact import public_path
from biasforge.contract.rundir import RunResult, input_entry
from biasforge.curation.slguset import slurm_values
from biasforge.curation.slguset.counts import keyword_seconds, mined_counts
from biasforge.curation.slguset.lexicon import Lexicon, load_lexicon
from biasforge.curation.slguset.lifecycle import START_METHOD, manager_temp_folder, work_folder
from biasforge.curation.slguset.merge import stream_rows
from biasforge.curation.slguset.mine import mining_steps
from biasforge.curation.slguset.options import Options
from biasforge.curation.slguset.output import Tally, write_streamed_run
from biasforge.curation.slguset.ray_head import ray_cluster
from biasforge.curation.slguset.readers import (
    CorpusReader,
    check_line_encoding,
    expand_corpus,
    kind_of,
    plan_units,
)
from biasforge.curation.slguset.report import per_form, per_keyword, rejections, render_report
from biasforge.curation.slguset.resources import TaskResources
from biasforge.curation.slguset.steps import TaskLogs
from biasforge.errors import BiasforgeError, InputError, OutputExistsError
from biasforge.families.slguset import SCHEMA
from biasforge.files import write_json_atomic
from biasforge.processes import forks_die_with_parent, group_dies_with_parent

LOGS = "datatrove-logs"
SLURM_SUFFIX = ".slurm"
JOB_MARKER = "biasforge-job.json"  # in OUT.slurm/: what --overwrite may remove
JOB_KIND = "slurm-job"


def curate(options: Options, out: Path, *, overwrite: bool = False) -> RunResult:
    """Mine ``options.corpus`` into the SlguSet run directory ``out`` with the local or the
    Ray executor (Slurm jobs outlive this call: :func:`submit_slurm`)."""
    out = Path(out)
    if out.exists() and not overwrite:
        raise BiasforgeError(f"{out} already exists; choose another --out or pass --overwrite")
    options = replace(options, lexicon_dir=options.validate().directory)
    if options.executor == "slurm":
        raise BiasforgeError("--executor slurm submits jobs that outlive the call: submit_slurm")
    out.parent.mkdir(parents=True, exist_ok=True)
    with work_folder(out) as work:
        mining_seconds = run_pipeline(options, work / "parts", work / LOGS)
        return finish_run(
            options,
            work / "parts",
            out,
            logging_dir=work / LOGS,
            overwrite=overwrite,
            mining_seconds=mining_seconds,
        )


def corpus_sources(options: Options, tasks: int) -> tuple[list, list[str]]:
    units = plan_units(list(options.corpus), world_size=tasks)
    return units, sorted({u.source for u in units})


def build_pipeline(
    options: Options, parts_dir: str | Path, *, tasks: int | None = None
) -> tuple[list, int]:
    """The datatrove steps for ``tasks`` tasks (default ``options.num_proc``), and the number
    of tasks worth running; rows and errors go to ``parts_dir`` (shared storage on a cluster)."""
    check_line_encoding(options.encoding)  # before any process starts
    tasks = tasks or options.num_proc
    units, sources = corpus_sources(options, tasks)
    lexicon_dir = str(options.lexicon_dir) if options.lexicon_dir else None
    reader = CorpusReader(
        units,
        encoding=options.encoding,
        text_field=options.text_field,
        skip_bad_lines=options.skip_bad_lines,
        errors_dir=str(parts_dir),
    )
    resources = TaskResources(
        lexicon_dir,
        options.tagger,
        options.include_collective,
        options.lexicon_encoding,
        options.name_check,
    )
    steps = [TaskLogs(options.verbose), reader, *mining_steps(resources, parts_dir, sources)]
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


def run_pipeline(options: Options, parts_dir: Path, logging_dir: Path) -> float:
    """Run the pipeline with the local executor (``options.num_proc`` workers, forked from
    this process, so they start with datatrove's messages switched off as here and die with
    it: :mod:`biasforge.curation.slguset.lifecycle`) or the Ray executor
    (:mod:`biasforge.curation.slguset.ray_head`); return the mining seconds."""
    pipeline, tasks = build_pipeline(options, parts_dir)
    try:
        with datatrove_logs(options.verbose):
            if options.executor == "ray":
                with ray_cluster(options.num_proc, options.ray_address, options.verbose):
                    started = time.perf_counter()
                    _ray_executor(options, pipeline, tasks, logging_dir).run()
            else:
                from datatrove.executor import LocalPipelineExecutor

                executor = LocalPipelineExecutor(
                    pipeline=pipeline,
                    tasks=tasks,
                    workers=tasks,
                    logging_dir=str(logging_dir),
                    skip_completed=False,
                    start_method=START_METHOD,
                )
                started = time.perf_counter()
                with (
                    manager_temp_folder() as temporary,
                    group_dies_with_parent(remove=[temporary]),
                    forks_die_with_parent(),
                ):
                    executor.run()
            seconds = time.perf_counter() - started
    except Exception as exc:
        _raise_task_error(parts_dir)
        hint = "" if options.verbose else "; --verbose shows datatrove's task logs"
        raise BiasforgeError(f"slguset pipeline failed: {exc}{hint}") from exc
    check_tasks_done(parts_dir, logging_dir, tasks, options.verbose)
    return seconds


def _raise_task_error(parts_dir: str | Path) -> None:
    """A task that could not read the corpus left its facts in ``error-RANK.json``."""
    for error in sorted(Path(parts_dir).glob("error-*.json")):
        info = json.loads(error.read_text(encoding="utf-8"))
        message = info["message"].split(": ", 1)[-1]
        raise InputError(info["path"], message, line=info["line"]) from None


def check_tasks_done(parts_dir: str | Path, logging_dir: str | Path, tasks: int, verbose=False):
    """Every task wrote its stats (the Ray executor only logs a failed task)."""
    _raise_task_error(parts_dir)
    done = len(list(Path(logging_dir, "stats").glob("*.json")))
    if done < tasks:
        hint = "" if verbose else "; --verbose shows datatrove's task logs"
        raise BiasforgeError(
            f"slguset pipeline failed: only {done} of {tasks} tasks finished (task logs in "
            f"{Path(logging_dir, 'logs')}){hint}"
        )


# ------------------------------------------------------------------------------ Ray


def _ray_executor(options: Options, pipeline: list, tasks: int, logging_dir: Path):
    from datatrove.executor import RayPipelineExecutor

    return RayPipelineExecutor(
        pipeline=pipeline,
        tasks=tasks,
        workers=tasks,
        logging_dir=str(logging_dir),
        skip_completed=False,
        cpus_per_task=1,
        mem_per_cpu_gb=1,
    )


# ---------------------------------------------------------------------------- Slurm


class FinishRun(PipelineStep):
    """The merge as a one-task datatrove step: the job that runs after the mining job array
    (``afterok``) under the Slurm executor, on a node that sees the shared work folder."""

    name = "merge into the run directory"
    type = "📦 - MERGE"

    def __init__(self, options: Options, work: str, out: str, tasks: int, overwrite: bool):
        super().__init__()
        self.options, self.work, self.out = options, work, out
        self.tasks, self.overwrite = tasks, overwrite

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        work = Path(self.work)
        check_tasks_done(work / "parts", work / "logs" / "mine", self.tasks, True)
        with self.track_time():
            finish_run(
                self.options,
                work / "parts",
                self.out,
                logging_dir=work / "logs" / "mine",
                overwrite=self.overwrite,
            )
        shutil.rmtree(work / "parts", ignore_errors=True)  # the run has the rows now
        return data


@dataclass
class SlurmSubmission:
    """What :func:`submit_slurm` did: the work folder, and each ``sbatch`` call (its
    arguments, the script, the job id; ids are ``dry-run-N`` when nothing was submitted)."""

    work: Path
    out: Path
    calls: list[tuple[list[str], str, str]]
    dry_run: bool


def _env_command(options: Options) -> str:
    if options.slurm_env_command is not None:
        return options.slurm_env_command
    activate = Path(sys.prefix) / "bin" / "activate"
    return (
        f"source {shlex.quote(str(activate))}"
        if sys.prefix != sys.base_prefix and activate.is_file()
        else ""
    )


def _replace_job_folder(work: Path, overwrite: bool) -> None:
    """Remove an earlier job folder of this run (``overwrite``); a folder there that
    :func:`submit_slurm` did not write (no marker of a SlguSet job) is the user's, kept."""
    if not (work.exists() or work.is_symlink()):
        return
    if not overwrite:
        raise BiasforgeError(f"{work} (a Slurm job's folder) exists; pass --overwrite")
    try:
        marker = json.loads((work / JOB_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        marker = None
    if work.is_symlink() or marker != {"kind": JOB_KIND, "family": SCHEMA.family}:
        raise OutputExistsError(
            f"{work}: not the folder of a {SCHEMA.family} Slurm job biasforge wrote (no "
            f"{JOB_MARKER}); --overwrite only replaces what biasforge wrote"
        )
    shutil.rmtree(work)


def submit_slurm(
    options: Options, out: Path, *, dry_run: bool = False, overwrite: bool = False
) -> SlurmSubmission:
    """Write the Slurm job for ``options`` into ``OUT.slurm/`` (datatrove's pickled pipeline,
    sbatch scripts, logs) and submit it with ``sbatch``: a job array of ``num_proc`` mining
    tasks, a one-task merge job that runs after it succeeded, and datatrove's stats merges.
    ``dry_run`` writes the same files and scripts but submits nothing. ``OUT.slurm`` and
    ``OUT`` must be on storage every node sees."""
    from datatrove.executor import SlurmPipelineExecutor
    from datatrove.executor import slurm as datatrove_slurm

    out = Path(out).absolute()
    if out.exists() and not overwrite:
        raise BiasforgeError(f"{out} already exists; choose another --out or pass --overwrite")
    options = replace(options, lexicon_dir=options.validate().directory)
    if options.executor != "slurm":
        options = replace(options, executor="slurm")
    work = out.with_name(out.name + SLURM_SUFFIX)
    slurm_values.check_path(str(work), "--out")
    _replace_job_folder(work, overwrite)
    work.mkdir(parents=True)
    write_json_atomic(work / JOB_MARKER, {"kind": JOB_KIND, "family": SCHEMA.family})
    pipeline, tasks = build_pipeline(options, work / "parts")
    common = {
        "time": options.slurm_time,
        "partition": options.slurm_partition,
        "cpus_per_task": 1,
        "mem_per_cpu_gb": 2,
        "env_command": _env_command(options),
        "sbatch_args": dict(options.slurm_sbatch_args),
        "qos": "",  # the cluster's default QOS
        "mail_type": "NONE",
    }
    mine = SlurmPipelineExecutor(
        pipeline=pipeline,
        tasks=tasks,
        logging_dir=str(work / "logs" / "mine"),
        job_name="slguset-mine",
        **common,
    )
    finish = SlurmPipelineExecutor(
        pipeline=[FinishRun(options, str(work), str(out), tasks, overwrite)],
        tasks=1,
        depends=mine,
        logging_dir=str(work / "logs" / "finish"),
        job_name="slguset-merge",
        **common,
    )
    calls: list[tuple[list[str], str, str]] = []
    submit = datatrove_slurm.launch_slurm_job

    def record(contents: str, job_id_retriever, *args: str) -> str:
        job_id = (
            f"dry-run-{len(calls) + 1}" if dry_run else submit(contents, job_id_retriever, *args)
        )
        calls.append(([str(a) for a in args], contents, job_id))
        return job_id

    datatrove_slurm.launch_slurm_job = record  # every sbatch call datatrove makes goes here
    try:
        with datatrove_logs(options.verbose):
            finish.run()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise BiasforgeError(f"sbatch failed: {exc}") from exc
    finally:
        datatrove_slurm.launch_slurm_job = submit
    return SlurmSubmission(work, out, calls, dry_run)


# ---------------------------------------------------------------------------- merge


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
    duplicates across tasks dropped), streamed with bounded memory, with stats, report and
    manifest; the counts come from the stats files in the executor's ``logging_dir``."""
    lexicon = load_lexicon(options.lexicon_dir, options.lexicon_encoding)
    merge_started = time.perf_counter()
    mined = mined_counts(logging_dir, options.tagger, options.name_check)

    def finish(tally: Tally, duplicates) -> tuple[dict[str, Any], str]:
        stats = _stats(options, lexicon, mined, tally, duplicates.count)
        stats["seconds"]["mining_wall"] = round(mining_seconds, 3)
        stats["seconds"]["merge"] = round(time.perf_counter() - merge_started, 3)
        if options.name_eval:
            from biasforge.curation.slguset.name_eval import evaluate_name_filter

            eval_started = time.perf_counter()
            stats["name_filter_eval"] = evaluate_name_filter(
                options.name_eval, options.tagger, options.name_check
            )
            stats["seconds"]["name_filter_eval"] = round(time.perf_counter() - eval_started, 3)
        if mining_seconds:
            stats["raw_chars_per_second"] = round(stats["raw_chars"] / mining_seconds)
        return stats, render_report(stats, tally)

    return write_streamed_run(
        out,
        schema=SCHEMA,
        rows=stream_rows(parts_dir, Path(parts_dir) / ".merge"),
        finish=finish,
        inputs=_inputs(options, lexicon),
        config=_config(options, lexicon),
        overwrite=overwrite,
    )


def _stats(
    options: Options,
    lexicon: Lexicon,
    mined: dict[str, Any],
    tally: Tally,
    cross_duplicates: int,
) -> dict[str, Any]:
    duplicates = mined["duplicates"] + cross_duplicates
    return {
        "family": "slguset",
        "language": "zh",
        "corpus": [c if c.startswith("hf:") else public_path(c) for c in options.corpus],
        "num_proc": options.num_proc,
        "executor": options.executor,
        "tagger": options.tagger,
        "name_check": options.name_check,
        "include_collective": options.include_collective,
        "documents": mined["documents"],
        "raw_chars": mined["raw_chars"],
        "bad_lines_skipped": mined["bad_lines"],
        "documents_without_keyword": mined["documents_without_keyword"],
        "sentences_seen": mined["sentences_seen"],
        "sentences_without_keyword": mined["sentences_without_keyword"],
        "duplicates": duplicates,
        "quote_repairs": mined["quote_repairs"],
        "kept": tally.kept,
        "rejected": tally.rejected,
        "needs_review": tally.needs_review,
        "per_keyword": per_keyword(tally, lexicon),
        "per_form": per_form(tally, lexicon, options.include_collective),
        "rejections_per_rule": rejections(tally),
        "rules": _cheap_rules(mined, duplicates) + mined["rules"],
        "seconds": dict(mined["seconds"]),
        "raw_chars_per_second": 0,
        "task_cpu_seconds": mined["task_cpu_seconds"],
        "task_peak_rss_mb": mined["task_peak_rss_mb"],
        "thulac_chars": mined["thulac_chars"],
        "lac_chars": mined["lac_chars"],
        "lac_cpu_seconds": mined["lac_cpu_seconds"],
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
        "executor": options.executor,
        "encoding": options.encoding,
        "text_field": options.text_field,
        "skip_bad_lines": options.skip_bad_lines,
        "tagger": options.tagger,
        "name_check": options.name_check,
        "include_collective": options.include_collective,
        "lexicon": public_path(lexicon.directory),
    }
