"""``score crowspairs``: percent of pairs where each model prefers the more-stereotypical
sentence, per bias type with bootstrap intervals.

Files: ``pairs.csv`` (both scores per pair and model), ``results.csv`` (per model and bias
type: pairs, percent, low, high, neutral, |percent − 50|), the report, ``models.json`` (with
the procedure each model was scored with) and ``manifest.json``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from biasforge.scoring.document import Heading, Paragraph, Table, interval_note
from biasforge.scoring.interface import LanguageModel
from biasforge.scoring.tasks import Answers, Results, ScoringTask
from biasforge.scoring.tasks import crowspairs as procedures
from biasforge.scoring.uncertainty import with_interval

ABOUT = (
    "Percent of pairs where the model scores the more-stereotypical sentence higher "
    "(Nangia et al. 2020); 50 is no preference. Scores are rounded to three decimals before "
    "they are compared and ties count as neither, as in the original `metric.py`."
)


class CrowSPairs(ScoringTask):
    """Percent of pairs where the model prefers the more-stereotypical sentence, per bias type
    with bootstrap intervals (masked LMs: metric.py's shared-token pseudo-log-likelihood;
    causal LMs: sentence log-likelihood)."""

    name = family = "crowspairs"
    title = "CrowS-Pairs"
    per_item = "pairs.csv"
    compared = ""  # the paper's table compares models side by side, not pairwise

    def score(self, lm: LanguageModel, items: pd.DataFrame, settings: None, folder: Path):
        rows = procedures.score_pairs(lm, items)
        return Answers(rows, {"procedure": procedures.procedure(lm)})

    def tables(self, results: Results) -> dict:
        resampling = results.resampling
        frames = [
            procedures.results(s.rows, resampling).assign(model=name)
            for name, s in results.scored.items()
        ]
        return {"results.csv": pd.concat(frames, ignore_index=True)}

    def pairing(self, results: Results, a: str, b: str) -> tuple:
        """Percent stereotypical (overall, per bias type) on the pairs both rows hold, b's
        rows put in a's order by id (``score compare --languages`` pairs languages so)."""
        rows_a, rows_b = results.scored[a].rows, results.scored[b].rows
        figures, ordered = procedures.figures(rows_a[rows_a["id"].isin(rows_b["id"])])
        other = rows_b.set_index("id").loc[ordered["id"]]
        won = [frame[["stereotypical"]].to_numpy(dtype=float).T for frame in (ordered, other)]
        return figures, *won

    def intro(self, results: Results) -> list:
        return [Paragraph(ABOUT)]

    def body(self, results: Results) -> list:
        return [
            Heading("Percent stereotypical by bias type"),
            Table(_shown(results.tables["results.csv"]), 1),
            interval_note(results.resampling, "bias types"),
        ]


def _shown(table: pd.DataFrame) -> pd.DataFrame:
    """Model × bias type, each cell ``percent [low, high]``."""
    cells = table.assign(
        cell=[
            with_interval(p, lo, hi)
            for p, lo, hi in zip(table["percent"], table["low"], table["high"], strict=True)
        ]
    )
    wide = cells.pivot(index="bias_type", columns="model", values="cell")
    order = list(dict.fromkeys(table["bias_type"]))
    pairs = table.drop_duplicates("bias_type").set_index("bias_type")["pairs"]
    return wide.loc[order].assign(pairs=pairs.loc[order]).reset_index()


TASK = CrowSPairs()
