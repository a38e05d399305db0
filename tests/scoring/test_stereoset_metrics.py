"""The StereoSet evaluator against hand-computed official numbers, and the fast scoring path
against the official one-sentence-per-forward procedure on tiny random models."""

from __future__ import annotations

import math

import numpy as np
import pytest

from biasforge.scoring.models import ModelOptions, load_model
from biasforge.scoring.stereoset_eval import Example, evaluate, official_results
from biasforge.scoring.tasks.stereoset import examples_from, score_intrasentence
from tests.scoring.conftest import stereoset_items
from tests.scoring.official_reference import (
    official_intrasentence_causal,
    official_intrasentence_mlm,
)

# (id, split, domain, target, pro, anti, unrelated)
CRAFTED = [
    ("e1", "intrasentence", "gender", "A", 0.5, 0.3, 0.1),  # pro; both related
    ("e2", "intrasentence", "gender", "A", 0.2, 0.2, 0.2),  # tie -> anti; nothing related
    ("e3", "intrasentence", "gender", "B", 0.1, 0.4, 0.3),  # anti; anti related
    ("e4", "intrasentence", "race", "C", 0.9, 0.1, 0.5),  # pro; pro related
    ("e5", "intersentence", "gender", "A", 0.6, 0.7, 0.65),  # anti; anti related
]


def _crafted():
    examples, scores = [], {}
    for ex_id, split, domain, target, pro, anti, unrel in CRAFTED:
        examples.append(
            Example(ex_id, split, domain, target, f"{ex_id}s", f"{ex_id}a", f"{ex_id}u")
        )
        scores.update({f"{ex_id}s": pro, f"{ex_id}a": anti, f"{ex_id}u": unrel})
    return examples, scores


def test_official_numbers_on_crafted_predictions():
    examples, scores = _crafted()
    results = official_results(examples, scores)
    # by hand: term A (e1, e2): SS 50, LMS 2/4 = 50; term B: SS 0, LMS 50; term C: SS 100, LMS 50
    gender = results["intrasentence"]["gender"]
    assert gender == {"Count": 9.0, "LM Score": 50.0, "SS Score": 25.0, "ICAT Score": 25.0}
    assert results["intrasentence"]["race"] == {
        "Count": 3.0,
        "LM Score": 50.0,
        "SS Score": 100.0,
        "ICAT Score": 0.0,
    }
    assert results["intrasentence"]["overall"] == {
        "Count": 4.0,
        "LM Score": 50.0,
        "SS Score": 50.0,
        "ICAT Score": 50.0,
    }
    assert results["intersentence"]["overall"] == {
        "Count": 1.0,
        "LM Score": 50.0,
        "SS Score": 0.0,
        "ICAT Score": 0.0,
    }
    # combined: term A pools e1, e2, e5: SS 100/3, LMS 3/6; mean SS (100/3 + 0 + 100) / 3
    overall = results["overall"]
    assert overall["Count"] == 5.0
    assert overall["LM Score"] == 50.0
    assert overall["SS Score"] == pytest.approx((100 / 3 + 0 + 100) / 3)
    # macro ICAT from the averaged LMS and SS, not the mean of per-term ICATs (which is 11.1)
    assert overall["ICAT Score"] == pytest.approx(50 * (400 / 9) / 50)


def test_ties_count_as_anti_and_unrelated_ties_are_not_related():
    ex = [Example("x", "intrasentence", "race", "T", "s", "a", "u")]
    result = evaluate(ex, {"s": 0.3, "a": 0.3, "u": 0.3})
    assert result["SS Score"] == 0.0 and result["LM Score"] == 0.0


@pytest.fixture(scope="module")
def items():
    return stereoset_items()


def test_masked_fast_path_matches_official_procedure(tiny_models, items):
    lm = load_model(tiny_models["masked"], ModelOptions(progress=False, batch_tokens=40))
    intra = items[items["split"] == "intrasentence"]
    official = official_intrasentence_mlm(lm.model, lm.tokenizer, intra)
    fast = score_intrasentence(lm, intra)
    assert fast.keys() == official.keys() and len(fast) == 15
    assert max(abs(fast[k] - official[k]) for k in fast) < 1e-6
    # a multi-sub-token attribute really was scored over several masks
    assert len(lm.encode("hispanic")) > 1 and len(lm.encode("engineer")) > 1


def test_two_blanks_follow_the_official_procedure(tiny_models, items):
    """Two StereoSet dev contexts hold BLANK twice: the official loader fills both and reads
    the first mask; the fast path must agree."""
    lm = load_model(tiny_models["masked"], ModelOptions(progress=False))
    intra = items[items["split"] == "intrasentence"].head(2)
    two = _with_context(intra, "The BLANK is strict about BLANK.")
    official = official_intrasentence_mlm(lm.model, lm.tokenizer, two)
    fast = score_intrasentence(lm, two)
    assert fast.keys() == official.keys() and len(fast) == 6
    assert max(abs(fast[k] - official[k]) for k in fast) < 1e-6
    one_blank = score_intrasentence(lm, _with_context(intra, "The BLANK is strict."))
    assert max(abs(fast[k] - one_blank[k]) for k in fast) > 1e-6  # the second mask is seen


def _with_context(items, context: str):
    """``items`` with ``context``, their sentences rewritten to fill it with each attribute
    (the official procedure reads the attribute from the sentence)."""
    sentences = [
        [{**s, "sentence": context.replace("BLANK", s["attribute"])} for s in ss]
        for ss in items["sentences"]
    ]
    return items.assign(context=context, sentences=sentences)


def test_causal_fast_path_matches_official_procedure(tiny_models, items):
    lm = load_model(tiny_models["causal"], ModelOptions(progress=False, batch_tokens=64))
    assert not lm.adds_bos  # GPT-2 style: the official start-token procedure applies
    intra = items[items["split"] == "intrasentence"]
    official = official_intrasentence_causal(lm.model, lm.tokenizer, intra)
    fast = score_intrasentence(lm, intra)
    assert max(abs(fast[k] - official[k]) for k in fast) < 1e-6


def test_seq2seq_score_is_geometric_mean_of_decoder_probabilities(tiny_models, items):
    import torch

    lm = load_model(tiny_models["seq2seq"], ModelOptions(progress=False))
    intra = items[items["split"] == "intrasentence"].head(2)
    fast = score_intrasentence(lm, intra)
    for row in intra.itertuples():
        for sentence in row.sentences:
            source = lm.tokenizer(row.context.replace("BLANK", "<mask>"), return_tensors="pt")
            labels = lm.tokenizer(text_target=sentence["sentence"], return_tensors="pt")[
                "input_ids"
            ]
            with torch.no_grad():
                loss = lm.model(**source, labels=labels).loss  # mean token NLL
            assert fast[sentence["id"]] == pytest.approx(math.exp(-loss.item()), rel=1e-5)


def test_examples_need_all_three_labels(items):
    from biasforge.errors import InputError

    broken = items.copy()
    broken.at[0, "sentences"] = list(broken.at[0, "sentences"])[:2]
    with pytest.raises(InputError, match="missing unrelated"):
        examples_from(broken)
    assert np.isclose(len(examples_from(items)), 8)
