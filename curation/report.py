"""Markdown sections of run reports: rule tables and examples (tables come from the contract)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from biasforge.contract.markdown import crosstab_md, excerpt, md_table
from biasforge.curation.checks import CheckStats

__all__ = ["crosstab_md", "examples_md", "md_table", "rules_md"]


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
    each quoting (an excerpt of) the item's ``text_column``."""
    seen: dict[str, list[str]] = {}
    for sentence, reasons in zip(frame[text_column], frame[column], strict=True):
        for reason in reasons:
            rule, _, detail = reason.partition(": ")
            examples = seen.setdefault(rule, [])
            if len(examples) < per_rule and all(detail not in e for e in examples):
                examples.append(f"“{excerpt(sentence)}” — {excerpt(detail)}")
    if not seen:
        return "_none_"
    parts = []
    for rule, examples in seen.items():
        parts.append(f"**{rule}**\n\n" + "\n".join(f"- {e}" for e in examples))
    return "\n\n".join(parts)
