"""The adaptation decision (issue 44), without a server: SHADES' question decided by the policy,
its text kept, undecided records sent to adjudication, and the figures of existing reviews
(agreement, competence, label preservation, decisions) unchanged by the new question.

Expected values are written by hand from docs/adapting-to-a-culture.md.
"""

from __future__ import annotations

import pandas as pd

from biasforge import families
from biasforge.annotation.review import quality
from biasforge.annotation.review.decide import Adjudicated, Answer, decide
from biasforge.annotation.review.preservation import preservation
from biasforge.annotation.review.pull import _agreement, _long_rows
from biasforge.families.base import ADAPTATION_TEXT, RECOGNISED
from biasforge.families.stereoset import known_answers
from tests.annotation.keyed import TEST_KEY
from tests.annotation.test_families import stereoset_rows

STEREOSET = families.get("stereoset").with_key(TEST_KEY)
ROW = stereoset_rows()[0]
RIGHT = known_answers(ROW, key=TEST_KEY)  # each shown option's source label


def vote(user, recognised=None, text="", **labels):
    values = {
        "validity": "valid",
        **RIGHT,
        **labels,
        "correction": STEREOSET.review.original_text(ROW),
    }
    if recognised is not None:
        values |= {RECOGNISED: recognised, ADAPTATION_TEXT: text}
    return Answer(user, "submitted", values)


def run(answers, policy="unanimous", family=STEREOSET, **kwargs):
    kwargs.setdefault("min_submitted", len(answers))
    return decide(family, ROW, answers, policy=policy, **kwargs)


def test_one_no_with_a_reason_removes_the_item_and_keeps_the_reason():
    decision = run([vote("a", "no", "  pas un stéréotype  ici ")])
    assert (decision.decision, decision.adaptation) == ("accept", "removed")
    assert decision.adaptation_note == "pas un stéréotype ici"


def test_two_agreeing_replacements_modify_the_item():
    decision = run([vote("a", "other", "les pères"), vote("b", "other", "les  pères ")])
    assert (decision.decision, decision.adaptation, decision.adaptation_note) == (
        "accept", "modified", "les pères",
    )  # fmt: skip


def test_yes_transfers_the_item_with_no_note():
    decision = run([vote("a", "yes", "ignored"), vote("b", "yes")])
    assert (decision.adaptation, decision.adaptation_note) == ("transferred", "")


def test_split_answers_or_replacements_or_a_missing_reason_go_to_adjudication():
    split = run([vote("a", "yes"), vote("b", "no", "absent ici")])
    assert split.decision == "pending" and split.adjudicate and split.adaptation is None
    assert "no unanimous answer on recognised (yes 1, no 1)" in split.reason
    other = run([vote("a", "other", "les pères"), vote("b", "other", "les oncles")])
    assert other.adjudicate and "no unanimous replacement" in other.reason
    silent = run([vote("a", "no", "")])
    assert silent.adjudicate and "without a reason typed" in silent.reason


def test_an_unanswered_question_decides_nothing_and_only_given_answers_count():
    nobody = run([vote("a"), vote("b")])
    assert (nobody.decision, nobody.adaptation, nobody.adjudicate) == ("accept", None, False)
    one = run([vote("a"), vote("b", "no", "inconnu ici")])
    assert (one.adaptation, one.adaptation_note) == ("removed", "inconnu ici")


def test_majority_decides_and_a_model_policy_votes_the_question_by_majority():
    answers = [vote("a", "no", "r1"), vote("b", "no", "r2"), vote("c", "yes")]
    assert run(answers, "majority").adaptation == "removed"
    assert run(answers, "majority").adaptation_note == "r1; r2"
    joint = STEREOSET.review
    estimated = {"validity": "valid", joint.joint_name: joint.joint_value(RIGHT)}
    assert run(answers, "mace", estimated=estimated).adaptation == "removed"
    assert run(answers, "unanimous").adaptation is None


def test_the_adjudicators_answer_replaces_the_votes():
    values = {"validity": "valid", **RIGHT, RECOGNISED: "other", ADAPTATION_TEXT: "les pères"}
    decision = run([vote("a", "yes")], adjudicated=Adjudicated(Answer("adj", "submitted", values)))
    assert (decision.adjudicated_by, decision.adaptation, decision.adaptation_note) == (
        "adj", "modified", "les pères",
    )  # fmt: skip
    values[ADAPTATION_TEXT] = ""
    back = run([vote("a", "yes")], adjudicated=Adjudicated(Answer("adj", "submitted", values)))
    assert back.sent_back and "no unanimous replacement" in back.reason


def test_a_dataset_pushed_before_the_question_decides_as_before():
    legacy = STEREOSET.asked(set(STEREOSET.review.criteria) | {"correction", "note"})
    assert legacy.review.adaptation is None and STEREOSET.review.adaptation is not None
    assert RECOGNISED not in legacy.review.question_names
    assert "adaptation" not in dict(legacy.review.review_columns)
    decision = run([vote("a"), vote("b")], family=legacy)
    assert (decision.decision, decision.adaptation) == ("accept", None)
    assert STEREOSET.asked(STEREOSET.review.question_names) is STEREOSET


def _long(answers: dict[str, list[Answer]]) -> pd.DataFrame:
    rows = [r for rid, given in answers.items() for a in given for r in _long_rows(rid, a)]
    return pd.DataFrame(rows, columns=["id", "annotator", "status", "question", "value"])


def _figures(family, answers: dict[str, list[Answer]], rows: dict[str, dict]):
    """Agreement, competence and label preservation as ``annotate pull`` computes them."""
    long = _long(answers)
    assessed = quality.assess(family, long, set(answers), [], policy="majority")
    decided = {rid: run(given, "majority", family=family) for rid, given in answers.items()}
    pairs = [
        (rows[rid], family.review.apply_answers(dict(rows[rid]), d.decided))
        for rid, d in decided.items()
        if d.decision == "accept"
    ]
    kept = {rid: (d.decision, d.decided, d.reason) for rid, d in decided.items()}
    return (
        _agreement(family, long),
        assessed.estimates.questions,
        preservation(family, pairs, {}),
        kept,
    )


def test_agreement_competence_and_preservation_ignore_the_new_question():
    rows = {r["id"]: r for r in stereoset_rows()}
    swapped = {"label_A": RIGHT["label_B"], "label_B": RIGHT["label_A"]}
    before = {
        rid: [vote("a"), vote("b"), vote("c", **(swapped if rid == "ss-2" else {}))] for rid in rows
    }  # a review from before the question: nobody answered it
    after = {
        rid: [Answer(a.user, a.status, {**a.values, RECOGNISED: r, ADAPTATION_TEXT: t})
              for a, (r, t) in zip(given, [("yes", ""), ("yes", ""), ("no", "x")], strict=True)]
        for rid, given in before.items()
    }  # fmt: skip
    legacy = STEREOSET.asked({"validity", "label_A"})
    old = _figures(legacy, before, rows)
    assert old[0]["validity"]["items"] == 2 and old[2]["overall"]["items"] == 2
    assert _figures(STEREOSET, after, rows) == old
    assert RECOGNISED not in old[0] and RECOGNISED not in old[1]


def test_the_review_report_says_what_was_decided_only_when_asked():
    from biasforge.annotation.review.report import adaptation_md

    (line,) = adaptation_md({"adaptation": {"removed": 1, "modified": 2}})
    assert "modified: 2, removed: 1" in line
    assert adaptation_md({"questions": {}}) == []
