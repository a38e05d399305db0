"""How sure each figure is: bootstrap intervals and paired comparisons of models, via scipy.

A family describes its figures once as a ``Figures``: names, and a vectorised function from
per-item features to every figure, the items ordered stratum by stratum (StereoSet: split ×
domain × target term; SlguSet: keyword pair; BEC-Pro: profession group × person gender).

- ``intervals``: percentile bootstrap (``scipy.stats.bootstrap``), items resampled with
  replacement *within* each stratum, so every target term, pair or cell keeps its size and the
  macro-averages stay defined; seeded, ``n_resamples`` resamples (default 1,000). A stratum of
  one item cannot vary and is held fixed.
- ``compare``: two models on the same items. The interval of the difference is the paired
  stratified bootstrap (both models' features resampled with the same items); the p-value is
  a paired permutation test (``scipy.stats.permutation_test``, ``permutation_type="samples"``:
  under the null the two models' outcomes on an item are exchangeable, so each item's pair is
  swapped at random). ``holm`` adjusts a report's p-values together for multiple comparisons
  (Holm–Bonferroni, ``statsmodels``).
- ``design``: items that cross two factors (BEC-Pro: professions × person words × templates)
  are not independent draws; given a ``CrossedDesign`` (``biasforge.scoring.crossed``), the
  intervals and the paired comparisons' intervals resample both factors instead of items
  (a hand-written two-way bootstrap: scipy has none). The permutation p-value stays per item.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from biasforge.scoring.crossed import CrossedDesign, crossed_interval

Compute = Callable[[np.ndarray], np.ndarray]  # (features, *batch, items) -> (figures, *batch)


@dataclass(frozen=True)
class Resampling:
    """Bootstrap settings: ``n_resamples`` 0 turns intervals and comparisons off."""

    n_resamples: int = 1000
    seed: int = 0
    level: float = 0.95

    @property
    def enabled(self) -> bool:
        return self.n_resamples > 0


@dataclass(frozen=True)
class Figures:
    """Named figures of per-item features; items ordered stratum by stratum (``sizes``)."""

    names: tuple[str, ...]
    sizes: tuple[int, ...]
    compute: Compute

    def __post_init__(self) -> None:
        if any(n < 1 for n in self.sizes):
            raise ValueError("every stratum needs at least one item")

    @property
    def starts(self) -> np.ndarray:
        """Index of each stratum's first item."""
        return np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(int)

    def strata(self, x: np.ndarray) -> list[np.ndarray]:
        """``x`` (features, items) cut into its strata."""
        return np.split(x, np.cumsum(self.sizes)[:-1], axis=-1)


def intervals(
    figures: Figures,
    x: np.ndarray,
    resampling: Resampling,
    design: CrossedDesign | None = None,
) -> np.ndarray:
    """(figures, 2) lower and upper bounds; NaN when resampling is off. Items resampled
    within strata, or both factors of ``design`` when one is given."""
    x = np.asarray(x, dtype=float)
    if not resampling.enabled:
        return np.full((len(figures.names), 2), np.nan)
    return _resample(figures, x, figures.compute, resampling, design)


def interval_frame(
    figures: Figures, x: np.ndarray, resampling: Resampling, design: CrossedDesign | None = None
) -> pd.DataFrame:
    """One row per figure: its value and bootstrap interval (two-way when ``design``)."""
    bounds = intervals(figures, x, resampling, design)
    return pd.DataFrame(
        {
            "figure": figures.names,
            "value": figures.compute(x),
            "low": bounds[:, 0],
            "high": bounds[:, 1],
        }
    )


def compare(
    figures: Figures,
    a: np.ndarray,
    b: np.ndarray,
    resampling: Resampling,
    design: CrossedDesign | None = None,
) -> list[dict[str, float | str]]:
    """Per figure: difference a − b, its paired bootstrap interval and permutation p-value."""
    from scipy import stats

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not figures.names:  # no item in common (e.g. no generated answer named an option)
        return []
    difference = figures.compute(a) - figures.compute(b)
    if not resampling.enabled or a.shape[-1] < 2:  # one item: nothing to resample
        bounds, pvalue = np.full((len(difference), 2), np.nan), np.full(len(difference), np.nan)
    else:
        width = a.shape[0]

        def paired(x: np.ndarray) -> np.ndarray:
            return figures.compute(x[:width]) - figures.compute(x[width:])

        bounds = _resample(figures, np.concatenate([a, b]), paired, resampling, design)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            test = stats.permutation_test(
                (a, b),
                _batch_first(lambda x, y: figures.compute(x) - figures.compute(y), a.ndim),
                permutation_type="samples",
                vectorized=True,
                n_resamples=resampling.n_resamples,
                axis=-1,
                rng=np.random.default_rng(resampling.seed),
            )
        # an undefined difference (a figure undefined for a model) has no p-value
        pvalue = np.where(np.isnan(difference), np.nan, np.atleast_1d(test.pvalue))
    return [
        {"figure": name, "difference": float(d), "low": float(lo), "high": float(hi), "p": float(p)}
        for name, d, (lo, hi), p in zip(figures.names, difference, bounds, pvalue, strict=True)
    ]


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (NaN stays NaN)."""
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    finite = np.isfinite(p)
    if finite.any():
        out[finite] = multipletests(p[finite], method="holm")[1]
    return out


def _resample(
    figures: Figures,
    x: np.ndarray,
    compute: Compute,
    resampling: Resampling,
    design: CrossedDesign | None,
) -> np.ndarray:
    """The two-way interval when a design is given, else the stratified item bootstrap."""
    if design is None:
        return _bootstrap(figures, x, compute, resampling)
    r = resampling
    return crossed_interval(design, x, compute, r.n_resamples, r.seed, r.level)


def _bootstrap(figures: Figures, x: np.ndarray, compute: Compute, resampling: Resampling):
    """Percentile interval of ``compute`` with items resampled within strata (scipy)."""
    from scipy import stats

    strata = figures.strata(x)
    varying = [i for i, s in enumerate(strata) if s.shape[-1] > 1]
    point = compute(x)
    if not varying:
        return np.stack([point, point], axis=-1)

    def statistic(*resampled: np.ndarray, axis: int = -1) -> np.ndarray:
        batch = resampled[0].shape[1:-1]
        pieces = [_broadcast(s, batch) for s in strata]
        for i, piece in zip(varying, resampled, strict=True):
            pieces[i] = piece
        return compute(np.concatenate(pieces, axis=-1))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.bootstrap(
            [strata[i] for i in varying],
            statistic,
            n_resamples=resampling.n_resamples,
            confidence_level=resampling.level,
            method="percentile",
            vectorized=True,
            axis=-1,
            rng=np.random.default_rng(resampling.seed),
        )
    ci = result.confidence_interval
    return np.stack([np.atleast_1d(ci.low), np.atleast_1d(ci.high)], axis=-1)


def _batch_first(statistic: Callable, ndim: int) -> Callable:
    """``permutation_test`` puts its resample axis first and wants it first in the result;
    ``Figures.compute`` takes it after the features and returns it after the figures."""

    def wrapped(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        if x.ndim == ndim:
            return statistic(x, y)
        moved = statistic(np.moveaxis(x, 0, -2), np.moveaxis(y, 0, -2))
        return np.moveaxis(moved, -1, 0)

    return wrapped


def _broadcast(stratum: np.ndarray, batch: tuple[int, ...]) -> np.ndarray:
    """A fixed stratum (features, n) shaped like a resampled one (features, *batch, n)."""
    shape = (stratum.shape[0], *batch, stratum.shape[-1])
    return np.broadcast_to(stratum[:, *([None] * len(batch)), :], shape)


def with_interval(value: float, low: float, high: float, digits: int = 1) -> str:
    """``61.5 [59.8, 63.2]``; the value alone when there is no interval; "–" for NaN."""
    if value is None or not np.isfinite(value):
        return "–"
    if low is None or high is None or not (np.isfinite(low) and np.isfinite(high)):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
