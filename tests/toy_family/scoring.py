"""The toy family's scoring task, written the way a maintainer adds one: a ``ScoringTask`` that
asks the model interface's generic question (log-likelihood of a continuation) and declares
its per-item columns and its figure (the mean per register, with bootstrap intervals); named
in ``FAMILY.scoring_tasks``, it is listed and run by ``biasforge score toy``, merged by
``score merge`` and replayed from lm-eval results by ``score import-lm-eval`` (the runner's)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import pandas as pd
import typer

from biasforge.scoring.document import Heading, Table, interval_table
from biasforge.scoring.tasks import Answers, ItemBias, Results, ScoringTask
from biasforge.scoring.uncertainty import Figures, interval_frame

Digits = Annotated[int, typer.Option(min=0, help="Decimals shown in the report.")]


class Toy(ScoringTask):
    """Mean token log-probability of each toy sentence (from the model's start token), and
    its mean per register."""

    name = family = "toy"
    title = "Toy requests"
    per_item = "scores.csv"
    item_bias = ItemBias("mean_logprob", "mean token log-probability", "Toy", "Per sentence")

    def settings(self, options: object, digits: Digits = 3) -> dict:
        return {"digits": digits}  # recorded in the run as it is

    def score(self, lm, items: pd.DataFrame, settings: dict, folder: Path) -> Answers:
        logps = lm.continuation_logprobs([("", s) for s in items["sentence"]])
        means = [float(np.mean(lp)) for lp in logps]
        return Answers(items[["id", "register"]].assign(mean_logprob=means))

    def tables(self, results: Results) -> dict:
        frames = []
        for name, model in results.scored.items():
            figures, ordered = _figures(model.rows)
            x = ordered[["mean_logprob"]].to_numpy().T
            table = interval_frame(figures, x, results.resampling)
            frames.append(table.rename(columns={"figure": "register"}).assign(model=name))
        return {"registers.csv": pd.concat(frames, ignore_index=True)}

    def pairing(self, results: Results, a: str, b: str) -> tuple:
        figures, first = _figures(results.scored[a].rows)
        _, second = _figures(results.scored[b].rows)
        return figures, *(o[["mean_logprob"]].to_numpy().T for o in (first, second))

    def body(self, results: Results) -> list:
        table = results.tables["registers.csv"]
        shown = interval_table(
            table, ["model", "register"], ["value"], lambda r, m: f"{r['model']}|{r['register']}",
            int(results.run.get("digits", 3)),
        )  # fmt: skip
        return [Heading("Mean log-probability per register"), shown, Table(table, 4)]


def _figures(rows: pd.DataFrame) -> tuple[Figures, pd.DataFrame]:
    """The mean per register, sentences ordered register by register (the strata)."""
    ordered = rows.sort_values("register", kind="stable").reset_index(drop=True)
    sizes = ordered.groupby("register", sort=True).size()
    cuts = np.cumsum(sizes.to_numpy())[:-1]

    def compute(x: np.ndarray) -> np.ndarray:
        return np.stack([part.mean(axis=-1) for part in np.split(x[0], cuts, axis=-1)])

    return Figures(tuple(sizes.index), tuple(int(n) for n in sizes), compute), ordered


TASK = Toy()
