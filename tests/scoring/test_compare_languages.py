"""``score compare --languages`` pairs each language's rows by source item, not by row or
item id, and its interval is the paired bootstrap of the per-source-item differences: checked
against scipy's own bootstrap of those differences, computed here from the rows by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from biasforge.scoring.interface import ModelIdentity
from biasforge.scoring.languages import pair_languages
from biasforge.scoring.tasks import Scored
from biasforge.scoring.tasks.crowspairs_task import TASK
from biasforge.scoring.uncertainty import Resampling

# source item -> (won in en, won in fr): the languages disagree on some items only
WON = {"s1": (1, 1), "s2": (1, 0), "s3": (1, 0), "s4": (1, 0), "s5": (0, 1), "s6": (1, 1),
       "s7": (0, 0), "s8": (0, 1), "s9": (1, 1), "s10": (0, 0), "s11": (1, 1)}  # fmt: skip


def _case() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items of both languages (ids differ by language) and one model's rows, the French
    rows in another order than the English ones, plus a French item with no English twin."""
    sources = list(WON)
    items, rows = [], []
    for lang, column, order in (("en", 0, sources), ("fr", 1, sources[::-1])):
        for source in order:
            items.append({"id": f"{lang}-{source}", "language": lang, "source_id": source})
            rows.append({"id": f"{lang}-{source}", "bias_type": "gender",
                         "stereotypical": bool(WON[source][column])})  # fmt: skip
    items.append({"id": "fr-extra", "language": "fr", "source_id": "native:1"})
    rows.append({"id": "fr-extra", "bias_type": "gender", "stereotypical": True})
    return pd.DataFrame(items), pd.DataFrame(rows)


def test_pairs_by_source_and_matches_the_bootstrap_of_the_differences():
    items, rows = _case()
    resampling = Resampling(n_resamples=2000, seed=7)
    table = pair_languages(TASK, items, {"m": Scored(rows, ModelIdentity("m"))}, resampling)
    overall = table[table["figure"] == "overall"].iloc[0]
    assert (overall["language_a"], overall["language_b"], overall["pairs"]) == ("en", "fr", 11)
    # by hand: per source item, 100 × (won in en − won in fr)
    differences = np.array([100.0 * (en - fr) for en, fr in WON.values()])
    assert overall["difference"] == pytest.approx(differences.mean())  # 100/11
    expected = stats.bootstrap(
        (differences,), np.mean, n_resamples=2000, method="percentile",
        rng=np.random.default_rng(7),
    ).confidence_interval  # fmt: skip
    assert (overall["low"], overall["high"]) == (
        pytest.approx(expected.low),
        pytest.approx(expected.high),
    )
    assert overall["low"] < overall["difference"] < overall["high"]


def test_pairing_by_row_order_would_give_another_interval():
    """The French rows come in reverse order: paired by position, s1 would meet s11. The mean
    difference is the same either way; the paired interval is not, and ours is by source."""
    items, rows = _case()
    resampling = Resampling(n_resamples=2000, seed=7)
    table = pair_languages(TASK, items, {"m": Scored(rows, ModelIdentity("m"))}, resampling)
    overall = table[table["figure"] == "overall"].iloc[0]
    en = [a for a, _ in WON.values()]
    fr_by_position = [b for _, b in reversed(WON.values())]
    by_position = np.array([100.0 * (a - b) for a, b in zip(en, fr_by_position, strict=True)])
    wrong = stats.bootstrap(
        (by_position,), np.mean, n_resamples=2000, method="percentile",
        rng=np.random.default_rng(7),
    ).confidence_interval  # fmt: skip
    assert (overall["low"], overall["high"]) != (
        pytest.approx(wrong.low),
        pytest.approx(wrong.high),
    )
