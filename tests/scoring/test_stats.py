"""Spearman's rho with permutation p-values against scipy and a brute-force exact test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import spearmanr

from biasforge.scoring.stats import correlation_matrix, spearman_permutation


def _exact_p(x, y):
    observed = spearmanr(x, y).statistic
    perms = [spearmanr(list(p), y).statistic for p in itertools.permutations(x)]
    return observed, np.mean([abs(r) >= abs(observed) - 1e-12 for r in perms])


def test_small_sample_is_exact():
    # the French paper's setting: a handful of models, LMS vs |SS - 50|
    lms = [78.9, 87.4, 73.5, 83.2, 87.6, 81.9]
    distance = [0.3, 8.9, 4.3, 8.4, 9.1, 9.4]
    rho, p = spearman_permutation(lms, distance)
    expected_rho, expected_p = _exact_p(lms, distance)
    assert rho == pytest.approx(expected_rho)
    assert p == pytest.approx(expected_p)


def test_large_sample_close_to_asymptotic_and_degenerate_inputs():
    rng = np.random.default_rng(3)
    x = rng.normal(size=400)
    y = 0.2 * x + rng.normal(size=400)
    rho, p = spearman_permutation(x, y, n_resamples=4999)
    reference = spearmanr(x, y)
    assert rho == pytest.approx(reference.statistic)
    assert p == pytest.approx(reference.pvalue, abs=0.01)
    assert np.isnan(spearman_permutation([1, 2], [2, 1])[0])
    assert np.isnan(spearman_permutation([1, 1, 1], [1, 2, 3])[0])


def test_correlation_matrix_is_symmetric():
    import pandas as pd

    rng = np.random.default_rng(0)
    a = rng.normal(size=50)
    frame = pd.DataFrame(
        {"a": a, "b": a + rng.normal(scale=0.1, size=50), "c": rng.normal(size=50)}
    )
    rho, pval = correlation_matrix(frame)
    assert (rho.to_numpy() == rho.to_numpy().T).all()
    assert rho.loc["a", "b"] == pytest.approx(spearmanr(frame["a"], frame["b"]).statistic)
    assert pval.loc["a", "b"] < 0.01 and pval.loc["a", "b"] == pval.loc["b", "a"]
