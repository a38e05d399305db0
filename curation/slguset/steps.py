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
from pathlib import Path

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.base import PipelineStep
from datatrove.pipeline.readers.base import BaseReader

from biasforge.errors import InputError
from curation.slguset.readers import ReadStats, Unit, read_unit, units_for_rank


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
        try:
            for unit in units_for_rank(self.units, rank, world_size):
                for record in read_unit(
                    unit,
                    encoding=self.encoding,
                    text_field=self.text_field,
                    skip_bad_lines=self.skip_bad_lines,
                    stats=stats,
                ):
                    yield Document(
                        text=record.text,
                        id=record.id,
                        metadata={"source": record.source, "line": record.line},
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
                    write(miner.feed(doc.text, doc.metadata["source"], doc.metadata["line"]))
            with self.track_time():
                write(miner.finish())
        stats = miner.stats.as_dict()
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
