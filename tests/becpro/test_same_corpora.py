"""The languages that existed before BEC-Pro languages became folders of data (en, es with and
without articles, eu) build the same runs, row for row and byte for byte.

``BEFORE`` was recorded from the code before the change (commit 3db7f35, where the grammar was
Python in ``curation/becpro``): each corpus was built with ``biasforge curate becpro --lang L
--variant V`` and :func:`content_hash` (below, unchanged since) was applied to its
``candidates.parquet`` and ``rejected.parquet``. The hash covers the Arrow schema and every
row's every value, serialised as sorted-key JSON; it does not depend on how a pyarrow version
lays the bytes of a parquet file out. (On the machine where the change was made, the parquet
files' own sha256 were identical before and after too.)
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

BEFORE = {
    "en": (
        "ad24ad4047cb82f7a086a855a8301d905541215cf7ffba87b0fe3a90bfbedd01",
        "ab9a782af7bba14ff596f29a8d95cb13667711ef0ab4803a1d7b2197b7dcd223",
    ),
    "es-with_articles": (
        "1982665ca57d400877b77ffb7e1ea29d632bf98527986ec736a2d50fbdff7bb2",
        "ab9a782af7bba14ff596f29a8d95cb13667711ef0ab4803a1d7b2197b7dcd223",
    ),
    "es-without_articles": (
        "c9f8452e183f6cfc0b3a125259c9ff807a7267189f5c58e7fd36d8763bedc691",
        "ab9a782af7bba14ff596f29a8d95cb13667711ef0ab4803a1d7b2197b7dcd223",
    ),
    "eu": (
        "c8f0e83a35e4e060b1ff7add42cd0603066d1784bc1d7c2542ad9a405750cfda",
        "ab9a782af7bba14ff596f29a8d95cb13667711ef0ab4803a1d7b2197b7dcd223",
    ),
}


def content_hash(path: Path) -> str:
    """sha256 of a parquet table's schema and rows, as canonical JSON lines."""
    table = pq.read_table(path)
    digest = hashlib.sha256(str(table.schema.remove_metadata()).encode())
    for row in table.to_pylist():
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()


@pytest.mark.parametrize("run", sorted(BEFORE))
def test_candidates_and_rejected_are_those_of_the_code_before(becpro_runs, run):
    candidates, rejected = BEFORE[run]
    assert content_hash(becpro_runs[run] / "candidates.parquet") == candidates
    assert content_hash(becpro_runs[run] / "rejected.parquet") == rejected
