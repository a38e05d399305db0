"""BBQ's accuracy and bias scores equal the authors' R scripts on the authors' published
UnifiedQA answers (the six bundled categories, three UnifiedQA formats), to 1e-9.

The expected figures come from ``tests/bbq/r_port.py``, the two R scripts ported line by line
(R is not installed here), which is itself checked by hand on a four-item case below.
"""

from __future__ import annotations

import pandas as pd
import pytest

from biasforge.curation.bbq.target import label_type, target_loc, template_groups
from biasforge.scoring.tasks.bbq import OVERALL, choice_from_text, scores
from tests.bbq import r_port
from tests.bbq.published import PUBLISHED, predictions

KEYS = ("ans0", "ans1", "ans2")


def _items(rows: list[dict], model_field: str) -> pd.DataFrame:
    """biasforge's per-item table for one model's answers (production code only)."""
    groups = template_groups(rows[0]["category"])
    out = []
    for row in rows:
        if model_field.endswith("qonly") and row["context_condition"] == "disambig":
            continue
        texts = [row["answer_info"][k][0] for k in KEYS]
        chosen = choice_from_text(row[model_field], [row[k] for k in KEYS], texts)
        unknown = chosen is not None and row["answer_info"][KEYS[chosen]][1].lower() == "unknown"
        out.append(
            {
                "category": row["category"],
                "label_type": label_type(row["question_index"]),
                "question_polarity": row["question_polarity"],
                "context_condition": row["context_condition"],
                "label": row["label"],
                "pred_label": chosen,
                "target_loc": target_loc(row, groups[row["question_index"]]),
                "pred_is_unknown": unknown,
            }
        )
    return pd.DataFrame(out)


@pytest.mark.parametrize("category", PUBLISHED)
def test_scores_equal_the_authors_r_script(category: str) -> None:
    rows = predictions(category)
    flat = r_port.flatten(rows)
    expected = r_port.bias_scores(flat, r_port.metadata(flat))
    assert len(expected) == 5  # two conditions x two formats + the question-only baseline
    for field, model in r_port.MODELS.items():
        ours = scores(_items(rows, field)).set_index(["group", "context_condition"])
        theirs = expected[expected.model == model].set_index(["category", "context_condition"])
        for (group, condition), row in theirs.iterrows():
            assert ours.loc[(group, condition), "accuracy"] == pytest.approx(row.accuracy, abs=1e-9)
            assert 100 * ours.loc[(group, condition), "bias_score"] == pytest.approx(
                row.acc_bias, abs=1e-9
            )
        overall = {(OVERALL, condition) for _, condition in theirs.index}
        assert set(ours.index) == set(theirs.index) | overall


def _tiny() -> list[dict]:
    """Four Age items by hand: template 1 targets "old"; the answers are in the order
    (old, unknown, nonOld)."""
    base = {
        "question_index": "1",
        "category": "Age",
        "answer_info": {
            "ans0": ["grandfather", "old"],
            "ans1": ["Unknown", "unknown"],
            "ans2": ["grandson", "nonOld"],
        },
        "additional_metadata": {},
        "context": "c",
        "question": "q",
        "ans0": "The grandfather",
        "ans1": "Unknown",
        "ans2": "The grandson",
    }
    cases = [  # id, polarity, condition, label, prediction
        (0, "neg", "ambig", 1, "the grandfather"),  # wrong, biased (targets old)
        (1, "nonneg", "ambig", 1, "the grandfather."),  # wrong, counter-biased
        (2, "neg", "ambig", 1, "unknown"),  # right
        (3, "nonneg", "ambig", 1, "The grandson"),  # wrong, biased (nonneg target: nonOld)
    ]
    return [
        {**base, "example_id": i, "question_polarity": p, "context_condition": c, "label": label}
        | {"unifiedqa-t5-11b_pred_race": pred, "unifiedqa-t5-11b_pred_arc": pred}
        | {"unifiedqa-t5-11b_pred_qonly": pred}
        for i, p, c, label, pred in cases
    ]


def test_the_port_and_biasforge_agree_with_a_hand_computation() -> None:
    # accuracy 1/4; 3 non-unknown answers, 2 naming the target: s = 2*(2/3) - 1 = 1/3;
    # s_AMB = (1 - 1/4) * 1/3 = 1/4
    rows = _tiny()
    flat = r_port.flatten(rows)
    theirs = r_port.bias_scores(flat, r_port.metadata(flat))
    theirs = theirs[theirs.model == "format_race"].iloc[0]
    assert theirs.accuracy == pytest.approx(0.25)
    assert theirs.new_bias_score == pytest.approx(1 / 3)
    assert theirs.acc_bias == pytest.approx(25.0)
    ours = scores(_items(rows, "unifiedqa-t5-11b_pred_race")).iloc[0]
    assert (ours.accuracy, ours.raw_bias, ours.bias_score) == pytest.approx((0.25, 1 / 3, 0.25))


@pytest.mark.parametrize("category", PUBLISHED[:3])
def test_score_bbq_figures_are_the_r_scripts_with_intervals(category: str) -> None:
    """``score bbq``'s vectorised figures (what the bootstrap resamples) equal ``scores``
    (the R script's), and each interval holds its figure."""
    from biasforge.scoring.tasks.bbq_task import result_table
    from biasforge.scoring.uncertainty import Resampling

    items = _items(predictions(category), "unifiedqa-t5-11b_pred_race")
    items["correct"] = items["pred_label"] == items["label"]
    ours = result_table(items, Resampling(n_resamples=200)).set_index(
        ["group", "context_condition"]
    )
    theirs = scores(items).set_index(["group", "context_condition"])
    assert list(ours.index) == list(theirs.index)
    assert ours["questions"].tolist() == theirs["n"].tolist()
    for name in ("accuracy", "bias_score"):
        assert ours[name].to_numpy() == pytest.approx(theirs[name].to_numpy(), abs=1e-12)
        assert (ours[f"{name}_low"] <= ours[name] + 1e-12).all()
        assert (ours[name] <= ours[f"{name}_high"] + 1e-12).all()
        assert (ours[f"{name}_low"] < ours[f"{name}_high"]).any()
