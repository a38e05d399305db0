"""One schema per family: the Arrow types *and* the value rules every stage relies on.

A family's candidate record is the shared envelope (identity columns, then the family's own
flat typed columns, then the rule verdicts). :class:`FamilySchema` holds it once; curation
writes with its Arrow schema, exports refuse a release that breaks it, scoring checks its
input with it, and the required-column lists are derived from it, never written by hand.

Checks come in two strengths. *Value* checks (types, allowed values, non-empty text, row
rules such as span bounds) hold for every candidate. *Release* rules are stricter: they hold
once review has fixed what the rules flagged (e.g. StereoSet's three sentences differing only
at the attribute), so they are checked at release.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

CHECK = pa.struct(
    [
        ("rule", pa.string()),
        ("passed", pa.bool_()),
        ("severity", pa.string()),
        ("detail", pa.string()),
    ]
)
SPAN = pa.struct([("start", pa.int32()), ("end", pa.int32())])
GENDERS = ("male", "female")


@dataclass(frozen=True)
class Column:
    """One typed column of a family's record and the values it may hold."""

    name: str
    type: pa.DataType
    required: bool = True  # later stages need it (releases and scoring refuse data without it)
    allowed: tuple[str, ...] | None = None  # the only values a string column may hold
    nonempty: bool = False  # a string that must hold text


IDENTITY = (
    Column("id", pa.string(), nonempty=True),
    Column("family", pa.string(), nonempty=True),
    Column("language", pa.string(), nonempty=True),
    Column("source_id", pa.string(), required=False),
    Column("source_language", pa.string(), required=False),
    Column("source_text", pa.string(), required=False),
)
VERDICTS = (
    Column("checks", pa.list_(CHECK), required=False),
    Column("needs_review", pa.bool_(), required=False),
    Column("review_reasons", pa.list_(pa.string()), required=False),
)

RowRule = Callable[[dict[str, Any]], list[str]]


@dataclass(frozen=True)
class Violation:
    """One broken rule, located by record (id) and, where it has one, column."""

    record: str
    message: str
    column: str | None = None
    # Identity problems (missing or duplicate ids) cannot be skipped: which copy to keep, or
    # how to refer to the record, is not ours to guess.
    skippable: bool = True

    def __str__(self) -> str:
        where = f"column {self.column}: " if self.column else ""
        return where + self.message


@dataclass(frozen=True)
class FamilySchema:
    """The record of one family: its columns (types, allowed values) and its row rules."""

    family: str
    columns: tuple[Column, ...]
    trailing: tuple[Column, ...] = ()  # after the verdicts (e.g. translation provenance)
    row_rules: tuple[RowRule, ...] = ()  # hold for every candidate
    release_rules: tuple[RowRule, ...] = ()  # hold once reviewed (checked at release)
    nested_ids: str | None = None  # a list column whose items carry ids unique in a release

    @property
    def all_columns(self) -> tuple[Column, ...]:
        return (*IDENTITY, *self.columns, *VERDICTS, *self.trailing)

    @property
    def arrow(self) -> pa.Schema:
        """The Arrow schema of a candidate (what ``candidates.parquet`` holds)."""
        return pa.schema([pa.field(c.name, c.type) for c in self.all_columns])

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.all_columns]

    def required(self) -> list[str]:
        """Columns later stages need, derived from the schema."""
        return [c.name for c in self.all_columns if c.required]

    def missing(self, columns: Iterable[str]) -> list[str]:
        have = set(columns)
        return [name for name in self.required() if name not in have]

    def check(self, table: pa.Table, *, release: bool = False) -> list[Violation]:
        """Every violation in ``table``: types, allowed values, then the row rules."""
        out = check_types(table, self.all_columns)
        if out:  # values of a wrongly typed column cannot be read reliably
            return out
        out += check_values(table, self.all_columns)
        rules = (*self.row_rules, *(self.release_rules if release else ()))
        if rules:
            out += check_rows(table, rules, self.family)
        return out


# ------------------------------------------------------------------------- types


def _kind(t: pa.DataType) -> str:
    checks = (
        ("string", pa.types.is_string(t) or pa.types.is_large_string(t)),
        ("integer", pa.types.is_integer(t)),
        ("float", pa.types.is_floating(t)),
        ("bool", pa.types.is_boolean(t)),
        ("list", pa.types.is_list(t) or pa.types.is_large_list(t)),
        ("struct", pa.types.is_struct(t)),
        ("null", pa.types.is_null(t)),
    )
    return next((name for name, ok in checks if ok), str(t))


def compatible(actual: pa.DataType, expected: pa.DataType) -> bool:
    """Same kind of value (widths may differ: int32/int64, string/large_string); a column of
    nulls fits any type; structs and lists are compared field by field."""
    kind = _kind(actual)
    if kind == "null":
        return True
    if kind == "integer" and _kind(expected) == "float":
        return True
    if kind != _kind(expected):
        return False
    if kind == "list":
        return compatible(actual.value_type, expected.value_type)
    if kind == "struct":
        have = {actual.field(i).name: actual.field(i).type for i in range(actual.num_fields)}
        for i in range(expected.num_fields):
            want = expected.field(i)
            if want.name in have and not compatible(have[want.name], want.type):
                return False
    return True


def _first_id(table: pa.Table, mask: pa.Array | None = None) -> str:
    ids = table.column("id") if "id" in table.column_names else None
    if ids is None or table.num_rows == 0:
        return "<no id>"
    if mask is None:
        return str(ids[0].as_py())
    index = pc.index(mask, True).as_py()
    return str(ids[index].as_py()) if index >= 0 else "<no id>"


def check_types(table: pa.Table, columns: Sequence[Column]) -> list[Violation]:
    out = []
    for col in columns:
        if col.name not in table.column_names:
            continue
        actual = table.schema.field(col.name).type
        if not compatible(actual, col.type):
            out.append(
                Violation(
                    _first_id(table),
                    f"has type {actual}, expected {col.type}",
                    column=col.name,
                    skippable=False,
                )
            )
    return out


# ------------------------------------------------------------------------- values


def _bad_mask(values: pa.ChunkedArray, col: Column) -> pa.Array | None:
    if col.allowed is not None:
        ok = pc.is_in(values, value_set=pa.array(col.allowed, pa.string()))
        return pc.invert(pc.fill_null(ok, False))
    if col.nonempty:
        stripped = pc.utf8_trim_whitespace(pc.cast(values, pa.string()))
        return pc.fill_null(pc.equal(pc.utf8_length(stripped), 0), True)
    return None


def check_values(table: pa.Table, columns: Sequence[Column]) -> list[Violation]:
    """Allowed values and non-empty text, one violation per offending record and column."""
    out = []
    ids = table.column("id").to_pylist() if "id" in table.column_names else None
    for col in columns:
        if col.name not in table.column_names or _kind(col.type) != "string":
            continue
        mask = _bad_mask(table.column(col.name), col)
        if mask is None or not pc.any(mask).as_py():
            continue
        values = table.column(col.name)
        for index in pc.indices_nonzero(mask).to_pylist():
            value = values[index].as_py()
            record = str(ids[index]) if ids and ids[index] else f"<row {index}>"
            why = (
                f"value {value!r} is not one of {', '.join(col.allowed)}"
                if col.allowed is not None
                else "is empty"
            )
            out.append(Violation(record, why, column=col.name, skippable=col.name != "id"))
    return out


def check_rows(table: pa.Table, rules: Sequence[RowRule], family: str) -> list[Violation]:
    out = []
    for index, row in enumerate(table.to_pylist()):
        record = str(row.get("id") or f"<row {index}>")
        for rule in rules:
            out += [Violation(record, problem) for problem in rule(row)]
    return out


# ------------------------------------------------------------------------- shared rules


def span_problem(text: str, span: Any, expected: str | None, what: str) -> str | None:
    """Why ``span`` does not lie inside ``text`` (and cover ``expected``), or None."""
    if not isinstance(span, dict) or span.get("start") is None or span.get("end") is None:
        return f"{what} span is missing"
    start, end = int(span["start"]), int(span["end"])
    if not 0 <= start < end <= len(text):
        return f"{what} span {start}:{end} lies outside the sentence (length {len(text)})"
    if expected is not None and text[start:end] != expected:
        return f"{what} span {start}:{end} covers {text[start:end]!r}, not {expected!r}"
    return None


__all__ = [
    "CHECK",
    "GENDERS",
    "IDENTITY",
    "SPAN",
    "VERDICTS",
    "Column",
    "FamilySchema",
    "Violation",
    "check_rows",
    "check_types",
    "check_values",
    "compatible",
    "span_problem",
]
