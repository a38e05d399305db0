"""The SlguSet run directory, written as the merged rows stream by — never all in memory.

:func:`write_streamed_run` is :func:`biasforge.contract.rundir.write_run` for a stream: the
same files (``candidates.parquet`` typed by the family's schema and checked against it,
``rejected.parquet`` with ``reasons``, ``stats.json``, ``report.md``, ``manifest.json``) in the
same staged directory, but the parquet files are written in row groups as the rows arrive, and
what the report needs is tallied on the way (:class:`Tally`: counts per keyword, form and rule,
the first few examples per rule).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from biasforge.contract.manifest import write_manifest
from biasforge.contract.rundir import CANDIDATES, REJECTED, RUN_PACKAGES, RunResult
from biasforge.contract.schema import FamilySchema
from biasforge.errors import BiasforgeError
from biasforge.files import staged_directory, write_json_atomic, write_text_atomic

BATCH_ROWS = 4096


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
                examples.append(f"“{sentence}” — {detail}")

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


class ParquetRows:
    """Rows appended one by one, written to parquet in row groups of ``BATCH_ROWS``; with a
    ``schema_check``, every batch is checked against the family's value rules first."""

    def __init__(self, path: Path, schema: pa.Schema, check: FamilySchema | None = None) -> None:
        self.schema = schema
        self.check = check
        self.writer = pq.ParquetWriter(path, schema)
        self.batch: list[dict[str, Any]] = []

    def add(self, row: dict[str, Any]) -> None:
        self.batch.append(row)
        if len(self.batch) >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        if not self.batch:
            return
        table = pa.Table.from_pylist(self.batch, schema=self.schema)
        self.batch = []
        if self.check is not None:
            problems = self.check.check(table)
            if problems:
                first = problems[0]
                raise BiasforgeError(
                    f"{self.check.family} pipeline produced an invalid candidate "
                    f"{first.record}: {first}"
                )
        self.writer.write_table(table)

    def close(self) -> None:
        self.flush()
        self.writer.close()


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
    """Write the run directory ``out`` from ``rows`` (``("k" | "r", row)``, in order).

    ``finish(tally, value)`` — called once the rows are written, with the tally and the
    generator's return value — gives ``(stats, report_md)``.
    """
    rejected_schema = schema.arrow.append(pa.field("reasons", pa.list_(pa.string())))
    tally = Tally()
    with staged_directory(out, overwrite=overwrite, kind="run") as stage:
        kept = ParquetRows(stage / CANDIDATES, schema.arrow, check=schema)
        rejected = ParquetRows(stage / REJECTED, rejected_schema)
        try:
            while True:
                try:
                    kind, row = next(rows)
                except StopIteration as stop:
                    value = stop.value
                    break
                tally.add(kind, row)
                (kept if kind == "k" else rejected).add(row)
        finally:
            kept.close()
            rejected.close()
        stats, report_md = finish(tally, value)
        write_json_atomic(stage / "stats.json", stats)
        write_text_atomic(stage / "report.md", report_md)
        write_manifest(
            stage, "run", family=schema.family, config=config, inputs=inputs, packages=RUN_PACKAGES
        )
    return RunResult(Path(out), stats)
