"""Scores of a release that records its adaptation (issue 44), through the one runner: removed
items are never scored, and every figure is given again, with intervals, on the transferred
items alone (``transferred/``), with no code of the task's own."""

from __future__ import annotations

import pandas as pd

from tests.conftest import run_cli
from tests.helpers import write_release

REMOVED, MODIFIED = 3, 4  # the first 3 pairs removed, the next 4 modified, 13 transferred


def adapted_release(run: str, root) -> tuple:
    frame = pd.read_parquet(f"{run}/candidates.parquet").head(20)
    frame = frame.assign(language="fr")  # as if translated from the English source
    kinds = ["removed"] * REMOVED + ["modified"] * MODIFIED
    kinds += ["transferred"] * (len(frame) - len(kinds))
    frame = frame.assign(
        adaptation=kinds,
        adaptation_note=["pas reconnu ici"] * REMOVED + ["les Roms"] * MODIFIED
        + [""] * (len(frame) - REMOVED - MODIFIED),
        origin="translated",
    )  # fmt: skip
    return write_release(frame, root, "crows-adapted", "1.0.0"), frame


def test_removed_items_are_left_out_and_the_transferred_subset_has_its_figures(
    tiny_models, crowspairs_en, tmp_path
):
    release, frame = adapted_release(crowspairs_en["run"], tmp_path / "rel")
    out = tmp_path / "scores"
    run_cli(
        "score", "crowspairs", "--dataset", release, "--model", tiny_models["masked"],
        "--out", out, "--no-progress", "--bootstrap", "100",
    )  # fmt: skip
    pairs = pd.read_csv(out / "pairs.csv", dtype={"id": str})
    removed = set(frame["id"][frame["adaptation"] == "removed"])
    transferred = set(frame["id"][frame["adaptation"] == "transferred"])
    assert len(pairs) == 17 and not removed & set(pairs["id"])
    whole = pd.read_csv(out / "results.csv").set_index("bias_type")
    subset = pd.read_csv(out / "transferred" / "results.csv").set_index("bias_type")
    assert whole.loc["overall", "pairs"] == 17 and subset.loc["overall", "pairs"] == 13
    kept = pairs[pairs["id"].isin(transferred)]
    assert subset.loc["overall", "percent"] == 100 * kept["stereotypical"].mean()
    assert subset.loc["overall", "low"] <= subset.loc["overall", "percent"]
    assert subset.loc["overall", "percent"] <= subset.loc["overall", "high"]
    report = (out / "report.md").read_text()
    assert "On the transferred items only" in report
    assert "the 3 items review `removed`" in report and "modified: 4" in report


def test_a_release_without_adaptation_scores_as_before(tiny_models, crowspairs_en, tmp_path):
    out = tmp_path / "scores"
    run_cli(
        "score", "crowspairs", "--dataset", crowspairs_en["release"], "--model",
        tiny_models["masked"], "--out", out, "--no-progress", "--bootstrap", "100", "--limit", "10",
    )  # fmt: skip
    assert not (out / "transferred").exists()
    assert "transferred" not in (out / "report.md").read_text()
