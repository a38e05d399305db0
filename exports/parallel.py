"""Releases that line languages up (``export release --parallel``, issue 44).

MBBQ (Neplenbroek et al. 2024) kept only the stereotypes common to all its languages, so that
figures compare across languages. Given runs or reviewed records of one family in several
languages, a parallel release has a config per language (each language's items as reviewed,
native and removed ones included) and a ``shared`` config: the items *kept*
(:func:`biasforge.contract.adaptation.kept_in_translation`: transferred or modified; a record
without an ``adaptation`` column counts as transferred) in every language, aligned by their
source item (the family's ``source_key``, ``source_id`` unless it says otherwise). Native
items have no source counterpart and are never shared; an item rejected in review, or removed
as not held in one culture, leaves the shared config in every language.

Where a family splits its records further (StereoSet: intrasentence / intersentence), each
config is split the same way (``fr_intrasentence``, ``shared_intrasentence``); a family whose
configs are its languages (CrowS-Pairs) gets ``fr``, ``en`` … and ``shared``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from biasforge.contract.adaptation import adaptation_of, kept_in_translation
from biasforge.errors import BiasforgeError
from biasforge.families import Family

SHARED = "shared"
#: how a source key is joined into one value (columns of ``Family.source_key``)
KEY_SEPARATOR = "\x1f"


def source_keys(table: pa.Table, family: Family) -> list[str]:
    """Each row's source item, as one string (the family's ``source_key`` columns joined)."""
    absent = [None] * table.num_rows
    columns = [
        table.column(c).to_pylist() if c in table.column_names else absent
        for c in family.source_key
    ]
    return [KEY_SEPARATOR.join(str(v or "") for v in row) for row in zip(*columns, strict=True)]


def _config_names(table: pa.Table, family: Family, prefix: list[str]) -> list[str]:
    """``prefix`` (a language, or ``shared``) per row, with the family's own config after it
    unless that is the row's language or ``default``."""
    own = family.config_of(table)
    languages = table.column("language").to_pylist()
    return [
        p if sub in (lang, "default") else f"{p}_{sub}"
        for p, sub, lang in zip(prefix, own, languages, strict=True)
    ]


def _shared_keys(rows: list[dict[str, Any]], keys: list[str], languages: list[str]) -> set[str]:
    """The source items kept in every language; a source item kept twice in one language is
    refused (which copy lines up is not ours to guess)."""
    kept: dict[str, dict[str, str]] = {lang: {} for lang in languages}
    for row, key in zip(rows, keys, strict=True):
        if not kept_in_translation(row):
            continue
        seen = kept[row["language"]].setdefault(key, str(row["id"]))
        if seen != str(row["id"]):
            raise BiasforgeError(
                f"--parallel: records {seen} and {row['id']} ({row['language']}) are both "
                f"kept versions of source item {key.replace(KEY_SEPARATOR, ' ')!r}; "
                "one source item lines up with one item per language"
            )
    return set.intersection(*(set(k) for k in kept.values()))


def line_up(table: pa.Table, family: Family) -> tuple[dict[str, pa.Table], dict[str, Any]]:
    """The configs of a parallel release (languages in input order, then ``shared``) and what
    its manifest and card say about them."""
    languages = list(dict.fromkeys(str(v) for v in table.column("language").to_pylist()))
    if len(languages) < 2:
        raise BiasforgeError(
            f"--parallel: the inputs hold one language ({', '.join(languages)}); a parallel "
            "release lines up two or more (give runs or reviewed records of each)"
        )
    rows = table.select(
        [c for c in ("id", "language", "adaptation", "origin") if c in table.column_names]
    ).to_pylist()
    keys = source_keys(table, family)
    shared = _shared_keys(rows, keys, languages)
    in_shared = pa.array(
        [kept_in_translation(r) and k in shared for r, k in zip(rows, keys, strict=True)]
    )
    names = _config_names(table, family, [str(r["language"]) for r in rows])
    shared_table = table.filter(in_shared)
    shared_names = _config_names(shared_table, family, [SHARED] * shared_table.num_rows)
    configs = _grouped(table, names) | _grouped(shared_table, shared_names)
    return configs, _summary(rows, languages, family, len(shared))


def _grouped(table: pa.Table, names: list[str]) -> dict[str, pa.Table]:
    column = pa.array(names, pa.string())
    return {name: table.filter(pc.equal(column, name)) for name in dict.fromkeys(names)}


def _summary(
    rows: list[dict[str, Any]], languages: list[str], family: Family, shared: int
) -> dict[str, Any]:
    per: dict[str, Counter[str]] = {lang: Counter() for lang in languages}
    for row in rows:
        per[row["language"]][adaptation_of(row)] += 1
    return {
        "languages": languages,
        "key": list(family.source_key),
        "shared_items": shared,
        "adaptation": {lang: dict(sorted(c.items())) for lang, c in per.items()},
    }


def is_shared(config: str) -> bool:
    """Whether ``config`` of a parallel release is (part of) the shared config."""
    return config == SHARED or config.startswith(SHARED + "_")
