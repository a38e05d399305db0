"""End to end through the CLI: tiny masked, causal and encoder-decoder models on a release."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

from biasforge.scoring.cli import app
from tests.helpers import score
from tests.scoring.conftest import stereoset_items, stereoset_release


def _run(args):
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_three_kinds_one_command(tiny_models, tmp_path):
    items = stereoset_items()
    release = stereoset_release(items, tmp_path)
    out = tmp_path / "scores"
    args = ["stereoset", "--dataset", str(release), "--out", str(out), "--no-progress"]
    for path in tiny_models.values():
        args += ["--model", path]
    _run(args)

    for name in ("tiny-bert", "tiny-gpt2", "tiny-bart"):
        predictions = json.loads((out / name / "predictions.json").read_text())
        assert len(predictions["intrasentence"]) == 15
        assert len(predictions["intersentence"]) == 9
        assert all(0.0 < p["score"] <= 1.0 for p in predictions["intrasentence"])
        # the official evaluator, re-run on the predictions file the command wrote
        replay = _run(
            [
                "stereoset-eval",
                "--dataset",
                str(release),
                "--predictions",
                str(out / name / "predictions.json"),
            ]
        )
        assert json.loads(replay.output) == json.loads((out / name / "results.json").read_text())

    results = pd.read_csv(out / "results.csv")
    overall = results[(results["domain"] == "overall") & (results["split"] == "intrasentence")]
    assert sorted(overall["model"]) == ["tiny-bart", "tiny-bert", "tiny-gpt2"]
    # ICAT = LMS * min(SS, 100 - SS) / 50 for every row (macro-averaged over terms first)
    expected = results["LMS"] * results["SS"].clip(upper=100 - results["SS"]) / 50
    assert (results["ICAT"] - expected).abs().max() < 1e-9
    spearman = pd.DataFrame(json.loads((out / "spearman.json").read_text()))
    row = spearman[(spearman["split"] == "intrasentence") & (spearman["x"] == "LMS")].iloc[0]
    assert row["models"] == 3
    intra = overall.set_index("model")
    expected_rho = spearmanr(intra["LMS"], (intra["SS"] - 50).abs()).statistic
    assert row["rho"] == pytest.approx(expected_rho) or (
        pd.isna(row["rho"]) and pd.isna(expected_rho)
    )
    assert "Table 3" in (out / "report.md").read_text()
    report = (out / "report.md").read_text()
    assert "pre-trained NSP head" in report  # BERT checkpoint saved with its NSP head
    assert "continuation likelihood" in report  # GPT-2 and BART
    bert = results[(results["model"] == "tiny-bert") & (results["domain"] == "overall")]
    table2_lms = bert[bert["split"] != "all"]["LMS"].mean()
    means = pd.read_csv(out / "split_means.csv").set_index(["model", "domain"])
    assert means.loc[("tiny-bert", "overall"), "LMS"] == pytest.approx(table2_lms, abs=1e-9)
    assert "Table 2" in report and f"| tiny-bert | overall | {table2_lms:.1f} [" in report
    for png in ("bias_distribution.png", "bias_correlation.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bias = pd.read_csv(out / "item_bias.csv", index_col=0)
    assert bias.shape == (8, 3)
    manifest = json.loads((out / "manifest.json").read_text())
    # models are recorded without the absolute paths of this machine (folder name only)
    assert manifest["models"] == [Path(p).name for p in tiny_models.values()]


def test_refuses_existing_output_and_bad_dataset(tiny_models, tmp_path):
    from biasforge.errors import BiasforgeError, InputError

    items = stereoset_items()
    path = tmp_path / "items.parquet"
    items.to_parquet(path, index=False)
    out = tmp_path / "o"
    out.mkdir()
    runner = CliRunner()
    result = runner.invoke(
        app, ["stereoset", "-d", str(path), "-m", tiny_models["masked"], "-o", str(out)]
    )
    assert isinstance(result.exception, BiasforgeError)
    broken = items.drop(columns=["context"])
    broken.to_parquet(tmp_path / "broken.parquet", index=False)
    result = runner.invoke(
        app,
        [
            "stereoset",
            "-d",
            str(tmp_path / "broken.parquet"),
            "-m",
            tiny_models["masked"],
            "-o",
            str(tmp_path / "x"),
        ],
    )
    assert isinstance(result.exception, InputError)
    assert "missing columns context" in str(result.exception)


def test_nsp_head_training_for_a_causal_model(tiny_models, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(
        "The nurse was kind.\nShe is good.\nThe doctor was strong.\n\n"
        "Many people live in the country.\nThe boy was lazy.\nMy professor is a man.\n\n"
        "The cat is a fox.\nThe dog was good.\n"
    )
    items = stereoset_items()
    path = tmp_path / "items.parquet"
    items.to_parquet(path, index=False)
    out = tmp_path / "o"
    score("stereoset", "-d", path, "-m", tiny_models["causal"], "-o", out, "--split",
          "intersentence", "--nsp-corpus", corpus, "--nsp-steps", "20")  # fmt: skip
    assert (out / "tiny-gpt2" / "nsp_head.pt").exists()
    assert "trained NSP head" in (out / "report.md").read_text()
    predictions = json.loads((out / "tiny-gpt2" / "predictions.json").read_text())
    assert predictions["intrasentence"] == [] and len(predictions["intersentence"]) == 9
    # the saved head, reused in a second run, gives the same predictions
    again = tmp_path / "again"
    score("stereoset", "-d", path, "-m", tiny_models["causal"], "-o", again, "--split",
          "intersentence", "--nsp-head", out / "tiny-gpt2" / "nsp_head.pt")  # fmt: skip
    assert json.loads((again / "tiny-gpt2" / "predictions.json").read_text()) == predictions
    scores = [p["score"] for p in predictions["intersentence"]]
    assert all(0.0 < s < 1.0 for s in scores) and len(set(scores)) > 1
