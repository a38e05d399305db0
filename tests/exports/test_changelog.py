"""Content hashes: what counts as a changed record."""

from __future__ import annotations

from biasforge.exports.changelog import content_hash, diff_records


def record(**changes) -> dict:
    base = {
        "id": "a1",
        "sentence": "Le joueur d'échecs était asiatique.",
        "translation": {"engine": "deepl", "cache_hit": False, "glossary": None},
        "checks": [{"rule": "structure", "passed": True}],
    }
    return {**base, **changes}


def test_a_memory_hit_is_not_a_change():
    again = record(translation={"engine": "deepl", "cache_hit": True, "glossary": None})
    assert content_hash(record(), "intrasentence") == content_hash(again, "intrasentence")


def test_text_engine_checks_and_config_are_changes():
    base = content_hash(record(), "intrasentence")
    assert content_hash(record(sentence="Le joueur était asiatique."), "intrasentence") != base
    other_engine = record(translation={"engine": "other", "cache_hit": False, "glossary": None})
    assert content_hash(other_engine, "intrasentence") != base
    assert content_hash(record(checks=[]), "intrasentence") != base
    assert content_hash(record(), "intersentence") != base


def test_diff_names_the_changed_fields():
    old = {"a1": ("intrasentence", record()), "b2": ("intrasentence", record(id="b2"))}
    new = {
        "a1": ("intrasentence", record(sentence="x", checks=[])),
        "c3": ("intrasentence", record(id="c3")),
    }
    diff = diff_records(old, new)
    assert (diff.added, diff.removed, diff.changed) == (
        ["c3"],
        ["b2"],
        {"a1": ["checks", "sentence"]},
    )
