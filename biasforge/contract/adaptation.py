"""What was done about an item's culture (issue 44): the columns a release of a translated
family carries, shared by review (which decides them), export (which writes them) and scoring
(which leaves removed items out and reports the ``transferred`` subset apart).

KoBBQ (Jin et al., TACL 2024) sorted every translated item into *simply transferred*, *target
modified* and *sample removed*, and added items written for the target culture; biasforge
records the same four categories per item:

- ``transferred``: kept as translated (the stereotype is recognised where the annotators live);
- ``modified``: recognised, but attached there to another group or attribute, which the
  reviewers typed (``adaptation_note``); the translated text is kept beside it;
- ``removed``: not recognised there; ``adaptation_note`` holds the reason. Released (so the
  decision is on record) but never scored;
- ``native``: written in the language, not translated (``origin`` = ``native``).

An item without a decision (reviewed before the question existed, or released unreviewed)
counts as ``transferred``; :func:`undecided` counts such items, and the card says how many.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

ADAPTATION = "adaptation"
ADAPTATION_NOTE = "adaptation_note"
ORIGIN = "origin"

TRANSFERRED, MODIFIED, REMOVED, NATIVE = "transferred", "modified", "removed", "native"
CATEGORIES = (TRANSFERRED, MODIFIED, REMOVED, NATIVE)
TRANSLATED = "translated"
ORIGINS = (TRANSLATED, NATIVE)

#: the release columns, in their order (after the family's own and the review's)
COLUMNS = (
    (ADAPTATION, pa.string()),
    (ADAPTATION_NOTE, pa.string()),
    (ORIGIN, pa.string()),
)


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
    another language (an item of the source language, e.g. English CrowS-Pairs, is native)."""
    language = column_or_nulls(table, "language")
    source = column_or_nulls(table, "source_language")
    other = pc.fill_null(pc.not_equal(source, language), False)
    if "translation" not in table.column_names:
        return other
    return pc.or_(other, pc.is_valid(table.column("translation").combine_chunks()))


def with_adaptation(table: pa.Table) -> pa.Table:
    """``table`` with the three columns filled: an item without an origin is ``translated``
    when it was (see :func:`_translated`), else ``native``; without a decision, a translated
    item is ``transferred`` and a native one ``native``; without a note, ``""``."""
    guessed = pc.if_else(_translated(table), TRANSLATED, NATIVE)
    origin = pc.coalesce(column_or_nulls(table, ORIGIN), guessed)
    default = pc.if_else(pc.equal(origin, NATIVE), NATIVE, TRANSFERRED)
    values = {
        ADAPTATION: pc.coalesce(column_or_nulls(table, ADAPTATION), default),
        ADAPTATION_NOTE: pc.fill_null(column_or_nulls(table, ADAPTATION_NOTE), ""),
        ORIGIN: origin,
    }
    for name, _ in COLUMNS:
        if name in table.column_names:
            table = table.set_column(table.column_names.index(name), name, values[name])
        else:
            table = table.append_column(name, values[name])
    return table


def scored(items: Any) -> Any:
    """The items a score is computed on (pandas): every item but the ``removed`` ones."""
    if ADAPTATION not in items.columns:
        return items
    return items[items[ADAPTATION].fillna(TRANSFERRED) != REMOVED].reset_index(drop=True)


def transferred_ids(items: Any) -> set[str] | None:
    """The ids of the ``transferred`` items (pandas), or None when every item is transferred,
    none is (a release of the source language: all native), or the items carry no adaptation
    column: then there is no subset to report apart."""
    if ADAPTATION not in items.columns:
        return None
    kept = items[ADAPTATION].fillna(TRANSFERRED) == TRANSFERRED
    return None if bool(kept.all()) or not kept.any() else set(items.loc[kept, "id"].astype(str))
