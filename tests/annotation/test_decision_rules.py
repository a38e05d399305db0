"""The review's decision rules, corrections, display and user checks, without a server.

Expected values are written by hand from the rules in README ("Review on Argilla"), never
computed by the code under test.
"""

from __future__ import annotations

import pandas as pd
import pytest

from biasforge import families
from biasforge.annotation.admin.users import read_users_csv, username_problem
from biasforge.annotation.review.agreement import question_agreement
from biasforge.annotation.review.decide import Adjudicated, Answer, combine, decide
from biasforge.errors import InputError
from tests.annotation.keyed import TEST_KEY

BECPRO, SLGUSET = (families.get(n) for n in ("becpro", "slguset"))
STEREOSET = families.get("stereoset").with_key(TEST_KEY)

MISPRINT = {
    "id": "b1", "sentence": "Él es un repcionista.", "person": "Él", "person_phrase": "él",
    "person_span": {"start": 0, "end": 2}, "profession": "repcionista",
    "profession_span": {"start": 9, "end": 20}, "profession_word_spans": [{"start": 9, "end": 20}],
}  # fmt: skip
FIXED = "Él es un recepcionista."


def vote(user, grammatical, agreement, correction=None, status="submitted", note=None):
    values = {"grammatical": grammatical, "agreement": agreement, "note": note}
    values["correction"] = correction if correction is not None else MISPRINT["sentence"]
    return Answer(user, status, values)


def discard(user, note):
    return Answer(user, "discarded", {"note": note})


def run(answers, policy="unanimous", **kwargs):
    kwargs.setdefault("min_submitted", 3)
    return decide(BECPRO, MISPRINT, answers, policy=policy, **kwargs)


# ------------------------------------------------------------------------- corrections


REWORDED = "Él era un repcionista."  # a correction that leaves both slot words as they are
SLOT_CHANGED = "the correction changes profession 'repcionista' -> 'recepcionista'"


def test_agreeing_corrections_win_even_after_no_answers():
    answers = [vote("a", "no", "yes", REWORDED), vote("b", "no", "yes", REWORDED + "  "),
               vote("c", "no", "yes", " Él era un  repcionista.")]  # fmt: skip
    decision = run(answers)
    assert (decision.decision, decision.correction) == ("accept", REWORDED)
    assert decision.corrected_by == ("a", "b", "c")


def test_a_correction_of_a_slot_word_or_against_the_answer_goes_to_adjudication():
    """Issue 47, item 3: a winning correction that changes a slot word (here the misprinted
    profession), or whose proposer answered "grammatical: yes", went through unflagged."""
    fixing = [vote(u, "no", "yes", FIXED) for u in "abc"]
    decision = run(fixing)
    assert (decision.decision, decision.adjudicate) == ("pending", True)
    assert decision.reason == f"unanimous: {SLOT_CHANGED}"
    assert [p.text for p in decision.proposals] == [FIXED]
    slips = [vote(u, "yes", "yes", REWORDED) for u in "ab"] + [vote("c", "no", "yes", REWORDED)]
    decision = run(slips)
    assert (decision.decision, decision.adjudicate) == ("pending", True)
    assert decision.reason == (
        "unanimous: a, b answered grammatical=yes, agreement=yes yet typed a correction"
    )


def test_untouched_prefilled_text_is_not_a_correction():
    decision = run([vote(u, "yes", "yes") for u in "abc"])
    assert (decision.decision, decision.correction, decision.proposals) == ("accept", None, ())


def test_a_correction_that_does_not_win_goes_to_adjudication():
    answers = [vote("a", "yes", "yes", FIXED), vote("b", "yes", "yes"), vote("c", "yes", "yes")]
    for policy in ("unanimous", "majority"):
        decision = run(answers, policy)
        assert decision.decision == "pending" and decision.adjudicate
        assert "a proposed one, 2 kept the text" in decision.reason
        assert [p.text for p in decision.proposals] == [FIXED]
        # a answered that the sentence is fine and typed a correction anyway: said (issue 23)
        assert "; a answered grammatical=yes, agreement=yes yet typed a correction" in (
            decision.reason
        )
    answers[0] = vote("a", "no", "yes", FIXED)  # the control: a consistent proposer
    assert "yet typed" not in run(answers, "majority").reason


def test_majority_correction_wins_under_majority_only():
    answers = [
        vote("a", "no", "yes", REWORDED),
        vote("b", "no", "yes", REWORDED),
        vote("c", "yes", "yes"),
    ]
    assert run(answers, "majority").correction == REWORDED
    assert run(answers, "unanimous").adjudicate


def test_becpro_correction_fixes_the_profession_misprint_and_its_spans():
    """A correction of the profession goes to adjudication first (issue 47, item 3); once an
    adjudicator confirms it, it is applied with its spans."""
    answers = [vote(u, "no", "yes", FIXED) for u in "abc"]
    assert run(answers).reason == f"unanimous: {SLOT_CHANGED}"
    judge = Answer("j", "submitted", {"grammatical": "yes", "agreement": "yes", "text_choice": "A"})
    confirmed = run(answers, adjudicated=Adjudicated(judge, (FIXED,)))
    assert (confirmed.decision, confirmed.correction) == ("accept", FIXED)
    fixed = BECPRO.review.apply_correction(MISPRINT, confirmed.correction)
    assert fixed["profession"] == "recepcionista"
    assert fixed["profession_span"] == {"start": 9, "end": 22}
    assert fixed["person_span"] == {"start": 0, "end": 2}
    assert fixed["profession_word_spans"] == [{"start": 9, "end": 22}]
    with pytest.raises(ValueError, match="person word"):
        BECPRO.review.apply_correction(MISPRINT, "Ella es una recepcionista.")
    with pytest.raises(ValueError, match="profession"):
        BECPRO.review.apply_correction(MISPRINT, "Él es un.")


def test_slguset_correction_keeps_the_nth_keyword():
    row = {
        "sentence": "他说他的弟弟是他的朋友。",
        "keyword": "他",
        "keyword_start": 2,
        "keyword_end": 3,
    }
    fixed = SLGUSET.review.apply_correction(row, "他说，他的弟弟是他的朋友。")
    assert (fixed["keyword_start"], fixed["keyword_end"]) == (3, 4)
    with pytest.raises(ValueError, match="keyword"):
        SLGUSET.review.apply_correction(row, "他说她的弟弟是他的朋友。")


# ------------------------------------------------------------------------- discards, completeness


def test_a_discard_is_a_vote_cannot_judge():
    answers = [vote("a", "yes", "yes"), vote("b", "yes", "yes"), discard("c", "no sé español")]
    unanimous = run(answers)
    assert unanimous.decision == "pending" and unanimous.adjudicate
    assert "1 discarded (c: 'no sé español')" in unanimous.reason
    majority = run(answers, "majority")
    assert majority.decision == "accept" and "despite 1 discarded" in majority.reason
    assert (majority.submitted, majority.discarded, majority.missing) == (2, 1, 0)


def test_a_majority_is_more_than_half_never_an_even_split():
    """Two against two (or one against one) decides nothing; three of four does."""
    assert combine(["yes", "yes", "no", "no"], "majority") is None
    assert combine(["yes", "no"], "majority") is None
    assert combine(["yes", "yes", "no"], "majority") == "yes"
    assert combine(["yes", "yes", "yes", "no"], "majority") == "yes"
    assert combine(["yes"], "majority", total=2) is None  # the other answer was a discard


def test_one_yes_one_no_one_discard_is_no_majority():
    answers = [vote("a", "yes", "yes"), vote("b", "no", "yes"), discard("c", "")]
    decision = run(answers, "majority")
    assert decision.adjudicate and "grammatical (yes 1, no 1)" in decision.reason


def test_waiting_stalled_and_all_discarded():
    two = [vote("a", "yes", "yes"), vote("b", "yes", "yes")]
    waiting = run(two, can_answer=2)
    assert (waiting.decision, waiting.adjudicate, waiting.missing) == ("pending", False, 1)
    stalled = run(two, can_answer=0)
    assert stalled.adjudicate and stalled.reason.startswith("stalled")
    gone = run([discard(u, "typo?") for u in "abc"])
    assert gone.adjudicate and gone.reason.startswith("all 3 discarded")
    nobody = run([], can_answer=0)
    assert (
        nobody.decision == "pending" and not nobody.adjudicate and "add annotators" in nobody.reason
    )


# ------------------------------------------------------------------------- adjudication


def test_adjudicator_confirms_a_proposed_correction_credited_to_its_authors():
    answers = [vote("a", "yes", "yes", FIXED), vote("b", "yes", "yes"), vote("c", "yes", "yes")]
    judge = Answer("j", "submitted", {"grammatical": "yes", "agreement": "yes", "text_choice": "A"})
    decision = run(answers, adjudicated=Adjudicated(judge, (FIXED,)))
    assert (decision.decision, decision.correction) == ("accept", FIXED)
    assert decision.corrected_by == ("a",) and decision.adjudicated_by == "j"
    keep = Answer(
        "j", "submitted", {"grammatical": "no", "agreement": "yes", "text_choice": "original"}
    )
    assert run(answers, adjudicated=Adjudicated(keep, (FIXED,))).decision == "reject"
    lazy = Answer(
        "j", "submitted", {"grammatical": "yes", "agreement": "yes", "text_choice": "own"}
    )
    assert "left the text unchanged" in run(answers, adjudicated=Adjudicated(lazy, ())).reason


# ------------------------------------------------------------------------- display


def test_judged_questions_get_no_suggestion_unless_asked():
    row = {
        "context": "La mère est BLANK.", "target": "mère", "split": "intrasentence",
        "sentences": [{"label": lab, "sentence": f"La mère est {w}.", "attribute": w}
                      for lab, w in (("stereotype", "douce"), ("anti-stereotype", "dure"), ("unrelated", "bleu"))],
        "source_sentences": ["The mother is gentle.", "The mother is harsh.", "The mother is blue."],
    }  # fmt: skip
    assert set(STEREOSET.review.record(row)["suggestions"]) == {"correction"}
    suggested = STEREOSET.review.record(row, suggest=True)["suggestions"]
    from biasforge.families.stereoset import option_order

    labels = ["stereotype", "anti-stereotype", "unrelated"]
    assert [suggested[f"label_{n}"] for n in "ABC"] == [
        labels[i] for i in option_order(row, key=TEST_KEY)
    ]
    item = STEREOSET.review.record(row)["fields"]["item"]
    assert "The mother is harsh." in item and "stereotype" not in item  # labels not shown
    assert (
        'data-role="slot" style="background:#a5d6a7;color:#000;padding:0 2px;border-radius:2px">dure</mark>'
        in item
    )


def test_flags_list_only_failed_checks():
    row = {
        "needs_review": True, "review_reasons": ["lexicon_notes: misprint"],
        "checks": [{"rule": "spans", "passed": True, "detail": "fine"},
                   {"rule": "lexicon_notes", "passed": False, "detail": "misprint"}],
    }  # fmt: skip
    flags = BECPRO.review.record({**MISPRINT, **row})["fields"]["flags"]
    assert "`lexicon_notes`" in flags and "`spans`" not in flags and "1 other check passed" in flags


# ------------------------------------------------------------------------- agreement notes


def frame(values: list[list[str]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"item": i, "annotator": f"a{j}", "value": v}
            for i, row in enumerate(values)
            for j, v in enumerate(row)
        ]
    )


def test_alpha_is_undefined_when_answers_never_vary():
    figures = question_agreement(frame([["yes", "yes", "yes"]] * 12))
    assert figures["krippendorff_alpha"] is None and figures["fleiss_kappa"] is None
    assert any("undefined: every answer was 'yes'" in note for note in figures["notes"])


def test_one_differing_vote_is_explained():
    # 6 items × 3 answers, one "no". Nominal alpha (Krippendorff 2011) by hand: the mixed unit
    # gives coincidences o(yes,no) = o(no,yes) = 2/(3-1) = 1; n = 18, n_yes = 17, n_no = 1;
    # alpha = 1 - (n-1)·Σo(c≠k) / Σn_c·n_k(c≠k) = 1 - 17·2 / (2·17·1) = 0.
    values = [["yes", "yes", "yes"]] * 5 + [["yes", "yes", "no"]]
    figures = question_agreement(frame(values))
    assert figures["krippendorff_alpha"] == pytest.approx(0.0, abs=1e-12)
    notes = " ".join(figures["notes"])
    assert "94% of answers are the same value" in notes and "only 6 item(s)" in notes


# ------------------------------------------------------------------------- users


@pytest.mark.parametrize("name", ["ann 1", "ann!", "ann\n", "-ann", "_ann", ""])
def test_bad_usernames_are_refused(name):
    assert username_problem(name) is not None


@pytest.mark.parametrize("name", ["ann1", "Ann_2", "a-b", "9lives"])
def test_good_usernames_pass(name):
    assert username_problem(name) is None


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("username,role,password\nann1,annotator,secret1234\n", 1, "password"),
        (
            'username,role\nann1,annotator\n"ann2,annotator\nann3,admin\n',
            3,
            "unbalanced double quote",
        ),
        ("username,role\nann1,annotator\nann 2,annotator\n", 3, "invalid username"),
        ("username,role\nann1,boss\n", 2, "role 'boss'"),
        ("username\nann1\nann1\n", 3, "appears twice"),
    ],
)
def test_bad_user_csv_is_refused_with_the_line(tmp_path, text, line, message):
    path = tmp_path / "team.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as caught:
        read_users_csv(path)
    assert caught.value.line == line


def test_user_csv_role_is_optional(tmp_path):
    path = tmp_path / "team.csv"
    path.write_text("username,role\nann1,\nann2,admin\n", encoding="utf-8")
    assert read_users_csv(path) == [("ann1", None), ("ann2", "admin")]


# ------------------------------------------------------------------------- applying decisions


def test_a_correction_that_cannot_be_applied_goes_to_adjudication_with_the_reason():
    from biasforge.annotation.review.decide import Decision
    from biasforge.annotation.review.pull import apply_decision

    row = {**MISPRINT, "family": "becpro", "language": "es", "gender": "male",
           "profession_group": "female", "checks": [], "needs_review": True}  # fmt: skip
    schema = BECPRO.schema.arrow
    changed = Decision("accept", "x", decided={}, correction="Ella es una recepcionista.")
    decision, kept = apply_decision(BECPRO, row, changed, schema)
    assert decision.decision == "pending" and decision.adjudicate and kept == row
    assert decision.reason == (
        "correction cannot be applied: the correction changes the person word 'Él' into 'Ella'"
    )
    fixed, new = apply_decision(BECPRO, row, Decision("accept", "x", correction=FIXED), schema)
    assert fixed.decision == "accept" and new["sentence"] == FIXED


def test_a_corrected_item_that_breaks_the_schema_is_not_accepted():
    from biasforge.annotation.review.decide import Decision
    from biasforge.annotation.review.pull import apply_decision

    labels = ("stereotype", "anti-stereotype", "unrelated")
    row = {
        "id": "s1", "family": "stereoset", "language": "fr", "split": "intersentence",
        "bias_type": "gender", "target": "mère", "context": "Ma mère cuisine.",
        "sentences": [{"id": f"s1-{i}", "label": lab, "sentence": f"Phrase {i}.", "attribute": f"Phrase {i}."}
                      for i, lab in enumerate(labels)],
    }  # fmt: skip
    from biasforge.families.stereoset import option_order

    order = option_order(row, key=TEST_KEY)
    lines = {"ABC"[j]: f"Phrase {i}." if i else "" for j, i in enumerate(order)}
    text = "context: Ma mère cuisine.\n" + "\n".join(f"{n}: {t}" for n, t in lines.items())
    decided = {"validity": "fixed", **{f"label_{'ABC'[j]}": labels[i] for j, i in enumerate(order)}}
    decision, _ = apply_decision(
        STEREOSET,
        row,
        Decision("accept", "x", decided=decided, correction=text),
        STEREOSET.schema.arrow,
    )
    assert decision.decision == "pending" and decision.adjudicate
    assert "stereotype sentence is empty" in decision.reason


# ------------------------------------------------ a structure that is one answer (issue 47.11)

S, A, U = "stereotype", "anti-stereotype", "unrelated"


def labels_vote(user, a, b, c, validity="valid"):
    from biasforge.families.stereoset import editable_text
    from tests.annotation.test_families import stereoset_rows

    text = editable_text(stereoset_rows()[0], key=TEST_KEY)  # the untouched correction box
    values = {"validity": validity, "label_A": a, "label_B": b, "label_C": c, "correction": text}
    return Answer(user, "submitted", values)


def decide_labels(answers, policy="unanimous", **kwargs):
    from tests.annotation.test_families import stereoset_rows

    return decide(STEREOSET, stereoset_rows()[0], answers, policy=policy, min_submitted=3, **kwargs)


def test_labels_are_decided_as_one_answer_by_a_model_policy():
    """A model's per-question estimates that assemble a triplet nobody gave are not used:
    the estimate of the whole combination decides (it is one of the answers given)."""
    answers = [labels_vote("a", S, A, U), labels_vote("b", A, S, U), labels_vote("c", U, A, S)]
    estimated = {"validity": "valid", "label_A": U, "label_B": S, "label_C": S,
                 "label_A+label_B+label_C": f"{A}+{S}+{U}"}  # fmt: skip
    decision = decide_labels(answers, "mace", estimated=estimated)
    assert decision.decision == "accept", decision.reason
    assert decision.decided == {"validity": "valid", "label_A": A, "label_B": S, "label_C": U}


def test_no_majority_combination_goes_to_adjudication_never_to_rejection():
    answers = [labels_vote("a", S, A, U), labels_vote("b", A, S, U), labels_vote("c", U, A, S)]
    decision = decide_labels(answers, "majority")
    assert (decision.decision, decision.adjudicate) == ("pending", True)
    assert "no majority answer on label_A+label_B+label_C (" in decision.reason
    two = [labels_vote("a", S, A, U), labels_vote("b", S, A, U), labels_vote("c", U, A, S)]
    decision = decide_labels(two, "majority")
    assert decision.decision == "accept" and decision.decided["label_A"] == S


@pytest.mark.parametrize("policy", ["unanimous", "majority"])
def test_an_impossible_triplet_everyone_gave_goes_to_adjudication_with_the_reason(policy):
    decision = decide_labels([labels_vote(u, S, S, U) for u in "abc"], policy)
    assert (decision.decision, decision.adjudicate) == ("pending", True)
    assert decision.reason == (
        f"{policy}: impossible labels (label_A=stereotype, label_B=stereotype, "
        "label_C=unrelated): each of stereotype, anti-stereotype, unrelated must be given once"
    )


def test_a_rejected_item_is_rejected_whatever_its_labels():
    decision = decide_labels([labels_vote(u, S, S, U, validity="reject") for u in "abc"])
    assert decision.decision == "reject"


def test_an_adjudicator_who_gives_impossible_labels_is_asked_again():
    judge = labels_vote("judge", U, U, U)
    decision = decide_labels(
        [labels_vote(u, S, S, U) for u in "abc"], adjudicated=Adjudicated(judge)
    )
    assert (decision.decision, decision.sent_back) == ("pending", True)
    assert "judge gave impossible labels (label_A=unrelated" in decision.reason
