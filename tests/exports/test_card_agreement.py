"""Issue 37, item 8: the card's agreement table gave one item count although Fleiss' κ used
fewer items than α; each figure now shows how many items it was computed on."""

from __future__ import annotations

import pandas as pd

from biasforge.annotation.review.agreement import question_agreement
from biasforge.annotation.review.report import agreement_md as report_agreement_md
from biasforge.exports.card import agreement_md


def answers() -> pd.DataFrame:
    """Items 1-3 answered by three annotators, item 4 by two, item 5 by one: α and %
    unanimous use the 4 items with two or more answers, κ the 3 with three answers (the most
    common number), and 5 items were answered."""
    rows = [(1, "a", "yes"), (1, "b", "yes"), (1, "c", "no"),
            (2, "a", "no"), (2, "b", "no"), (2, "c", "no"),
            (3, "a", "yes"), (3, "b", "no"), (3, "c", "yes"),
            (4, "a", "yes"), (4, "b", "yes"),
            (5, "a", "no")]  # fmt: skip
    return pd.DataFrame(rows, columns=["item", "annotator", "value"])


def _row(table: str, question: str) -> list[str]:
    line = next(line for line in table.splitlines() if line.startswith(f"| {question} "))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_each_agreement_figure_names_the_items_it_used():
    figures = question_agreement(answers())
    assert (figures["items"], figures["rated_items"], figures["fleiss_items"]) == (5, 4, 3)
    card = agreement_md({"questions": {"grammatical": figures}})
    _, items, annotators, alpha, kappa, unanimous = _row(card, "grammatical")
    assert (items, annotators) == ("5", "3")
    assert alpha.endswith(" (4)") and kappa.endswith(" (3)") and unanimous == "50.0 (4)"
    assert "Krippendorff's α (items)" in card and "Fleiss' κ only those" in card
    report = "\n".join(report_agreement_md({"grammatical": figures}))
    cells = _row(report, "grammatical")
    assert cells[1:5] == ["5", alpha, kappa, "50.0 (4)"]
