"""The SlguSet run directory, written as the merged rows stream by — never all in memory.

The rows go through the contract's one run writer (:func:`biasforge.contract.rundir.run_writer`,
parquet row groups as the rows arrive); this module only tallies on the way what the report
needs (:class:`Tally`: counts per keyword, form and rule, the first few examples per rule).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from biasforge.contract.markdown import excerpt
from biasforge.contract.rundir import RunResult, run_writer
from biasforge.contract.schema import FamilySchema

T = TypeVar("T")
R = TypeVar("R")


class Examples:
    """A few distinct examples per rule, as :func:`biasforge.curation.report.examples_md` picks them
    from a whole frame, collected row by row."""

    def __init__(self, per_rule: int = 3) -> None:
        self.per_rule = per_rule
        self.seen: dict[str, list[str]] = {}

    def add(self, sentence: str, reasons: list[str]) -> None:
        for reason in reasons:
            rule, _, detail = reason.partition(": ")
            examples = self.seen.setdefault(rule, [])
            if len(examples) < self.per_rule and all(detail not in e for e in examples):
                examples.append(f"“{excerpt(sentence)}” — {excerpt(detail)}")

    def markdown(self) -> str:
        if not self.seen:
            return "_none_"
        return "\n\n".join(
            f"**{rule}**\n\n" + "\n".join(f"- {e}" for e in examples)
            for rule, examples in self.seen.items()
        )


@dataclass
class Tally:
    """What the stats and the report need from the rows, counted as they stream by."""

    kept: int = 0
    rejected: int = 0
    needs_review: int = 0
    kept_keywords: Counter = field(default_factory=Counter)
    flagged_keywords: Counter = field(default_factory=Counter)
    rejected_keywords: Counter = field(default_factory=Counter)
    collective_keywords: Counter = field(default_factory=Counter)  # dropped as collective form
    rejections: Counter = field(default_factory=Counter)  # by the rule that dropped the row
    review_examples: Examples = field(default_factory=Examples)
    reject_examples: Examples = field(default_factory=Examples)

    def add(self, kind: str, row: dict[str, Any]) -> None:
        keyword = row["keyword"]
        if kind == "k":
            self.kept += 1
            self.kept_keywords[keyword] += 1
            if row["needs_review"]:
                self.needs_review += 1
                self.flagged_keywords[keyword] += 1
            self.review_examples.add(row["sentence"], row["review_reasons"])
            return
        self.rejected += 1
        self.rejected_keywords[keyword] += 1
        first = row["reasons"][0]
        self.rejections[first.split(":", 1)[0]] += 1
        if first.startswith("collective_form:"):
            self.collective_keywords[keyword] += 1
        self.reject_examples.add(row["sentence"], row["reasons"])


def write_streamed_run(
    out: str | Path,
    *,
    schema: FamilySchema,
    rows: Iterator[tuple[str, dict[str, Any]]],
    finish: Callable[[Tally, Any], tuple[dict[str, Any], str]],
    inputs: list[dict[str, Any]],
    config: dict[str, Any],
    overwrite: bool = False,
) -> RunResult:
    """Stream ``rows`` (``("k" | "r", row)``, in order) through the contract's run writer,
    tallying what the report needs on the way.

    ``finish(tally, value)`` — called once the rows are written, with the tally and the
    generator's return value — gives ``(stats, report_md)``.
    """
    tally = Tally()
    with run_writer(out, schema=schema, inputs=inputs, config=config, overwrite=overwrite) as run:

        def write(item: tuple[str, dict[str, Any]]) -> None:
            kind, row = item
            tally.add(kind, row)
            (run.kept if kind == "k" else run.rejected).add(row)

        value = drain(rows, write)
        run.finish(*finish(tally, value))
    return RunResult(Path(out), run.stats or {})


def drain(items: Generator[T, Any, R] | Iterator[T], each: Callable[[T], object]) -> R | None:
    """Hand every item to ``each``; the generator's return value (the merge returns what it
    counted that way, which a ``for`` loop would drop)."""
    while True:
        try:
            item = next(items)
        except StopIteration as stop:
            return stop.value
        each(item)
