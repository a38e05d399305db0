"""The StereoSet-fr paper's comparison with CrowS-Pairs (Adam-Cuvillier et al. 2024, §4.3,
Figure 2): per model, how far StereoSet's intrasentence SS lies from 50 and how far the
CrowS-Pairs percent lies from 50, their ranks, and Spearman's ρ with a permutation p-value.

It reads score folders (``score stereoset`` and ``score crowspairs``, or ``score merge`` of
them; several per side, e.g. made on different machines, when they scored the same release)
and matches models by name; only models scored on both are compared. The caveat names the
procedure each model was actually scored with, read from the folders' ``models.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from biasforge.contract.score import ScoreFolder, check_combinable, read_score_folder
from biasforge.errors import BiasforgeError, InputError
from biasforge.scoring.stats import spearman_permutation

# how each kind of model is scored, when a folder does not record the procedure itself
STEREOSET_BY_KIND = {
    "masked": "the attribute's probability at the BLANK, one mask per sub-token "
    "(pseudo-likelihood, the official masked-LM code)",
    "causal": "the sentence's likelihood (geometric mean of its token probabilities, the "
    "official generative code)",
    "seq2seq": "the filled sentence's decoder likelihood given the template with its slot masked",
}
CROWS_BY_KIND = {
    "masked": "the pseudo-log-likelihood of the tokens the two sentences share (`metric.py`)",
    "causal": "each sentence's log-likelihood (sum of its token log-probabilities)",
    "seq2seq": "each sentence's decoder log-likelihood",
}
CAVEAT = (
    "The two figures are not directly comparable: each model's two procedures above measure "
    "different things, and the benchmarks' items, bias types and languages differ too. As in "
    "the paper, only the models' relative order is compared, as a control."
)


def read_side(folders: Sequence[Path], command: str) -> tuple[pd.DataFrame, dict[str, dict]]:
    """results.csv of the folders of one side, and each model's models.json entry."""
    read = [read_score_folder(f, command) for f in folders]
    check_combinable(read)
    frames, models = [], {}
    for folder in read:
        path = folder.path / "results.csv"
        if not path.is_file():
            raise InputError(folder.path, f"no results.csv (is it a '{command}' folder?)")
        for model in folder.models:
            name = str(model.get("name", ""))
            if name in models:
                raise InputError(folder.path, f"model {name!r} is also in another folder")
            models[name] = model
        frames.append(pd.read_csv(path))
    return pd.concat(frames, ignore_index=True), models


def procedure(model: dict, by_kind: dict[str, str]) -> str:
    """The procedure a folder recorded for ``model``, else the one its kind is scored with."""
    recorded = model.get("procedure")
    if recorded:
        return str(recorded)
    kind = str(model.get("kind", ""))
    return by_kind.get(kind, f"the procedure for {kind or 'unknown'} models")


def distances(stereoset: Path | Sequence[Path], crowspairs: Path | Sequence[Path]) -> pd.DataFrame:
    """The comparison table (``rank_distances``) of the models in the score folders."""
    ss, ss_models = read_side(_paths(stereoset), "score stereoset")
    crows, crows_models = read_side(_paths(crowspairs), "score crowspairs")
    return rank_distances(ss, crows, ss_models, crows_models)


def rank_distances(
    ss: pd.DataFrame,
    crows: pd.DataFrame,
    ss_models: dict[str, dict] | None = None,
    crows_models: dict[str, dict] | None = None,
) -> pd.DataFrame:
    """One row per model in both results tables: |SS − 50|, |CrowS − 50|, their ranks (1:
    largest) and the procedure each side scored the model with."""
    ss_models, crows_models = ss_models or {}, crows_models or {}
    ss = ss[(ss["split"] == "intrasentence") & (ss["domain"] == "overall")]
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
    table["ss_procedure"] = [
        procedure(ss_models.get(m, {}), STEREOSET_BY_KIND) for m in table["model"]
    ]
    table["crows_procedure"] = [
        procedure(crows_models.get(m, {}), CROWS_BY_KIND) for m in table["model"]
    ]
    return table.sort_values("ss_rank", kind="stable").reset_index(drop=True)


def _paths(value: Path | Sequence[Path]) -> list[Path]:
    return [Path(value)] if isinstance(value, str | Path) else [Path(v) for v in value]


def caveat(table: pd.DataFrame) -> str:
    """Per model, the procedure of each side (as scored), then why they do not compare."""
    lines = [
        f"- `{row.model}`: StereoSet intrasentence by {row.ss_procedure}; CrowS-Pairs by "
        f"{row.crows_procedure}."
        for row in table.itertuples(index=False)
    ]
    return (
        "How each model was scored (from the score folders):\n\n"
        + "\n".join(lines)
        + (f"\n\n{CAVEAT}")
    )


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
    shown = table.drop(columns=["ss_procedure", "crows_procedure"])
    return "\n\n".join([frame_md(shown, 1), verdict, caveat(table)]) + "\n"


__all__ = ["ScoreFolder", "caveat", "distances", "procedure", "rank_distances", "report"]
