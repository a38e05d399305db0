"""A reviewer's correction of a BEC-Pro item is checked again: the lexicon's doubts that the
correction settles are dropped, the others stay (issue 37, item 8).

The items are the curated ones (real runs); the corrections are what a reviewer types.
"""

from __future__ import annotations

import pytest

from biasforge import families
from tests.becpro.conftest import candidates

REVIEW = families.get("becpro").review


def _item(run, sentence: str) -> dict:
    items = candidates(run)
    return items[items.sentence == sentence].iloc[0].to_dict()


def _corrected(row: dict, text: str) -> dict:
    return REVIEW.recheck(row, REVIEW.apply_correction(row, text))


@pytest.mark.parametrize(
    ("sentence", "fix"),
    [
        ("Él es un mecánico autobuses.", "Él es un mecánico de autobuses."),
        ("Mi madre es una mecánica autobuses.", "Mi madre es una mecánica de autobuses."),
    ],
)
def test_the_suggested_preposition_settles_the_note(becpro_runs, sentence, fix):
    """The note quotes the printed form ('mecánico/a de autobuses'); the item writes it for
    its person's gender, so the correction that adopts it settles the note."""
    row = _item(becpro_runs["es-with_articles"], sentence)
    assert row["needs_review"] and any("preposition" in n for n in row["lexicon_notes"])
    fixed = _corrected(row, fix)
    assert list(fixed["lexicon_notes"]) == []
    assert not fixed["needs_review"] and fixed["review_reasons"] == []
    notes = next(c for c in fixed["checks"] if c["rule"] == "lexicon_notes")
    assert notes["passed"] and notes["detail"] == "no doubt recorded in the lexicon"


def test_an_unrelated_correction_keeps_the_note(becpro_runs):
    row = _item(becpro_runs["es-with_articles"], "Él es un mecánico autobuses.")
    fixed = _corrected(row, "Él es un buen mecánico autobuses.")
    assert fixed["needs_review"]
    assert any("printed without a preposition" in r for r in fixed["review_reasons"])


def test_a_corrected_german_misprint_settles_its_flags(new_runs):
    row = _item(new_runs["de"], "Mein Vater ist Dachedecker.")
    assert {r.split(":")[0] for r in row["review_reasons"]} == {"lexicon_notes", "de_inflection"}
    fixed = _corrected(row, "Mein Vater ist Dachdecker.")
    assert not fixed["needs_review"], fixed["review_reasons"]
    other = _corrected(row, "Mein Vater ist ein Dachedecker.")
    assert {r.split(":")[0] for r in other["review_reasons"]} == {"lexicon_notes", "de_inflection"}
