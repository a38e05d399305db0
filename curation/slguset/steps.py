"""datatrove pipeline steps: the corpus reader and the mining step.

The pipeline is ``[CorpusReader, MineStep]``; which executor runs it (``LocalPipelineExecutor``
here, ``SlurmPipelineExecutor`` or ``RayPipelineExecutor`` on a cluster) is the only thing that
changes between a laptop sample and a 10-billion-character corpus. Each task reads its share of
the corpus units, mines them, and writes ``kept-RANK.jsonl``, ``rejected-RANK.jsonl`` (every
dropped row with its reasons, like datatrove's exclusion writers) and ``stats-RANK.json``
(per-rule counts and timings) into a shared parts folder; :mod:`curation.slguset.pipeline`
merges them into the run directory.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

from datatrove.data import Document, DocumentsPipeline
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.base import PipelineStep
from datatrove.pipeline.readers.base import BaseReader
from tqdm import tqdm

from biasforge.errors import InputError
from curation.slguset.readers import ReadStats, Unit, read_unit, units_for_rank


class QuietLocalExecutor(LocalPipelineExecutor):
    """datatrove's LocalPipelineExecutor with its per-task logs kept in the logging folder
    only (not echoed to the terminal), unless ``verbose``; the CLI prints one summary line and
    user errors as one line, as every biasforge command does."""

    def __init__(self, *args, verbose: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.verbose = verbose

    def run(self):
        if self.verbose:
            return super().run()
        from datatrove.utils.logging import setup_default_logger
        from loguru import logger

        _quiet_task_logs()
        logger.remove()
        try:
            return super().run()
        finally:
            setup_default_logger()

    def _launch_run_for_rank(self, rank, ranks_q, completed=None, completed_lock=None):
        if not self.verbose:
            _quiet_task_logs()
        return super()._launch_run_for_rank(rank, ranks_q, completed, completed_lock)


def _quiet_task_logs() -> None:
    """Make datatrove's task logger write to the task's log file only (in this process)."""
    import datatrove.executor.base as executor_base
    from loguru import logger

    if getattr(executor_base.add_task_logger, "_slguset_quiet", False):
        return

    def file_only(logging_dir, rank: int, local_rank: int = 0, node_rank: int = -1):
        logger.remove()
        logfile = logging_dir.open(f"logs/task_{rank:05d}.log", "w")
        logger.add(logfile, level="DEBUG", colorize=False)
        logger.info(f"Launching pipeline for {rank=}")
        return logfile

    def close_quietly(logfile) -> None:
        logger.complete()
        logger.remove()
        logfile.close()

    file_only._slguset_quiet = True
    executor_base.add_task_logger = file_only
    executor_base.close_task_logger = close_quietly


class CorpusReader(BaseReader):
    """Plain text / JSONL / Hugging Face corpus units → one Document per line or record."""

    name = "SlguSet corpus reader"

    def __init__(
        self,
        units: list[Unit],
        *,
        encoding: str = "utf-8",
        text_field: str = "text",
        skip_bad_lines: bool = False,
        parts_dir: str | None = None,
    ) -> None:
        super().__init__(text_key=text_field)
        self.parts_dir = parts_dir
        self.units = units
        self.encoding = encoding
        self.text_field = text_field
        self.skip_bad_lines = skip_bad_lines

    def run(self, data: DocumentsPipeline = None, rank: int = 0, world_size: int = 1):
        stats = ReadStats()
        progress = tqdm(
            desc=f"slguset task {rank}",
            unit="char",
            unit_scale=True,
            position=rank,
            leave=False,
            disable=not sys.stderr.isatty(),
        )
        try:
            for unit in units_for_rank(self.units, rank, world_size):
                for record in read_unit(
                    unit,
                    encoding=self.encoding,
                    text_field=self.text_field,
                    skip_bad_lines=self.skip_bad_lines,
                    stats=stats,
                ):
                    progress.update(len(record.text))
                    yield Document(
                        text=record.text,
                        id=record.id,
                        metadata={
                            "source": record.source,
                            "line": record.line,
                            "piece": record.piece,
                        },
                    )
        except InputError as exc:
            # exceptions cross process boundaries badly; leave the facts for the parent
            if getattr(self, "parts_dir", None):
                Path(self.parts_dir).mkdir(parents=True, exist_ok=True)
                (Path(self.parts_dir) / f"error-{rank:05d}.json").write_text(
                    json.dumps(
                        {"path": exc.path, "line": exc.line, "message": str(exc)},
                        ensure_ascii=False,
                    ),
                    encoding="utf-8",
                )
            raise RuntimeError(str(exc)) from None
        finally:
            progress.close()
        self.stat_update("records", value=stats.records)
        self.stat_update("raw_chars", value=stats.raw_chars)
        self.stat_update("bad_lines", value=stats.bad_lines)
        self.bad_lines = stats.bad_lines


class MineStep(PipelineStep):
    """Sentences → keyword prefilter → dedup → jieba → rules; writes this task's parts."""

    name = "SlguSet mining"
    type = "🔻 - FILTER"

    def __init__(self, parts_dir: str, *, lexicon_dir: str | None, tagger: str = "fast") -> None:
        super().__init__()
        self.parts_dir = parts_dir
        self.lexicon_dir = lexicon_dir
        self.tagger = tagger

    def run(self, data: DocumentsPipeline = None, rank: int = 0, world_size: int = 1):
        from curation.slguset.lexicon import load_lexicon
        from curation.slguset.mine import Miner
        from curation.slguset.names import load_models

        cpu_start = time.process_time()
        miner = Miner(load_lexicon(self.lexicon_dir), load_models()[self.tagger])
        parts = Path(self.parts_dir)
        parts.mkdir(parents=True, exist_ok=True)
        with (
            open(parts / f"kept-{rank:05d}.jsonl", "w", encoding="utf-8") as kept_out,
            open(parts / f"rejected-{rank:05d}.jsonl", "w", encoding="utf-8") as rejected_out,
        ):

            def write(batches) -> None:
                for kept, rejected in batches:
                    for frame, out in ((kept, kept_out), (rejected, rejected_out)):
                        for row in frame.to_dict("records"):
                            out.write(json.dumps(row, ensure_ascii=False, default=_plain) + "\n")
                    self.stat_update("kept", value=len(kept))
                    self.stat_update("rejected", value=len(rejected))

            for doc in data or ():
                with self.track_time():
                    write(
                        miner.feed(
                            doc.text,
                            doc.metadata["source"],
                            doc.metadata["line"],
                            doc.metadata.get("piece", 0),
                        )
                    )
            with self.track_time():
                write(miner.finish())
        stats = miner.stats.as_dict()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        stats["task_cpu_seconds"] = {str(rank): round(time.process_time() - cpu_start, 3)}
        stats["task_peak_rss_mb"] = {str(rank): round(usage.ru_maxrss / 1024, 1)}
        (parts / f"stats-{rank:05d}.json").write_text(
            json.dumps(stats, ensure_ascii=False), encoding="utf-8"
        )
        return
        yield  # a generator that yields nothing: this step ends the pipeline


def _plain(value):
    """JSON for numpy scalars/arrays pandas hands back."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")
