"""The checks every record must pass before it is released.

The family's schema (:mod:`biasforge.families`) says what a valid record is — column types,
allowed values, span bounds, and the release rules such as StereoSet's three sentences
differing only at the attribute. This module adds what only a release can see: ids unique
across all inputs (items and nested sentence ids) and one family per release. Each violation
names the record and, where it has one, the column, so a maintainer can find and fix it.
"""

from __future__ import annotations

import pyarrow as pa

from biasforge.contract.schema import Violation
from biasforge.families import Family

__all__ = ["Violation", "validate_table"]


def _identity(table: pa.Table, family: Family) -> list[Violation]:
    out: list[Violation] = []
    seen: set[str] = set()
    families = table.column("family").to_pylist() if "family" in table.column_names else []
    for index, rid in enumerate(table.column("id").to_pylist()):
        if not rid:
            out.append(Violation(f"<row {index}>", "record without an id", "id", skippable=False))
            continue
        if rid in seen:
            out.append(
                Violation(rid, "duplicate id (ids must be unique in a release)", skippable=False)
            )
        seen.add(rid)
        if families and families[index] != family.name:
            out.append(
                Violation(rid, f"value {families[index]!r} in a {family.name} release", "family")
            )
    return out


def _nested_ids(table: pa.Table, column: str) -> list[Violation]:
    out: list[Violation] = []
    seen: set[str] = set()
    for rid, items in zip(
        table.column("id").to_pylist(), table.column(column).to_pylist(), strict=True
    ):
        for item in items or []:
            sid = item.get("id")
            if sid and sid in seen:
                out.append(
                    Violation(rid, f"duplicate {column} id {sid!r}", column, skippable=False)
                )
            seen.add(sid)
    return out


def validate_table(table: pa.Table, family: Family) -> list[Violation]:
    """Every violation in ``table``: schema (types, values, rules) and identity."""
    missing = family.schema.missing(table.column_names)
    if missing:
        return [
            Violation(
                "<all>", f"missing column(s) {', '.join(missing)}", missing[0], skippable=False
            )
        ]
    out = family.schema.check(table, release=True)
    if any(not v.skippable for v in out):  # wrong types: the rows cannot be read reliably
        return out
    out += _identity(table, family)
    if family.schema.nested_ids:
        out += _nested_ids(table, family.schema.nested_ids)
    return out
