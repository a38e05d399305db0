"""Sentences leave the datatrove pipeline as candidate rows, one JSON line each.

:class:`RowWriter` is a datatrove ``DiskWriter``: the pipeline's last writer puts the kept
sentences in ``kept/RANK.jsonl``, and each reject rule's exclusion writer puts the sentences it
dropped, with their reasons, in ``rejected/RULE/RANK.jsonl``. The merge orders rows by the
``_f``/``_l``/``_p``/``_s`` keys (file, line, piece, sentence) and drops them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from datatrove.data import Document
from datatrove.pipeline.writers.disk_base import DiskWriter

from biasforge.files import stable_id
from curation.slguset.lexicon import Lexicon
from curation.slguset.matching import keyword_of
from curation.slguset.resources import TaskResources

SORT_KEYS = ["_f", "_l", "_p", "_s"]


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
        "_f": meta["source"],
        "_l": meta["line"],
        "_p": meta["piece"],
        "_s": meta["index"],
    }
    if "reasons" in meta:
        row["reasons"] = meta["reasons"]
    return row


def _adapt(writer: RowWriter, doc: Document) -> dict[str, Any]:
    return candidate_row(doc, writer.resources.lexicon)


class RowWriter(DiskWriter):
    """Candidate rows as JSON lines, one file per task."""

    name = "candidate rows"

    def __init__(self, folder: str | Path, resources: TaskResources) -> None:
        super().__init__(
            str(folder), output_filename="${rank}.jsonl", compression=None, adapter=_adapt
        )
        self.resources = resources

    def _write(self, document: dict, file_handler: IO, filename: str) -> None:
        file_handler.write(json.dumps(document, ensure_ascii=False) + "\n")
