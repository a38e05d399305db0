"""The datatrove steps between the reader and the rules: sentences, quotes, jieba tokens.

A paragraph becomes one datatrove ``Document`` per sentence (:class:`SentenceSplitter`), whose
id is the candidate's ``source_id`` and whose metadata carries where it came from and, as the
steps go, its repairs, tokens, keyword matches and rule verdicts.
"""

from __future__ import annotations

import resource
import time

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.base import PipelineStep

from biasforge.curation.slguset.matching import classify_matches, keyword_matches
from biasforge.curation.slguset.preprocess import clean, repair_quotes, split_sentences
from biasforge.curation.slguset.resources import UsesResources


def location(source: str, line: int, piece: int) -> str:
    """``file.txt:12`` (or ``:12.3`` for the fourth piece of a very long line)."""
    short = source if source.startswith("hf:") else source.rsplit("/", 1)[-1]
    return f"{short}:{line}" + (f".{piece}" if piece else "")


class TaskLogs(PipelineStep):
    """First step of every task: datatrove's own log messages in the task's process, as
    datatrove sets them up (``verbose``) or switched off with loguru's ``disable``; the counts
    and timings are in datatrove's stats files either way. Runs when the executor assembles the
    task's pipeline (``run`` is not a generator), so it also covers tasks in processes started
    elsewhere (Slurm, Ray), where the task's start banner, printed before, stays in the task's
    output. ``curate`` forks its local workers with the switch already off
    (``pipeline.datatrove_logs``), so there even the banner is silent. The switch stays off in
    the task's process after the task (``pipeline.datatrove_logs`` turns it back on around an
    in-process run)."""

    name = "datatrove logs"
    type = "🔇 - LOGS"

    def __init__(self, verbose: bool = False) -> None:
        super().__init__()
        self.verbose = verbose

    def run(self, data: DocumentsPipeline = None, rank: int = 0, world_size: int = 1):
        from loguru import logger

        if not self.verbose:
            logger.disable("datatrove")
        return data


class SentenceSplitter(PipelineStep):
    """Paragraph → its sentences, cut at 。？！ and stripped of spaces (``raw`` kept)."""

    name = "sentence splitter"
    type = "✂️ - SPLITTER"

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1):
        for doc in data:
            meta = doc.metadata
            where = location(meta["source"], meta["line"], meta["piece"])
            with self.track_time():
                pieces = split_sentences(doc.text)
            self.stat_update("sentences", value=len(pieces))
            for index, raw in enumerate(pieces):
                yield Document(
                    text=clean(raw),
                    id=f"{where}#{index}",
                    metadata={
                        "source": meta["source"],
                        "line": meta["line"],
                        "piece": meta["piece"],
                        "index": index,
                        "raw": raw,
                        "checks": [],
                        "review_reasons": [],
                    },
                )


class QuoteRepair(PipelineStep):
    """Balance quotes and brackets the sentence cut left open or unopened."""

    name = "quote repair"
    type = "✂️ - FORMAT"

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1):
        for doc in data:
            with self.track_time():
                doc.text, repairs, broken = repair_quotes(doc.text)
            doc.metadata["quote_repairs"] = repairs
            doc.metadata["broken_quotes"] = broken
            self.stat_update("quote_repairs", value=repairs)
            yield doc


class Segmenter(UsesResources, PipelineStep):
    """jieba tokens (one pass for every rule after it) and the gender forms they contain."""

    name = "jieba segmentation"
    type = "🔢 - TOKENIZER"

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1):
        lexicon, tokenizer = self.resources.lexicon, self.resources.tokenizer
        mode, excluded = self.resources.token_mode, self.resources.excluded
        for doc in data:
            with self.track_time():
                tokens = tokenizer.tokens(doc.text, mode)
                found = keyword_matches(doc.text, lexicon)
                matches = classify_matches(found, tokens, lexicon, excluded) if tokens else []
            doc.metadata["tokens"] = tokens
            doc.metadata["matches"] = matches
            yield doc


class TaskUsage(PipelineStep):
    """The task's CPU seconds and the process's peak memory, as datatrove stats."""

    name = "task usage"
    type = "📈 - STATS"

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1):
        started = time.process_time()
        yield from data
        self.stat_update("cpu_seconds", value=round(time.process_time() - started, 3))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        self.stat_update("peak_rss_mb", value=round(peak, 1))
