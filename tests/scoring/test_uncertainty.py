"""Bootstrap intervals and paired comparisons: the vectorised figures equal the official
ones, the resampling is scipy's (stratified, seeded), comparisons and Holm behave, and a
full StereoSet dev set takes seconds."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from biasforge.scoring.stereoset_eval import figures, outcomes, results_table
from biasforge.scoring.tasks import becpro, slguset
from biasforge.scoring.tasks.stereoset import examples_from
from biasforge.scoring.uncertainty import (
    Figures,
    Resampling,
    compare,
    holm,
    intervals,
    with_interval,
)
from tests.conftest import SHARED
from tests.scoring.official_reference import flat_jsonl_items

DEV = SHARED / "data" / "stereoset" / "stereoset_dev_en.jsonl"


@pytest.fixture(scope="module")
def dev():
    """Every StereoSet dev example, and random scores for them."""
    examples = examples_from(flat_jsonl_items(str(DEV)))
    rng = np.random.default_rng(0)
    ids = [s for e in examples for s in (e.stereotype, e.anti_stereotype, e.unrelated)]
    return examples, dict(zip(ids, rng.random(len(ids)), strict=True))


def _mean_figure(sizes: tuple[int, ...]) -> Figures:
    return Figures(("mean",), sizes, lambda x: x[0].mean(axis=-1)[None])


def test_stereoset_figures_equal_the_official_rows(dev):
    examples, scores = dev
    fig, order = figures(examples)
    values = dict(zip(fig.names, fig.compute(outcomes(order, scores)), strict=True))
    rows = results_table(examples, scores)
    assert len(rows) == 11  # 2 splits × (4 domains + overall) + the pooled overall
    for row in rows:
        for metric in ("LMS", "SS", "ICAT"):
            assert values[f"{row['split']}/{row['domain']}/{metric}"] == pytest.approx(
                row[metric], abs=1e-9
            )
    split_mean = (rows[4]["SS"] + rows[9]["SS"]) / 2  # the two splits' overall rows
    assert values["mean/overall/SS"] == pytest.approx(split_mean)


def test_one_stratum_is_scipys_percentile_bootstrap():
    x = np.random.default_rng(1).normal(size=(1, 60))
    ((low, high),) = intervals(_mean_figure((60,)), x, Resampling(999, seed=7))
    reference = stats.bootstrap(
        (x[0],), np.mean, n_resamples=999, method="percentile", rng=np.random.default_rng(7)
    ).confidence_interval
    assert (low, high) == pytest.approx((reference.low, reference.high))


def test_strata_keep_their_size_singletons_stay_and_seeds_matter():
    # items of stratum A are 1, of stratum B 0: the share of ones cannot move
    x = np.array([[1.0] * 5 + [0.0] * 7 + [1.0]])
    share = _mean_figure((5, 7, 1))
    assert intervals(share, x, Resampling(300)) == pytest.approx(np.array([[6 / 13, 6 / 13]]))
    noisy = np.random.default_rng(2).normal(size=(1, 13))
    one = intervals(share, noisy, Resampling(300, seed=1))
    assert (one == intervals(share, noisy, Resampling(300, seed=1))).all()
    assert (one != intervals(share, noisy, Resampling(300, seed=2))).any()
    assert np.isnan(intervals(share, noisy, Resampling(0))).all()


def test_paired_comparison_and_holm():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(1, 200))
    figure = _mean_figure((100, 100))
    (same,) = compare(figure, a, a.copy(), Resampling(500))
    assert same["difference"] == 0.0 and same["p"] == 1.0
    (shifted,) = compare(figure, a + 0.3 + rng.normal(0, 0.1, size=a.shape), a, Resampling(500))
    assert shifted["p"] < 0.01 and shifted["low"] > 0.2 and shifted["high"] < 0.4
    assert holm([0.01, 0.04, 0.03, np.nan]) == pytest.approx(
        [0.03, 0.06, 0.06, np.nan], nan_ok=True
    )


def test_an_undefined_difference_has_no_p_value_and_no_figure_no_row():
    """A figure undefined for both models (NaN, e.g. a bias score with no non-"unknown" answer)
    is not "significant": its p-value is NaN, not the permutation test's 0."""
    nan_mean = Figures(("m",), (50,), lambda x: np.full((*x.shape[:-2], 1), np.nan))
    a = np.random.default_rng(5).normal(size=(1, 50))
    (row,) = compare(nan_mean, a, a + 1, Resampling(200))
    assert np.isnan(row["difference"]) and np.isnan(row["p"])
    nothing = Figures((), (), lambda x: np.zeros((*x.shape[:-2], 0)))
    assert compare(nothing, np.zeros((1, 0)), np.zeros((1, 0)), Resampling(200)) == []


def test_full_dev_set_takes_seconds(dev):
    examples, scores = dev
    other = {k: v + 0.05 for k, v in scores.items()}
    fig, order = figures(examples)
    started = time.perf_counter()
    bounds = intervals(fig, outcomes(order, scores), Resampling())
    rows = compare(fig, outcomes(order, scores), outcomes(order, other), Resampling())
    assert time.perf_counter() - started < 60
    assert np.isfinite(bounds).all() and len(rows) == len(fig.names)


def test_slguset_and_becpro_figures_equal_their_tables():
    rng = np.random.default_rng(4)
    scored = pd.DataFrame(
        {
            "id": [f"s{i}" for i in range(40)],
            "pair": ["他/她", "男/女", "父亲/母亲", "丈夫/妻子"] * 10,
            "bias": rng.normal(0, 0.5, 40),
        }
    )
    fig, ordered = slguset.figures(scored)
    values = dict(zip(fig.names, fig.compute(ordered[["bias"]].to_numpy().T), strict=True))
    for name, value in slguset.summary(scored["bias"]).items():
        if name != "sentences":
            assert values[f"all/{name}"] == pytest.approx(value)
    pair = scored[scored["pair"] == "男/女"]["bias"]
    assert values["男/女/mean_bias"] == pytest.approx(pair.mean())

    associations = pd.DataFrame(
        {
            "id": [f"b{i}" for i in range(36)],
            "profession_group": ["male", "female", "balanced"] * 12,
            "gender": ["female"] * 18 + ["male"] * 18,
            "association": rng.normal(size=36),
        }
    )
    fig, ordered = becpro.figures(associations)
    values = dict(zip(fig.names, fig.compute(ordered[["association"]].to_numpy().T), strict=True))
    table = becpro.association_table(associations)
    for row in table.itertuples():
        assert values[f"{row.profession_group}/{row.gender}/mean"] == pytest.approx(row.mean)
        assert values[f"{row.profession_group}/P(f)-P(m)"] == pytest.approx(row[3])


def test_interval_text():
    assert with_interval(61.49, 59.81, 63.24) == "61.5 [59.8, 63.2]"
    assert with_interval(0.1234, np.nan, np.nan, 3) == "0.123"
    assert with_interval(np.nan, 1, 2) == "–"
