"""Scoring CrowS-Pairs: the masked scorer against a port of metric.py, the causal one against
a plain per-sentence sum of token log-probabilities, and the command end to end."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from biasforge.curation.crowspairs.source import BUNDLED_SAMPLE, read_pairs
from biasforge.scoring.interface import MinimalPair
from biasforge.scoring.models import ModelOptions, load_model
from biasforge.scoring.tasks.crowspairs import pair_scores, procedure, results, score_pairs
from biasforge.scoring.uncertainty import Resampling
from tests.conftest import run_cli
from tests.scoring.crowspairs_reference import mask_unigram

SAMPLE = read_pairs(BUNDLED_SAMPLE).head(24)
PAIRS = [MinimalPair(m, n) for m, n in SAMPLE[["sent_more", "sent_less"]].itertuples(index=False)]


def test_masked_equals_metric_py(tiny_models):
    lm = load_model(tiny_models["masked"], ModelOptions(progress=False, batch_tokens=300))
    pairs = PAIRS
    fast = pair_scores(lm, pairs)
    for pair, got in zip(pairs, fast, strict=True):
        want = mask_unigram(lm.model, lm.tokenizer, pair.first, pair.second, uncased=True)
        # sums of log-probabilities near -505: metric.py's float32 log-softmax rounds each
        # term near log(vocab) to its float32 spacing, while the adapter's reads are exact to
        # float64 but for the float32 sum of exponentials (adapters/base.py target_logprobs):
        # the two differ by up to 2.1e-8 relative here, under float32 precision (1.2e-7)
        assert got[0] == pytest.approx(want[0], rel=1e-7, abs=1e-6)
        assert got[1] == pytest.approx(want[1], rel=1e-7, abs=1e-6)
    assert "metric.py" in procedure(lm)


def test_causal_is_the_sum_of_token_logprobs(tiny_models):
    import torch

    lm = load_model(tiny_models["causal"], ModelOptions(progress=False, batch_tokens=300))
    model, tokenizer = lm.model, lm.tokenizer
    start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id

    def plain(text: str) -> float:
        tokens = tokenizer.encode(text, add_special_tokens=False)
        with torch.no_grad():
            logits = model(torch.tensor([[start, *tokens]])).logits[0]
        logp = torch.log_softmax(logits.float(), dim=-1)
        return float(sum(logp[i, t] for i, t in enumerate(tokens)))

    pairs = PAIRS
    for pair, got in zip(pairs, pair_scores(lm, pairs), strict=True):
        assert abs(got[0] - plain(pair.first)) < 1e-4 and abs(got[1] - plain(pair.second)) < 1e-4


def test_percent_per_bias_type_with_intervals(tiny_models):
    lm = load_model(tiny_models["masked"], ModelOptions(progress=False))
    items = SAMPLE.assign(id=SAMPLE["source_id"])
    scored = score_pairs(lm, items)
    table = results(scored, Resampling(200, seed=1)).set_index("bias_type")
    won = np.round(scored["sent_more_score"], 3) > np.round(scored["sent_less_score"], 3)
    assert table.loc["overall", "percent"] == 100 * won.mean()
    for bias, group in scored.groupby("bias_type"):
        assert table.loc[bias, "percent"] == 100 * group["stereotypical"].mean()
        assert table.loc[bias, "pairs"] == len(group)
    spread = table[table["pairs"] > 1]
    assert (spread["low"] <= spread["percent"]).all() and (
        spread["percent"] <= spread["high"]
    ).all()


def test_command_on_the_english_release(tiny_models, crowspairs_en, tmp_path):
    out = tmp_path / "scores"
    run_cli(
        "score", "crowspairs", "--dataset", crowspairs_en["release"],
        "--model", tiny_models["masked"], "--model", tiny_models["causal"], "--out", out,
        "--no-progress", "--bootstrap", "100",
    )  # fmt: skip
    table = pd.read_csv(out / "results.csv")
    assert set(table["model"]) == {"tiny-bert", "tiny-gpt2"}
    overall = table[table["bias_type"] == "overall"].set_index("model")
    pairs = pd.read_csv(out / "pairs.csv")
    for model, group in pairs.groupby("model"):
        assert len(group) == 100
        assert overall.loc[model, "percent"] == 100 * group["stereotypical"].mean()
    report = (out / "report.md").read_text()
    assert "Percent stereotypical by bias type" in report and "metric.py" in report
    assert json.loads((out / "manifest.json").read_text())["models"]
