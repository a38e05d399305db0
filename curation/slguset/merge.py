"""The tasks' rows, merged: in corpus order, duplicates across tasks dropped.

Only sentences with a gender keyword reach the row files, so the merge is cheap. Ordering by
(file, line, piece, sentence) and keeping the first copy of a sentence makes the candidates
identical for any number of tasks.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

from curation.slguset.mine import KEPT, REJECTED
from curation.slguset.rows import SORT_KEYS


def read_rows(files: list[Path]) -> pd.DataFrame:
    """Rows of the given JSON-lines files in corpus order, parsed and sorted by Arrow."""
    import pyarrow.json as pj

    tables = [
        pj.read_json(path, read_options=pj.ReadOptions(block_size=64 << 20))
        for path in files
        if path.stat().st_size
    ]
    if not tables:
        return pd.DataFrame()
    table = pa.concat_tables(tables, promote_options="permissive")
    table = table.sort_by([(k, "ascending") for k in SORT_KEYS]).drop_columns(SORT_KEYS)
    return table.to_pandas()


def merge_parts(parts_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """(kept, rejected, duplicates across tasks); a rejected sentence that another task kept
    counts as a duplicate too."""
    parts = Path(parts_dir)
    kept = read_rows(sorted((parts / KEPT).glob("*.jsonl")))
    rejected = read_rows(sorted((parts / REJECTED).glob("*/*.jsonl")))
    duplicates = 0
    if not kept.empty:
        before = len(kept)
        kept = kept.drop_duplicates("sentence", keep="first").reset_index(drop=True)
        duplicates += before - len(kept)
    if not rejected.empty:
        before = len(rejected)
        rejected = rejected.drop_duplicates("sentence", keep="first").reset_index(drop=True)
        if not kept.empty:
            rejected = rejected[~rejected["sentence"].isin(set(kept["sentence"]))].copy()
        duplicates += before - len(rejected)
    for frame in (kept, rejected):
        if not frame.empty:
            frame["family"] = "slguset"
            frame["language"] = "zh"
            frame["source_language"] = "zh"
    return kept, rejected, duplicates
