"""Sentences leave the datatrove pipeline as candidate rows, one line each.

:class:`RowWriter` is a datatrove ``DiskWriter``: the pipeline's last writer puts the kept
sentences in ``kept/RANK.rows``, and each reject rule's exclusion writer puts the sentences it
dropped, with their reasons, in ``rejected/RULE/RANK.rows``. A line is
``KEY<TAB>KIND<TAB>HASH<TAB>JSON``:

* ``KEY`` — where the sentence stands in the corpus, as fixed-width digits (file rank among
  the corpus's sorted sources, line, piece, sentence), so that comparing two lines as strings
  orders them by corpus position. A task reads its units in corpus order, so every row file
  is already sorted and the merge (:mod:`biasforge.curation.slguset.merge`) is a streaming k-way merge;
* ``KIND`` — ``k`` (kept) or ``r`` (rejected);
* ``HASH`` — 128-bit BLAKE2b of the sentence (hex), for deduplication across tasks without
  parsing the JSON;
* ``JSON`` — the candidate's columns.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from datatrove.data import Document
from datatrove.pipeline.writers.disk_base import DiskWriter

from biasforge.curation.slguset.lexicon import Lexicon
from biasforge.curation.slguset.matching import keyword_of
from biasforge.curation.slguset.resources import TaskResources
from biasforge.files import stable_id

ROWS_SUFFIX = ".rows"
KEY_WIDTHS = (8, 12, 6, 6)  # file rank, line, piece, sentence
KEY_LEN = sum(KEY_WIDTHS)
HASH_LEN = 32
JSON_AT = KEY_LEN + 1 + 1 + 1 + HASH_LEN + 1  # KEY \t K \t HASH \t


def sort_key(file_rank: int, line: int, piece: int, index: int) -> str:
    """Fixed-width digits that sort as (file rank, line, piece, sentence)."""
    return f"{file_rank:08d}{line:012d}{piece:06d}{index:06d}"


def sentence_hash(sentence: str) -> str:
    return hashlib.blake2b(sentence.encode("utf-8"), digest_size=16).hexdigest()


def candidate_row(doc: Document, lexicon: Lexicon) -> dict[str, Any]:
    """The candidate columns of one sentence (plus ``reasons`` if a rule dropped it)."""
    meta = doc.metadata
    keyword, start, end = keyword_of(doc.text, meta.get("matches", []), lexicon)
    form = lexicon.forms.get(keyword)
    row = {
        "id": stable_id("slguset", "zh", doc.text),
        "source_id": doc.id,
        "source_text": meta["raw"].strip(),
        "sentence": doc.text,
        "keyword": keyword,
        "keyword_start": start,
        "keyword_end": end,
        "gender": form.gender if form else "",
        "counterpart": form.counterpart if form else "",
        "checks": meta["checks"],
        "needs_review": bool(meta["review_reasons"]),
        "review_reasons": meta["review_reasons"],
    }
    if "reasons" in meta:
        row["reasons"] = meta["reasons"]
    return row


def _adapt(writer: RowWriter, doc: Document) -> dict[str, Any]:
    meta = doc.metadata
    row = candidate_row(doc, writer.resources.lexicon)
    key = sort_key(writer.rank_of(meta["source"]), meta["line"], meta["piece"], meta["index"])
    return {"key": key, "row": row}


class RowWriter(DiskWriter):
    """Candidate rows, one file per task, in corpus order (see the module docstring).

    ``sources`` are the corpus's sources (file paths, ``hf:`` names); a row's file rank is the
    source's place among them sorted. A source not listed (a test feeding documents by hand)
    is ranked after the listed ones in the order met — only meaningful for one task.
    """

    name = "candidate rows"

    def __init__(
        self,
        folder: str | Path,
        resources: TaskResources,
        sources: Sequence[str] = (),
        *,
        kind: str = "k",
    ) -> None:
        super().__init__(
            str(folder), output_filename="${rank}" + ROWS_SUFFIX, compression=None, adapter=_adapt
        )
        self.resources = resources
        self.ranks = {source: i for i, source in enumerate(sorted(set(sources)))}
        self.kind = kind

    def rank_of(self, source: str) -> int:
        rank = self.ranks.get(source)
        if rank is None:
            rank = self.ranks[source] = len(self.ranks)
        return rank

    def _write(self, document: dict, file_handler: IO, filename: str) -> None:
        row = document["row"]
        file_handler.write(
            f"{document['key']}\t{self.kind}\t{sentence_hash(row['sentence'])}\t"
            + json.dumps(row, ensure_ascii=False)
            + "\n"
        )
