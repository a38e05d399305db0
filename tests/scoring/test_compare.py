"""``score compare``: the paper's control of StereoSet against CrowS-Pairs, on real score
folders (two tiny models) and on hand-written results of five models for ρ and its p-value."""

from __future__ import annotations

import pandas as pd
import pytest
from scipy.stats import spearmanr

from biasforge.scoring.compare import CAVEAT, distances, rank_distances, report
from tests.conftest import run_cli
from tests.scoring.conftest import stereoset_items, stereoset_release


def test_compare_reads_both_score_folders(tiny_models, crowspairs_en, tmp_path):
    models = [a for m in ("masked", "causal") for a in ("--model", tiny_models[m])]
    run_cli("score", "crowspairs", "--dataset", crowspairs_en["release"], *models,
            "--out", tmp_path / "crows", "--no-progress", "--bootstrap", "0")  # fmt: skip
    release = stereoset_release(stereoset_items(), tmp_path)
    run_cli("score", "stereoset", "--dataset", release, *models, "--out", tmp_path / "ss",
            "--no-progress", "--bootstrap", "0")  # fmt: skip
    out = run_cli("score", "compare", "--stereoset", tmp_path / "ss", "--crowspairs",
                  tmp_path / "crows").stdout  # fmt: skip
    table = distances(tmp_path / "ss", tmp_path / "crows").set_index("model")
    crows = pd.read_csv(tmp_path / "crows" / "results.csv").set_index(["model", "bias_type"])
    for model in ("tiny-bert", "tiny-gpt2"):
        assert table.loc[model, "crows_distance"] == abs(
            crows.loc[(model, "overall"), "percent"] - 50
        )
        assert f"| {model} |" in out
    assert "at least three models" in out and "not directly comparable" in out


def test_rho_and_ranks():
    models = ["a", "b", "c", "d", "e"]
    ss_values, crows_values = [61.0, 55.0, 48.0, 70.0, 52.0], [58.0, 54.0, 41.0, 65.0, 50.5]
    ss = pd.DataFrame({"model": models, "split": "intrasentence", "domain": "overall",
                       "SS": ss_values})  # fmt: skip
    crows = pd.DataFrame({"model": models, "bias_type": "overall", "percent": crows_values})
    table = rank_distances(ss, crows)
    assert list(table["model"]) == ["d", "a", "b", "c", "e"]  # |SS - 50|: 20, 11, 5, 2, 2
    assert list(table["ss_rank"]) == [1, 2, 3, 4, 4]
    text = report(table)
    rho = spearmanr(table["ss_distance"], table["crows_distance"]).statistic
    assert f"{rho:.2f} (permutation p = " in text and CAVEAT in text
    with pytest.raises(Exception, match="no model"):
        alone = pd.DataFrame({"model": ["z"], "bias_type": "overall", "percent": [50.0]})
        rank_distances(ss, alone)
