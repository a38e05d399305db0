"""SlguSet (Zhao et al.): the ``score slguset`` task."""

from __future__ import annotations

from typing import Annotated

import typer

from biasforge.scoring.tasks import ScoreRequest, ScoringTask


def command(
    request: ScoreRequest,
    top_k: Annotated[int, typer.Option(min=1, help="Topic words per group.")] = 5,
) -> None:
    """Bias_c = log(p_male/p_female) per sentence, degrees, clear-bias counts, topic words,
    with bootstrap intervals and paired comparisons of models."""
    from biasforge.scoring.commands import run_slguset

    run_slguset(request.dataset, request.models, request.out, request.options, top_k)


TASK = ScoringTask("slguset", command.__doc__ or "", command)
