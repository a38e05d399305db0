"""The agreement module on textbook examples with published values."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from biasforge.annotation.review.agreement import (
    fleiss,
    krippendorff_alpha,
    per_annotator,
    percent_unanimous,
)
from tests.annotation.reference import fleiss_kappa_simple, krippendorff_alpha_simple

# Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories; κ = 0.210.
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]  # fmt: skip

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", nominal example:
# 4 observers, 12 units, missing values as None; α = 0.743.
KRIPPENDORFF_2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def fleiss_frame() -> pd.DataFrame:
    rows = []
    for item, counts in enumerate(WIKIPEDIA_FLEISS):
        rater = 0
        for category, count in enumerate(counts, 1):
            for _ in range(count):
                rows.append({"item": item, "annotator": f"r{rater}", "value": str(category)})
                rater += 1
    return pd.DataFrame(rows)


def kripp_frame() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"item": unit, "annotator": who, "value": str(value)}
            for who, values in KRIPPENDORFF_2011.items()
            for unit, value in enumerate(values)
            if value is not None
        ]
    )


def test_fleiss_kappa_wikipedia_example():
    kappa, items = fleiss(fleiss_frame())
    assert items == 10
    assert kappa == pytest.approx(0.210, abs=5e-4)
    ratings = fleiss_frame().groupby("item")["value"].apply(list).tolist()
    assert kappa == pytest.approx(fleiss_kappa_simple(ratings), abs=1e-12)


def test_krippendorff_alpha_2011_example():
    alpha = krippendorff_alpha(kripp_frame())
    assert alpha == pytest.approx(0.743, abs=5e-4)
    units = kripp_frame().groupby("item")["value"].apply(list).tolist()
    assert alpha == pytest.approx(krippendorff_alpha_simple(units), abs=1e-12)


def test_percent_unanimous_and_per_annotator():
    frame = kripp_frame()
    # units with ≥ 2 values: 0..10 (unit 11 has one value); unanimous: 0,2,3,4,6,8,9,10 → 8 of 11
    assert percent_unanimous(frame) == pytest.approx(100 * 8 / 11)
    figures = per_annotator(frame)
    # observer A rated units 0..8; agreeing pairs with the others, counted by hand:
    # u0 2/2, u1 2/3, u2 3/3, u3 3/3, u4 3/3, u5 0/3, u6 3/3, u7 2/3, u8 3/3 → 21/26
    assert figures["A"]["items"] == 9
    assert figures["A"]["pairwise_agreement"] == pytest.approx(21 / 26)
    assert not math.isnan(figures["C"]["alpha_without"])
