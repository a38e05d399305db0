"""Inter-annotator agreement per question, from well-kept libraries.

Input is a long table of submitted answers (``item``, ``annotator``, ``value``) for one
categorical question. Reported per question:

* Krippendorff's alpha (nominal), ``krippendorff.alpha`` — handles missing answers, so every
  item with at least two answers counts;
* Fleiss' kappa, ``statsmodels.stats.inter_rater.fleiss_kappa`` — needs the same number of
  raters for every item, so it uses the items that have the most common number of answers
  (``fleiss_items`` says how many);
* percent of items (with ≥ 2 answers) on which all annotators agree;
* each annotator against the others: share of pairwise agreement with the other annotators on
  the items they shared, and alpha recomputed without that annotator (a jump means this person
  disagrees with the rest);
* ``notes``: degenerate cases explained in words. When every answer is the same value, alpha
  and kappa are undefined (0/0: no variation to be reliable about), reported as None, not 1.0;
  when one value dominates, chance agreement is already high and a single differing vote can
  pull alpha to 0 or below although nearly every answer agrees (the "kappa paradox", Feinstein
  & Cicchetti 1990); with few items every figure is unstable.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import pandas as pd


def _clean(value: float | None) -> float | None:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    return float(value)


def krippendorff_alpha(answers: pd.DataFrame) -> float | None:
    """Nominal alpha over an annotator × item matrix with gaps (None when undefined)."""
    import krippendorff

    multi = answers.groupby("item")["annotator"].nunique()
    answers = answers[answers["item"].isin(multi[multi >= 2].index)]
    if answers.empty:
        return None
    codes = {
        value: code for code, value in enumerate(sorted(answers["value"].astype(str).unique()))
    }
    if len(codes) < 2:
        return None  # every answer is the same value: alpha is 0/0, undefined
    matrix = (
        answers.assign(code=answers["value"].astype(str).map(codes))
        .pivot_table(index="annotator", columns="item", values="code", aggfunc="first")
        .to_numpy(dtype=float)
    )
    return _clean(krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"))


def fleiss(answers: pd.DataFrame) -> tuple[float | None, int]:
    """Fleiss' kappa over the items with the modal number of raters, and how many items."""
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    per_item = answers.groupby("item")["value"].apply(lambda s: list(map(str, s)))
    sizes = per_item.map(len)
    sizes = sizes[sizes >= 2]
    if sizes.empty:
        return None, 0
    modal = Counter(sizes.tolist()).most_common(1)[0][0]
    ratings = [values for values in per_item[sizes[sizes == modal].index]]
    categories = sorted({v for values in ratings for v in values})
    if len(categories) < 2:
        return None, len(ratings)  # one value only: kappa is undefined
    codes = {c: i for i, c in enumerate(categories)}
    table, _ = aggregate_raters(
        np.array([[codes[v] for v in values] for values in ratings]), n_cat=len(categories)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        return _clean(fleiss_kappa(table, method="fleiss")), len(ratings)


def percent_unanimous(answers: pd.DataFrame) -> float | None:
    groups = answers.groupby("item")["value"].agg(lambda s: (len(s), s.astype(str).nunique()))
    rated = [n_distinct == 1 for n, n_distinct in groups if n >= 2]
    return 100.0 * sum(rated) / len(rated) if rated else None


def per_annotator(answers: pd.DataFrame) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}
    by_item = {
        item: dict(zip(g["annotator"], g["value"].astype(str), strict=True))
        for item, g in answers.groupby("item")
    }
    for annotator in sorted(answers["annotator"].unique()):
        agree = total = items = 0
        for votes in by_item.values():
            if annotator not in votes or len(votes) < 2:
                continue
            items += 1
            mine = votes[annotator]
            for other, value in votes.items():
                if other != annotator:
                    total += 1
                    agree += value == mine
        result[str(annotator)] = {
            "items": items,
            "pairwise_agreement": agree / total if total else None,
            "alpha_without": krippendorff_alpha(answers[answers["annotator"] != annotator]),
        }
    return result


FEW_ITEMS = 10  # below this many items with two or more answers, figures are unstable


def notes(figures: dict[str, Any]) -> list[str]:
    """Degenerate agreement explained in words, to print next to the figures."""
    values: dict[str, int] = figures["values"]
    rated = figures["rated_items"]
    out = []
    if rated == 0:
        return ["no item has two or more answers yet: no agreement can be computed"]
    if len(values) == 1:
        only = next(iter(values))
        out.append(
            f"α and κ are undefined: every answer was {only!r}; there is no variation to be "
            "reliable about (total agreement, but not evidence of reliability)"
        )
    else:
        share = max(values.values()) / sum(values.values())
        alpha = figures["krippendorff_alpha"]
        if share >= 0.8 and alpha is not None and alpha < 0.5:
            out.append(
                f"α is low although {100 * share:.0f}% of answers are the same value: when one "
                "value dominates, chance agreement is already high and each differing vote "
                "weighs heavily (the kappa paradox); read % unanimous too"
            )
    if rated < FEW_ITEMS:
        out.append(f"only {rated} item(s) with two or more answers: the figures are unstable")
    return out


def question_agreement(answers: pd.DataFrame) -> dict[str, Any]:
    """Every agreement figure for one question's answers (columns item, annotator, value)."""
    kappa, kappa_items = fleiss(answers)
    per_item = answers.groupby("item")["annotator"].nunique()
    figures = {
        "items": int(answers["item"].nunique()),
        "answers": len(answers),
        "annotators": int(answers["annotator"].nunique()),
        "krippendorff_alpha": krippendorff_alpha(answers),
        "fleiss_kappa": kappa,
        "fleiss_items": kappa_items,
        "percent_unanimous": percent_unanimous(answers),
        "per_annotator": per_annotator(answers),
        "rated_items": int((per_item >= 2).sum()),
        "values": {str(k): int(v) for k, v in answers["value"].astype(str).value_counts().items()},
    }
    figures["notes"] = notes(figures)
    return figures


def agreement_report(answers: pd.DataFrame, questions: list[str]) -> dict[str, Any]:
    """Agreement for each question (answers has a ``question`` column too)."""
    return {
        question: question_agreement(
            answers[answers["question"] == question][["item", "annotator", "value"]]
        )
        for question in questions
        if (answers["question"] == question).any()
    }
