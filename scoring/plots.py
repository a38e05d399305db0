"""Figures of the reports (matplotlib, Agg backend, PNG): bias distributions and the
per-sentence bias correlation heatmap across models (Chinese paper, Figures 2 and 3), bars and
scatter plots with interval whiskers (StereoSet SS vs LMS, per-domain scores, SlguSet and
BEC-Pro means), the SlguSet pair × model heatmap and BEC-Pro association box plots."""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

_CJK_FILES = ("wqy", "cjk", "sourcehan", "simhei", "msyh", "droidsansfallback", "notosanssc")


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _cjk_fallback()
    return plt


@cache
def _cjk_fallback() -> None:
    """Chinese keywords (SlguSet) need a CJK font: add the system's CJK fonts (e.g. Debian's
    fonts-wqy-zenhei) as fallbacks after DejaVu Sans; without one, glyphs show as boxes."""
    from matplotlib import font_manager, rcParams

    families = []
    for path in font_manager.findSystemFonts():
        if any(key in Path(path).name.lower().replace("-", "") for key in _CJK_FILES):
            try:
                font_manager.fontManager.addfont(path)
                families.append(font_manager.FontProperties(fname=path).get_name())
            except (OSError, RuntimeError, ValueError):
                continue
    if families:
        rcParams["font.family"] = ["DejaVu Sans", *dict.fromkeys(families)]
        # a CJK font with one weight makes matplotlib say, for every figure, that it uses that
        # weight ("findfont: Failed to find font weight normal…"): true and harmless, so quiet
        logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)


def _save(fig, path: Path, dpi: int) -> None:
    """Lay the figure out, write it as PNG and free it."""
    plt = _plt()
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


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
    _save(fig, path, 120)


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
    _save(fig, path, 120)


def _bar_errors(rows: pd.DataFrame) -> np.ndarray:
    """(2, n) distances from each value to its interval bounds (0 where there is none)."""
    low = (rows["value"] - rows["low"]).to_numpy(dtype=float)
    high = (rows["high"] - rows["value"]).to_numpy(dtype=float)
    return np.nan_to_num(np.clip(np.stack([low, high]), 0, None))


def interval_bars(
    frame: pd.DataFrame, path: Path, title: str, references: dict[str, float] | None = None
) -> None:
    """Grouped bars with interval whiskers, one panel per ``panel`` value: columns ``panel``,
    ``category`` (a group of bars), ``model`` (a bar), ``value``, ``low``, ``high``."""
    plt = _plt()
    panels = list(dict.fromkeys(frame["panel"]))
    models = list(dict.fromkeys(frame["model"]))
    columns = min(3, len(panels))
    rows_n = -(-len(panels) // columns)
    fig, axes = plt.subplots(rows_n, columns, figsize=(4.6 * columns, 3.4 * rows_n), squeeze=False)
    width = 0.8 / max(1, len(models))
    for ax, panel in zip(axes.flat, panels, strict=False):
        sub = frame[frame["panel"] == panel]
        categories = list(dict.fromkeys(sub["category"]))
        for m, model in enumerate(models):
            rows = sub[sub["model"] == model].set_index("category").reindex(categories)
            x = np.arange(len(categories)) + (m - (len(models) - 1) / 2) * width
            ax.bar(x, rows["value"], width, label=str(model), yerr=_bar_errors(rows), capsize=3)
        if references and panel in references:
            ax.axhline(references[panel], color="grey", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(categories)), [str(c) for c in categories], rotation=25, ha="right")
        ax.set_title(str(panel), fontsize="medium")
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize="small")
    fig.suptitle(title)
    _save(fig, path, 110)


def ss_lms_scatter(frame: pd.DataFrame, path: Path, title: str) -> None:
    """SS against LMS per model and split, whiskers for both intervals; the ideal model sits
    at SS 50, LMS 100. Columns: ``model``, ``split``, ``SS``/``LMS`` and their ``_low``/``_high``."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    markers = dict(zip(dict.fromkeys(frame["split"]), "osD^v", strict=False))
    for (model, split), row in frame.set_index(["model", "split"]).iterrows():
        xerr = [[max(0, row.SS - row.SS_low)], [max(0, row.SS_high - row.SS)]]
        yerr = [[max(0, row.LMS - row.LMS_low)], [max(0, row.LMS_high - row.LMS)]]
        ax.errorbar(
            row.SS,
            row.LMS,
            xerr=np.nan_to_num(xerr),
            yerr=np.nan_to_num(yerr),
            fmt=markers[split],
            capsize=3,
            label=f"{model} ({split})",
        )
    ax.axvline(50, color="grey", linewidth=0.8, linestyle="--")
    ax.axhline(100, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("SS (50 = no stereotype preference)")
    ax.set_ylabel("LMS (100 = ideal language model)")
    ax.set_title(title)
    ax.legend(fontsize="small")
    _save(fig, path, 110)


def value_heatmap(matrix: pd.DataFrame, path: Path, title: str, label: str) -> None:
    """Annotated heatmap of rows × models, diverging around 0 (SlguSet mean Bias_c per pair)."""
    plt = _plt()
    values = matrix.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    bound = float(np.max(np.abs(finite))) if finite.size else 1.0
    rows, cols = matrix.shape
    fig, ax = plt.subplots(figsize=(1.3 * cols + 3.2, 0.38 * rows + 1.8))
    image = ax.imshow(values, vmin=-bound or -1, vmax=bound or 1, cmap="RdBu_r", aspect="auto")
    ax.set_xticks(range(cols), [str(c) for c in matrix.columns], rotation=30, ha="right")
    ax.set_yticks(range(rows), [str(r) for r in matrix.index])
    for i in range(rows):
        for j in range(cols):
            if np.isfinite(values[i, j]):
                ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(title)
    _save(fig, path, 110)


def grouped_distributions(frame: pd.DataFrame, path: Path, title: str, ylabel: str) -> None:
    """Box plots of ``value`` per ``group`` × ``gender``, one panel per ``model`` (BEC-Pro)."""
    plt = _plt()
    models = list(dict.fromkeys(frame["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(4.8 * len(models), 4), squeeze=False)
    for ax, model in zip(axes.flat, models, strict=True):
        sub = frame[frame["model"] == model]
        keys = list(dict.fromkeys(zip(sub["group"], sub["gender"], strict=True)))
        data = [
            sub[(sub["group"] == g) & (sub["gender"] == s)]["value"].to_numpy(dtype=float)
            for g, s in keys
        ]
        boxes = ax.boxplot(data, patch_artist=True, showfliers=False)
        for patch, (_, gender) in zip(boxes["boxes"], keys, strict=True):
            patch.set_facecolor("#f4a3a8" if gender == "female" else "#9ec5e8")
        ax.set_xticks(range(1, len(keys) + 1), [f"{g}\n{s}" for g, s in keys], fontsize=8)
        ax.axhline(0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_title(str(model), fontsize="medium")
        ax.set_ylabel(ylabel)
    fig.suptitle(title)
    _save(fig, path, 110)
