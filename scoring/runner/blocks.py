"""The report sections every score folder has, whatever the task: the dataset and models, the
paired comparisons of the models, and the per-item bias across models."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from biasforge.scoring import plots
from biasforge.scoring.document import Figure, Heading, Paragraph, Table
from biasforge.scoring.interface import ModelIdentity
from biasforge.scoring.stats import correlation_matrix
from biasforge.scoring.uncertainty import Resampling, compare, holm, with_interval

# (figures, a's features, b's features[, crossed design of the common items])
Pairing = Callable[[str, str], tuple]


def comparisons(names: list[str], pairing: Pairing, resampling: Resampling) -> pd.DataFrame:
    """Every pair of models on their common items: differences, paired bootstrap intervals,
    permutation p-values and Holm-adjusted p-values over the whole table."""
    rows = []
    for a, b in itertools.combinations(names, 2):
        figures, xa, xb, *design = pairing(a, b)
        compared = compare(figures, xa, xb, resampling, design[0] if design else None)
        rows += [{"model_a": a, "model_b": b, **r} for r in compared]
    table = pd.DataFrame(
        rows, columns=["model_a", "model_b", "figure", "difference", "low", "high", "p"]
    )
    table["p_holm"] = holm(table["p"]) if len(table) else []
    table["significant"] = table["p_holm"] < 0.05
    return table


def comparison_blocks(table: pd.DataFrame, resampling: Resampling, digits: int = 2) -> list:
    """The comparisons section: what the test is, then the table."""
    if table.empty:
        return [Paragraph("One model: nothing to compare.")]
    shown = pd.DataFrame(
        {
            "model A": table["model_a"],
            "model B": table["model_b"],
            "figure": table["figure"],
            "A − B [95% CI]": [
                with_interval(d, lo, hi, digits)
                for d, lo, hi in table[["difference", "low", "high"]].itertuples(index=False)
            ],
            "p": table["p"],
            "p (Holm)": table["p_holm"],
            "significant": table["significant"].map({True: "yes", False: "no"}),
        }
    )
    text = (
        f"Paired on the same items: the interval is a paired bootstrap ({resampling.n_resamples} "
        "resamples, stratified like the intervals above), the p-value a paired permutation test "
        "(`scipy.stats.permutation_test`, each item's two outcomes swapped at random), and the "
        f"p-values of this table are adjusted together by Holm's method ({len(table)} tests); "
        "'significant' means Holm-adjusted p < 0.05."
    )
    return [Paragraph(text), Table(shown, 3)]


def provenance_blocks(dataset: dict, identities: list[ModelIdentity], procedures: dict) -> list:
    """Dataset version and sha256, each model's identity and the procedure it was scored with."""
    version = " ".join(str(dataset.get(k) or "") for k in ("name", "version")).strip()
    blocks: list = [
        Heading("Dataset and models"),
        Paragraph(
            f"Dataset `{dataset['path']}`"
            + (f" — release **{version}**" if version else "")
            + (f", sha256 `{dataset['sha256']}`" if dataset.get("sha256") else "")
            + "."
        ),
    ]
    rows = []
    for identity in identities:
        rows.append(
            {
                "model": identity.name,
                "identity": identity.label,
                "source": identity.source,
                "kind": identity.kind,
                "revision": identity.revision or "–",
                "weights sha256": (
                    f"{identity.sha256} ({identity.sha256_of})" if identity.sha256 else "–"
                ),
                "dtype": identity.dtype,
                "quantisation": identity.quantisation,
                "parameters": identity.parameters,
                **procedures.get(identity.name, {}),
            }
        )
    blocks.append(Table(pd.DataFrame(rows), 0))
    return blocks


def cross_model_blocks(per_item: pd.DataFrame, out: Path, xlabel: str, what: str) -> list:
    """Distribution plot and (two models or more) per-item correlation heatmap, with files."""
    plots.bias_distribution(
        per_item, out / "bias_distribution.png", xlabel, f"{what}: distribution per model"
    )
    blocks: list = [Figure("bias_distribution.png", f"{what}: per-item bias, one line per model")]
    if per_item.shape[1] >= 2:
        rho, pval = correlation_matrix(per_item.dropna())
        rho.to_csv(out / "bias_correlation.csv")
        pval.to_csv(out / "bias_correlation_pvalues.csv")
        plots.correlation_heatmap(
            rho, out / "bias_correlation.png", f"{what}: per-item correlation"
        )
        blocks += [
            Paragraph(
                "Per-item bias correlation across models (Spearman ρ; permutation p-values in "
                "`bias_correlation_pvalues.csv`):"
            ),
            Table(rho.reset_index(names="model"), 3),
            Figure("bias_correlation.png", f"{what}: Spearman ρ of per-item bias across models"),
        ]
    return blocks
