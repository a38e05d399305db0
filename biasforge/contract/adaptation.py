"""What was done about an item's culture, as every stage reads it (issue 44).

KoBBQ (Jin et al., TACL 2024) sorted every translated item into *simply transferred*, *target
modified* and *sample removed*, and added items written for the target culture; the French
CrowS-Pairs (Névéol et al. 2022) dropped US-centric pairs and wrote new ones. biasforge records
the same four categories per item, in ``adaptation``:

- ``transferred``: kept as translated (the stereotype is recognised where the annotators live);
- ``modified``: recognised, but attached there to another group or attribute, which the
  reviewers typed (``adaptation_note``); the translated text is kept beside it;
- ``removed``: not recognised there; ``adaptation_note`` holds the reason. Released (so the
  decision is on record) but never scored;
- ``native``: written in the language, not translated (``origin`` = ``native``).

``origin`` says where an item comes from: ``translated``, ``native`` (written in the target
language, ``curate … --native``) or ``source`` (the benchmark's own language, as published: it
stands for itself, so it counts as transferred and lines up with its translations). Declared
once here: curation writes ``origin`` for native items, review decides ``adaptation``, a release
keeps both and lines languages up on the items they share (MBBQ, Neplenbroek et al. 2024), and
scoring leaves removed items out and reports the ``transferred`` subset apart.

An item without a decision (reviewed before the question existed, or released unreviewed)
counts as ``transferred``; :func:`undecided` counts such items, and the card says how many.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from biasforge.contract.schema import Column, FamilySchema

ADAPTATION = "adaptation"
ADAPTATION_NOTE = "adaptation_note"
ORIGIN = "origin"

TRANSFERRED, MODIFIED, REMOVED, NATIVE = "transferred", "modified", "removed", "native"
ADAPTATIONS = (TRANSFERRED, MODIFIED, REMOVED, NATIVE)
#: the adaptations under which an item still tests the same stereotype as its source
KEPT = (TRANSFERRED, MODIFIED)

TRANSLATED, SOURCE = "translated", "source"
ORIGINS = (TRANSLATED, NATIVE, SOURCE)

#: the release item columns, in order (all optional: a record without them is translated and
#: transferred). ``adaptation`` has no value rule: it is null until review decides it.
COLUMNS = (
    Column(ADAPTATION, pa.string(), required=False),
    Column(ADAPTATION_NOTE, pa.string(), required=False),
    Column(ORIGIN, pa.string(), required=False, allowed=ORIGINS),
)


# -- one record (curation, parallel releases) ------------------------------------------------
def schema_with_adaptation(schema: FamilySchema) -> FamilySchema:
    """``schema`` with the adaptation columns after its own (those it already has kept)."""
    have = set(schema.names)
    extra = tuple(c for c in COLUMNS if c.name not in have)
    return replace(schema, trailing=(*schema.trailing, *extra))


def origin_of(row: Mapping[str, Any]) -> str:
    """The item's origin; ``native`` also where only its adaptation says so, ``translated``
    when the record has none (it was curated before native items existed)."""
    if row.get(ORIGIN) == NATIVE or row.get(ADAPTATION) == NATIVE:
        return NATIVE
    return SOURCE if row.get(ORIGIN) == SOURCE else TRANSLATED


def adaptation_of(row: Mapping[str, Any]) -> str:
    """The item's adaptation; an item without a decision counts as transferred."""
    if origin_of(row) == NATIVE:
        return NATIVE
    value = row.get(ADAPTATION)
    return str(value) if value in ADAPTATIONS else TRANSFERRED


def kept_in_translation(row: Mapping[str, Any]) -> bool:
    """Whether the item still tests its source's stereotype (transferred or modified; the
    source item itself), so it can be lined up with the same source item in other languages;
    native items never are."""
    return adaptation_of(row) in KEPT


# -- a whole release (pyarrow) ---------------------------------------------------------------
def column_or_nulls(table: pa.Table, name: str) -> pa.Array:
    """``table``'s column ``name`` as one array, or nulls when it has none."""
    if name in table.column_names:
        return table.column(name).combine_chunks().cast(pa.string())
    return pa.nulls(table.num_rows, pa.string())


def undecided(table: pa.Table) -> int:
    """How many translated items carry no adaptation decision (they count as
    ``transferred``)."""
    missing = pc.and_(pc.is_null(column_or_nulls(table, ADAPTATION)), _translated(table))
    native = pc.fill_null(pc.equal(column_or_nulls(table, ORIGIN), NATIVE), False)
    return int(pc.sum(pc.and_not(missing, native).cast("int64")).as_py() or 0)


def _translated(table: pa.Table) -> pa.Array:
    """Whether each item was translated: it has a translation record, or its source is in
    another language (an item of the source language, e.g. English CrowS-Pairs, is not)."""
    language = column_or_nulls(table, "language")
    source = column_or_nulls(table, "source_language")
    other = pc.fill_null(pc.not_equal(source, language), False)
    if "translation" not in table.column_names:
        return other
    return pc.or_(other, pc.is_valid(table.column("translation").combine_chunks()))


def with_adaptation(table: pa.Table) -> pa.Table:
    """``table`` with the three columns filled: an item without an origin is ``translated``
    when it was (see :func:`_translated`), else ``source``; without a decision, a native item
    is ``native`` and any other ``transferred``; without a note, ``""``."""
    guessed = pc.if_else(_translated(table), TRANSLATED, SOURCE)
    origin = pc.coalesce(column_or_nulls(table, ORIGIN), guessed)
    default = pc.if_else(pc.equal(origin, NATIVE), NATIVE, TRANSFERRED)
    values = {
        ADAPTATION: pc.coalesce(column_or_nulls(table, ADAPTATION), default),
        ADAPTATION_NOTE: pc.fill_null(column_or_nulls(table, ADAPTATION_NOTE), ""),
        ORIGIN: origin,
    }
    for column in COLUMNS:
        name = column.name
        if name in table.column_names:
            table = table.set_column(table.column_names.index(name), name, values[name])
        else:
            table = table.append_column(name, values[name])
    return table


# -- scoring (pandas) ------------------------------------------------------------------------
def scored(items: Any) -> Any:
    """The items a score is computed on (pandas): every item but the ``removed`` ones."""
    if ADAPTATION not in items.columns:
        return items
    return items[items[ADAPTATION].fillna(TRANSFERRED) != REMOVED].reset_index(drop=True)


def transferred_ids(items: Any) -> set[str] | None:
    """The ids of the ``transferred`` items (pandas), or None when every item is transferred,
    none is, or the items carry no adaptation column: then there is no subset to report
    apart."""
    if ADAPTATION not in items.columns:
        return None
    kept = items[ADAPTATION].fillna(TRANSFERRED) == TRANSFERRED
    return None if bool(kept.all()) or not kept.any() else set(items.loc[kept, "id"].astype(str))
