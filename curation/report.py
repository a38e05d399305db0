"""Markdown helpers for run reports: small, dependency-free tables a reviewer can read."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from curation.checks import CheckStats


def md_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A GitHub-flavoured markdown table; pipes inside cells are escaped."""

    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


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


def rules_md(stats: Sequence[CheckStats]) -> str:
    """One line per rule: severity, items seen, failures, time."""
    return md_table(
        ["rule", "severity", "what it checks", "seen", "failed", "seconds"],
        [[s.name, s.severity, s.description, s.seen, s.failed, f"{s.seconds:.3f}"] for s in stats],
    )


def examples_md(
    frame: pd.DataFrame, column: str, per_rule: int = 3, text_column: str = "sentence"
) -> str:
    """For each rule named in ``column`` (lists of "rule: detail"), a few distinct examples,
    each quoting the item's ``text_column``."""
    seen: dict[str, list[str]] = {}
    for sentence, reasons in zip(frame[text_column], frame[column], strict=True):
        for reason in reasons:
            rule, _, detail = reason.partition(": ")
            examples = seen.setdefault(rule, [])
            if len(examples) < per_rule and all(detail not in e for e in examples):
                examples.append(f"“{sentence}” — {detail}")
    if not seen:
        return "_none_"
    parts = []
    for rule, examples in seen.items():
        parts.append(f"**{rule}**\n\n" + "\n".join(f"- {e}" for e in examples))
    return "\n\n".join(parts)
