"""Figures of the reports (matplotlib, Agg backend, PNG): bias distributions and the
per-sentence bias correlation heatmap across models (Chinese paper, Figures 2 and 3)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def bias_distribution(frame: pd.DataFrame, path: Path, xlabel: str, title: str) -> None:
    """One histogram outline per model column of per-item bias values."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    values = frame.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    bins = np.linspace(finite.min(), finite.max(), 41) if finite.size else 10
    if finite.size and finite.min() == finite.max():
        bins = np.linspace(finite.min() - 0.5, finite.max() + 0.5, 11)
    for column in frame.columns:
        col = frame[column].to_numpy(dtype=float)
        ax.hist(col[np.isfinite(col)], bins=bins, histtype="step", linewidth=1.5, label=str(column))
    ax.axvline(0.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("items")
    ax.set_title(title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def correlation_heatmap(rho: pd.DataFrame, path: Path, title: str) -> None:
    """Annotated heatmap of a model × model correlation matrix."""
    plt = _plt()
    n = len(rho)
    fig, ax = plt.subplots(figsize=(1.4 * n + 2.5, 1.2 * n + 1.8))
    image = ax.imshow(rho.to_numpy(dtype=float), vmin=-1, vmax=1, cmap="RdBu_r")
    ax.set_xticks(range(n), [str(c) for c in rho.columns], rotation=30, ha="right")
    ax.set_yticks(range(n), [str(c) for c in rho.index])
    for i in range(n):
        for j in range(n):
            value = rho.iat[i, j]
            colour = "white" if abs(value) > 0.6 else "black"
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=9, color=colour)
    fig.colorbar(image, ax=ax, label="Spearman ρ")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
