"""The StereoSet-fr paper's comparison with CrowS-Pairs (Adam-Cuvillier et al. 2024, §4.3,
Figure 2): per model, how far StereoSet's intrasentence SS lies from 50 and how far the
CrowS-Pairs percent lies from 50, their ranks, and Spearman's ρ with a permutation p-value.

It reads two score folders (``score stereoset`` and ``score crowspairs``) and matches models by
name; only models scored on both are compared.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from biasforge.errors import BiasforgeError
from biasforge.scoring.stats import spearman_permutation

CAVEAT = (
    "The two figures are not directly comparable: StereoSet scores the attribute's likelihood "
    "in a context (or a sentence's for causal models), CrowS-Pairs the pseudo-likelihood of the "
    "shared words so rare group words are not penalised; their items, bias types and languages "
    "differ too. As in the paper, only the models' relative order is compared, as a control."
)


def _read(folder: Path, what: str) -> pd.DataFrame:
    path = Path(folder) / "results.csv"
    if not path.is_file():
        raise BiasforgeError(f"{folder}: no results.csv (is it a 'score {what}' folder?)")
    return pd.read_csv(path)


def distances(stereoset: Path, crowspairs: Path) -> pd.DataFrame:
    """One row per model scored on both: |SS − 50|, |CrowS − 50| and their ranks (1: largest)."""
    ss = _read(stereoset, "stereoset")
    ss = ss[(ss["split"] == "intrasentence") & (ss["domain"] == "overall")]
    crows = _read(crowspairs, "crowspairs")
    crows = crows[crows["bias_type"] == "overall"]
    table = pd.merge(
        ss[["model", "SS"]].assign(ss_distance=(ss["SS"] - 50).abs()),
        crows[["model", "percent"]].assign(crows_distance=(crows["percent"] - 50).abs()),
        on="model",
    ).rename(columns={"percent": "CrowS"})
    if table.empty:
        raise BiasforgeError("no model was scored on both StereoSet and CrowS-Pairs")
    table["ss_rank"] = table["ss_distance"].rank(ascending=False, method="min").astype(int)
    table["crows_rank"] = table["crows_distance"].rank(ascending=False, method="min").astype(int)
    return table.sort_values("ss_rank", kind="stable").reset_index(drop=True)


def report(table: pd.DataFrame, seed: int = 0) -> str:
    """The table, ρ with its permutation p-value, and the caveat, as markdown."""
    from biasforge.contract.markdown import frame_md

    rho, p = spearman_permutation(table["ss_distance"], table["crows_distance"], seed=seed)
    verdict = (
        f"Spearman ρ between |SS − 50| and |CrowS − 50| over {len(table)} models: {rho:.2f} "
        f"(permutation p = {p:.3f})."
        if rho == rho
        else f"Spearman ρ needs at least three models with distinct figures ({len(table)} here)."
    )
    return "\n\n".join([frame_md(table, 1), verdict, CAVEAT]) + "\n"
