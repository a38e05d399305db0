"""The annotator-quality rules (issue 38) without a server: model decision rules, control
accuracy, pace, BEC-Pro's planted-misprint controls, ``--exclude-changed`` on data that
cannot have changed labels. Expected values are written by hand."""

from __future__ import annotations

import random

import pandas as pd
import pyarrow as pa
import pytest

from biasforge import families
from biasforge.annotation.review.annotators import pace
from biasforge.annotation.review.controls import ControlItem, accuracy
from biasforge.annotation.review.decide import Answer, decide
from biasforge.errors import InputError
from biasforge.exports.inputs import ReleaseInput, exclude_changed
from tests.annotation.test_decision_rules import FIXED, MISPRINT, vote

BECPRO = families.get("becpro")


def test_a_model_policy_decides_by_its_estimate_and_corrections_by_majority():
    # a 2–1 split: no unanimous answer, but the model trusts the lone "no"
    answers = [vote("a", "yes", "yes"), vote("b", "yes", "yes"), vote("c", "no", "yes")]
    estimated = {"grammatical": "no", "agreement": "yes"}
    decision = decide(BECPRO, MISPRINT, answers, policy="dawid-skene", min_submitted=3,
                      estimated=estimated)  # fmt: skip
    assert (decision.decision, decision.decided) == ("reject", estimated)
    assert decision.reason.startswith("dawid-skene: grammatical=no")
    fixes = [vote("a", "no", "yes", FIXED), vote("b", "no", "yes", FIXED), vote("c", "yes", "yes")]
    decision = decide(BECPRO, MISPRINT, fixes, policy="mace", min_submitted=3,
                      estimated={"grammatical": "yes", "agreement": "yes"})  # fmt: skip
    # 2 of 3 typed the same fix, decided by majority; it changes the profession, a slot word,
    # so it goes to an adjudicator with that reason (issue 47, item 3)
    assert decision.decision == "pending"
    assert (
        decision.reason
        == "mace: the correction changes profession 'repcionista' -> 'recepcionista'"
    )
    missing = decide(BECPRO, MISPRINT, answers, policy="mace", min_submitted=3, estimated={})
    assert missing.decision == "pending" and "no mace answer on grammatical" in missing.reason


def test_control_accuracy_counts_right_answers_and_discards_apart():
    controls = [ControlItem("c1", {}, {"grammatical": "no"}),
                ControlItem("c2", {}, {"grammatical": "no", "agreement": "yes"})]  # fmt: skip
    answers = {
        "c1": [Answer("a", "submitted", {"grammatical": "no"}),
               Answer("b", "submitted", {"grammatical": "yes"})],
        "c2": [Answer("a", "submitted", {"grammatical": "yes", "agreement": "yes"}),
               Answer("b", "discarded", {"note": "?"}), Answer("c", "draft", {})],
        "item": [Answer("a", "submitted", {"grammatical": "no"})],
    }  # fmt: skip
    found = accuracy(controls, answers)
    assert {w: (f["controls"], f["discarded"], f["answers"], f["accuracy"])
            for w, f in found.items()} == {
        "a": (2, 0, 3, 2 / 3), "b": (1, 1, 1, 0.0), "c": (0, 0, 0, None),
    }  # fmt: skip
    assert found["a"]["questions"]["grammatical"] == {"right": 1, "answers": 2, "accuracy": 0.5}


def test_time_per_record_is_the_median_gap_without_breaks():
    at = ["2025-01-01T10:00:00", "2025-01-01T10:00:30", "2025-01-01T10:01:40",
          "2025-01-01T12:00:00", "2025-01-01T12:00:20"]  # fmt: skip
    times = pd.DataFrame({"annotator": ["a"] * 5 + ["b"], "at": [*at, at[0]]})
    # gaps 30, 70, (a break of 1 h 58 min left out), 20 -> median 30; one answer: no gap
    assert pace(times) == {"a": 30.0, "b": None}


def test_becpro_controls_carry_one_misprint_everywhere_and_stay_valid_items():
    rows = [{**MISPRINT, "id": f"b{i}", "family": "becpro", "language": "es",
             "source_text": "He is a receptionist.", "profession_en": "receptionist",
             "gender": "male", "profession_group": "female", "template": "x"}
            for i in range(3)]  # fmt: skip
    made = BECPRO.review.make_controls(rows, 2, random.Random(0))
    assert len(made) == 2
    for control, expected in made:
        assert expected == {"grammatical": "no"}
        assert control["profession"] == "repcionitsa"  # last letter kept, two inner ones swapped
        assert control["sentence"] == "Él es un repcionitsa."
        span = control["profession_span"]
        assert control["sentence"][span["start"] : span["end"]] == control["profession"]
        assert control["source_text"] == "He is a receptionist."  # a translation: unchanged
    same = [{**rows[0], "language": "en", "source_text": MISPRINT["sentence"]}]
    (control, _), *_ = BECPRO.review.make_controls(same, 1, random.Random(0))
    assert control["source_text"] == control["sentence"]  # untranslated: the same misprint


def test_exclude_changed_needs_labels_that_could_change(tmp_path):
    table = pa.table({"id": ["b1"], "family": ["becpro"]})
    item = ReleaseInput(tmp_path / "reviewed", "reviewed", table, {})
    with pytest.raises(InputError, match="--exclude-changed: no 'labels_changed' column"):
        exclude_changed(item)
    marked = ReleaseInput(tmp_path, "reviewed", table.append_column(
        "labels_changed", pa.array([True])), {})  # fmt: skip
    assert exclude_changed(marked).table.num_rows == 0 and marked.excluded_changed == 1


def test_the_same_answers_are_fitted_once_and_other_answers_again(monkeypatch):
    """Every pull fits both models (the report gives both): the same answers in one process
    are one fit; a changed answer or a changed known answer is a new one. (The models are
    counted, not fitted: what is under test is which answers count as the same.)"""
    from biasforge.annotation.review import competence

    made = []
    monkeypatch.setattr(competence, "_FITS", {})
    monkeypatch.setattr(competence, "_fit_models", lambda d, g: made.append(1) or object())
    rng = random.Random(7)
    rows = [(f"r{i}", w, rng.choice("ab")) for i in range(30) for w in ("x", "y", "z")]
    data = pd.DataFrame(rows, columns=["task", "worker", "label"])
    golden = pd.Series({"r0": "a"}, dtype=object)
    first = competence._fit(data, golden)
    assert competence._fit(data.copy(), golden.copy()) is first
    changed = data.copy()
    changed.loc[0, "label"] = "b" if data.loc[0, "label"] == "a" else "a"
    assert competence._fit(changed, golden) is not first
    assert competence._fit(data, pd.Series({"r0": "b"}, dtype=object)) is not first
    assert competence._fit(data, golden.iloc[0:0]) is not first
    assert len(made) == 4
