"""The toy family's scoring task, written the way a maintainer adds one: a ``ScoringTask``
built from the model interface's generic question (log-likelihood of a continuation), named
in ``FAMILY.scoring_tasks`` and so listed and run by ``biasforge score toy``."""

from __future__ import annotations

from typing import Annotated

import typer

from biasforge.scoring.tasks import ScoreRequest, ScoringTask


def command(
    request: ScoreRequest,
    digits: Annotated[int, typer.Option(min=0, help="Decimals shown in the report.")] = 3,
) -> None:
    """Mean token log-probability of each toy sentence (from the model's start token), and
    its mean per register."""
    import numpy as np
    import pandas as pd

    from biasforge.files import staged_directory
    from biasforge.scoring.commands.common import each_model, write_reports
    from biasforge.scoring.data import load_items
    from biasforge.scoring.document import Document, Table

    items = load_items(request.dataset, "toy")
    options = request.options
    frames = []
    with staged_directory(request.out, overwrite=options.overwrite, kind="score") as stage:
        for name, lm in each_model(request.models, options.model):
            logps = lm.continuation_logprobs([("", s) for s in items["sentence"]])
            means = [float(np.mean(lp)) for lp in logps]
            frames.append(items[["id", "register"]].assign(model=name, mean_logprob=means))
        scores = pd.concat(frames, ignore_index=True)
        scores.to_csv(stage / "scores.csv", index=False)
        table = scores.groupby(["model", "register"], as_index=False)["mean_logprob"].mean()
        write_reports(stage, Document("Toy requests").add(Table(table, digits)))


TASK = ScoringTask("toy", command.__doc__ or "", command)
