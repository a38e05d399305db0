"""Adapter behaviour: batching invariance, dtype option, clear errors."""

from __future__ import annotations

import pytest

from biasforge.errors import BiasforgeError
from scoring.models import ModelOptions, detect_kind, length_batches, load_model
from scoring.stereoset import score_intrasentence
from tests.scoring.conftest import stereoset_items


def test_length_batches_respect_budget_and_sort():
    lengths = [5, 9, 3, 9, 7, 1]
    batches = list(length_batches(lengths, batch_tokens=18, max_batch=8))
    assert sorted(i for b in batches for i in b) == list(range(6))
    for batch in batches:
        assert len(batch) * max(lengths[i] for i in batch) <= 18
    flat = [lengths[i] for b in batches for i in b]
    assert flat == sorted(flat, reverse=True)


@pytest.mark.parametrize("kind", ["masked", "causal", "seq2seq"])
def test_scores_do_not_depend_on_batching_and_bfloat16_is_close(tiny_models, kind):
    items = stereoset_items()
    intra = items[items["split"] == "intrasentence"]
    one = score_intrasentence(
        load_model(tiny_models[kind], ModelOptions(progress=False, max_batch=1)), intra
    )
    many = score_intrasentence(load_model(tiny_models[kind], ModelOptions(progress=False)), intra)
    assert max(abs(one[k] - many[k]) for k in one) < 1e-6
    half = score_intrasentence(
        load_model(tiny_models[kind], ModelOptions(progress=False, dtype="bfloat16")), intra
    )
    assert max(abs(half[k] - many[k]) / many[k] for k in many) < 0.1


def test_kind_detection_and_errors(tiny_models, tmp_path):
    from transformers import AutoConfig

    kinds = {k: detect_kind(AutoConfig.from_pretrained(p)) for k, p in tiny_models.items()}
    assert kinds == {"masked": "masked", "causal": "causal", "seq2seq": "seq2seq"}
    with pytest.raises(BiasforgeError, match="cannot load model"):
        load_model(str(tmp_path / "missing-model"), ModelOptions(progress=False))
    with pytest.raises(BiasforgeError, match="unknown dtype"):
        load_model(tiny_models["masked"], ModelOptions(progress=False, dtype="int3"))
    causal = load_model(tiny_models["causal"], ModelOptions(progress=False))
    with pytest.raises(BiasforgeError, match="no mask token"):
        causal.masked_logprobs([("x", [1])])
