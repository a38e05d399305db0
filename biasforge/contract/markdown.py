"""The one markdown table helper every report, card and review summary uses.

Cells are formatted the same everywhere (floats rounded, NaN as "–", pipes escaped, newlines
flattened), so a figure reads the same in a run report, a dataset card and a score report.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import pandas as pd


def fmt(value: object, digits: int | None = 2) -> str:
    """One cell: floats rounded to ``digits`` (kept as written when None), NaN/None as "–"."""
    if value is None:
        return "–"
    if isinstance(value, float) and digits is not None:
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _cell(value: object, digits: int | None) -> str:
    return fmt(value, digits).replace("|", "\\|").replace("\n", " ")


def md_table(
    header: Sequence[object], rows: Iterable[Sequence[object]], digits: int | None = None
) -> str:
    """A GitHub-flavoured markdown table (no trailing newline); floats are rounded to
    ``digits`` when given, else written as they are."""
    lines = [
        "| " + " | ".join(_cell(h, digits) for h in header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(_cell(v, digits) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def frame_md(frame: pd.DataFrame, digits: int = 2) -> str:
    """``frame`` as a markdown table (its columns as header); an empty frame says so."""
    if frame.empty:
        return "_(no rows)_\n"
    rows = [list(row) for row in frame.itertuples(index=False)]
    return md_table([str(c) for c in frame.columns], rows, digits) + "\n"


def crosstab_md(
    frame: pd.DataFrame, index: str, columns: str, index_order: Sequence[str] = ()
) -> str:
    """Counts of ``index`` × ``columns`` with totals, as a markdown table."""
    table = pd.crosstab(frame[index], frame[columns], margins=True, margins_name="total")
    if index_order:
        table = table.reindex([*[i for i in index_order if i in table.index], "total"])
    header = [index, *[str(c) for c in table.columns]]
    return md_table(
        header, [[idx, *row] for idx, row in zip(table.index, table.values.tolist(), strict=True)]
    )


#: characters of an item's text a report quotes; the whole item is in the run's parquet files
EXCERPT = 200


def excerpt(text: object, limit: int = EXCERPT) -> str:
    """``text`` as a report quotes it: whole when at most ``limit`` characters, else its first
    ``limit`` characters and "…(N characters)", so a huge item (a 10 MB sentence someone fed
    in) cannot copy itself into report.md; newlines are flattened so a quote stays one line."""
    text = str(text).replace("\r", " ").replace("\n", " ")
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ", limit - 20)  # end on a whole word where one ends near the limit
    return f"{cut[: space + 1] if space > 0 else cut}…({len(text)} characters)"
