"""What was done about an item's culture, as every stage reads it (issue 44).

A translated item is *transferred* (kept as translated), *modified* (its target group or
attribute replaced by the target culture's own), *removed* (the stereotype is not held or not
meaningful there) or, written in the language instead of translated, *native* — the
categories of KoBBQ (Jin et al. 2024) and of the French CrowS-Pairs' new pairs (Névéol et al.
2022). Records carry the decision in ``adaptation``, why in ``adaptation_note`` ("" when none)
and where the item comes from in ``origin``. Declared once here: curation writes ``origin`` for
native items, review decides ``adaptation``, a release keeps both and lines languages up on the
items they share (MBBQ, Neplenbroek et al. 2024), scoring compares languages on those.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pyarrow as pa

from biasforge.contract.schema import Column, FamilySchema

ADAPTATION = "adaptation"
ADAPTATION_NOTE = "adaptation_note"
ORIGIN = "origin"

TRANSFERRED = "transferred"
MODIFIED = "modified"
REMOVED = "removed"
NATIVE = "native"
ADAPTATIONS = (TRANSFERRED, MODIFIED, REMOVED, NATIVE)
#: the adaptations under which an item still tests the same stereotype as its source
KEPT = (TRANSFERRED, MODIFIED)

TRANSLATED = "translated"
ORIGINS = (TRANSLATED, NATIVE)

#: the release item columns, in order (all optional: a record without them is translated and
#: transferred). ``adaptation`` has no value rule: it is null until review decides it.
COLUMNS = (
    Column(ADAPTATION, pa.string(), required=False),
    Column(ADAPTATION_NOTE, pa.string(), required=False),
    Column(ORIGIN, pa.string(), required=False, allowed=ORIGINS),
)


def with_adaptation(schema: FamilySchema) -> FamilySchema:
    """``schema`` with the adaptation columns after its own (those it already has kept)."""
    have = set(schema.names)
    extra = tuple(c for c in COLUMNS if c.name not in have)
    return replace(schema, trailing=(*schema.trailing, *extra))


def origin_of(row: Mapping[str, Any]) -> str:
    """``native`` for an item written in its language, else ``translated`` (also when the
    record has no ``origin``: it was curated before native items existed)."""
    if row.get(ORIGIN) == NATIVE or row.get(ADAPTATION) == NATIVE:
        return NATIVE
    return TRANSLATED


def adaptation_of(row: Mapping[str, Any]) -> str:
    """The item's adaptation; a translated item without a decision counts as transferred."""
    if origin_of(row) == NATIVE:
        return NATIVE
    value = row.get(ADAPTATION)
    return str(value) if value in ADAPTATIONS else TRANSFERRED


def kept_in_translation(row: Mapping[str, Any]) -> bool:
    """Whether the item still tests its source's stereotype (transferred or modified), so it
    can be lined up with the same source item in other languages; native items never are."""
    return adaptation_of(row) in KEPT


__all__ = [
    "ADAPTATION",
    "ADAPTATIONS",
    "ADAPTATION_NOTE",
    "COLUMNS",
    "KEPT",
    "MODIFIED",
    "NATIVE",
    "ORIGIN",
    "ORIGINS",
    "REMOVED",
    "TRANSFERRED",
    "TRANSLATED",
    "adaptation_of",
    "kept_in_translation",
    "origin_of",
    "with_adaptation",
]
