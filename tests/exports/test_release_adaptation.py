"""A release of a family that translates carries the adaptation decision (issue 44): the
``adaptation``, ``adaptation_note`` and ``origin`` columns, and a card section with the
categories per bias type beside the label-preservation figures, the removal reasons, and how
many items had no decision (counted as transferred). Counts below are written by hand from the
eight rows used (race, profession, race, race, gender, profession, race, race; the first removed,
the second modified)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from biasforge.exports.release import make_release
from tests.exports.builders import write_reviewed

DECIDED = [
    ("removed", "pas un stéréotype connu ici"),
    ("modified", "les Roms"),
    ("transferred", ""),
]
PRESERVATION = {
    "method": "Wilson",
    "domain_column": "bias_type",
    "overall": {"items": 8, "preserved": 7, "share": 0.875, "low": 0.53, "high": 0.98},
    "domains": {
        "race": {"items": 5, "preserved": 4, "share": 0.8, "low": 0.376, "high": 0.964},
        "profession": {"items": 2, "preserved": 2, "share": 1.0, "low": 0.342, "high": 1.0},
        "gender": {"items": 1, "preserved": 1, "share": 1.0, "low": 0.207, "high": 1.0},
    },
    "changed": [],
}


def french(table: pa.Table) -> pa.Table:
    """The English rows as if translated into French (their source stays English)."""
    at = table.column_names.index("language")
    return table.set_column(at, "language", pa.array(["fr"] * table.num_rows))


def _released(tmp_path, table: pa.Table, name: str):
    agreement = {"policy": "unanimous", "questions": {}, "preservation": PRESERVATION}
    reviewed = write_reviewed(tmp_path / f"rev-{name}", table, ["accept"] * 8, agreement)
    result = make_release([reviewed], name=name, version="1.0.0", out=tmp_path / "rel")
    rows = [
        r
        for c in result.configs
        for r in pq.read_table(result.path / c / "test.parquet").to_pylist()
    ]
    order = {rid: i for i, rid in enumerate(table.column("id").to_pylist())}
    rows.sort(key=lambda r: order[r["id"]])
    return rows, (result.path / "README.md").read_text("utf-8")


def test_decisions_reach_the_release_columns_and_the_card(tmp_path, stereoset_candidates):
    table = french(stereoset_candidates.slice(0, 8))
    kinds = [k for k, _ in DECIDED] + [None] * 5
    notes = [n for _, n in DECIDED] + [None] * 5
    table = table.append_column("adaptation", pa.array(kinds, pa.string()))
    table = table.append_column("adaptation_note", pa.array(notes, pa.string()))
    rows, card = _released(tmp_path, table, "ss-adapted")
    assert [r["adaptation"] for r in rows] == ["removed", "modified"] + ["transferred"] * 6
    assert [r["adaptation_note"] for r in rows][:3] == [n for _, n in DECIDED]
    assert {r["origin"] for r in rows} == {"translated"}
    assert "## Adaptation to the target culture" in card
    # bias type | transferred | modified | removed | native | total | labels preserved
    assert "| race | 4 | 0 | 1 | 0 | 5 | 4 of 5 (80.0%; 95% Wilson interval 37.6%–96.4%) |" in card
    assert "| profession | 1 | 1 | 0 | 0 | 2 |" in card
    assert "| total | 6 | 1 | 1 | 0 | 8 |" in card
    assert "5 of the 8 items carry no adaptation decision" in card
    assert "pas un stéréotype connu ici" in card and "les Roms" in card


def test_a_review_from_before_the_question_releases_every_item_as_transferred(
    tmp_path, stereoset_candidates
):
    rows, card = _released(tmp_path, french(stereoset_candidates.slice(0, 8)), "ss-legacy")
    assert [r["adaptation"] for r in rows] == ["transferred"] * 8
    assert [r["adaptation_note"] for r in rows] == [""] * 8
    assert "8 of the 8 items carry no adaptation decision" in card
    assert "| total | 8 | 0 | 0 | 0 | 8 |" in card


def test_items_of_the_source_language_are_their_own_source(tmp_path, stereoset_candidates):
    rows, card = _released(tmp_path, stereoset_candidates.slice(0, 8), "ss-english")
    assert {(r["adaptation"], r["origin"]) for r in rows} == {("transferred", "source")}
    assert "none was adapted" in card
