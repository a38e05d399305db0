"""Spearman's rho with permutation-test p-values (French paper §4.2, §4.4), via scipy.stats.

Ranks are computed once and the permutation statistic is Pearson's r of the ranks, vectorised
over resamples, so a test over thousands of sentences stays fast. With n! no larger than the
number of resamples scipy enumerates every permutation (an exact test).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def spearman_permutation(
    x, y, n_resamples: int = 9999, seed: int = 0, alternative: str = "two-sided"
) -> tuple[float, float]:
    """(rho, p) for paired samples; NaN when fewer than three pairs or a constant sample."""
    from scipy import stats

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if len(x) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan"), float("nan")
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    ry_c = (ry - ry.mean()) / np.sqrt(((ry - ry.mean()) ** 2).sum())

    def statistic(a, axis=-1):
        a_c = a - a.mean(axis=axis, keepdims=True)
        norm = np.sqrt((a_c**2).sum(axis=axis))
        return (a_c * ry_c).sum(axis=axis) / norm

    result = stats.permutation_test(
        (rx,),
        statistic,
        permutation_type="pairings",
        vectorized=True,
        n_resamples=n_resamples,
        alternative=alternative,
        random_state=np.random.default_rng(seed),
        batch=max(1, min(1000, 2_000_000 // len(x))),
    )
    return float(result.statistic), float(result.pvalue)


def correlation_matrix(
    frame: pd.DataFrame, n_resamples: int = 999
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pairwise Spearman rho and permutation p-values between the columns of ``frame``."""
    cols = list(frame.columns)
    rho = pd.DataFrame(np.eye(len(cols)), index=cols, columns=cols)
    pval = pd.DataFrame(np.zeros((len(cols), len(cols))), index=cols, columns=cols)
    for i, a in enumerate(cols):
        for b in cols[i + 1 :]:
            r, p = spearman_permutation(frame[a], frame[b], n_resamples=n_resamples)
            rho.loc[a, b] = rho.loc[b, a] = r
            pval.loc[a, b] = pval.loc[b, a] = p
    return rho, pval
