"""BEC-Pro (Bartl et al. 2020; Azpillaga Rivera 2021): the ``score becpro`` task."""

from __future__ import annotations

from typing import Annotated

import typer

from biasforge.scoring.tasks import ScoreRequest, ScoringTask

PROCEDURES = ("spans", "bartl")


def command(
    request: ScoreRequest,
    procedure: Annotated[
        str,
        typer.Option(
            help="spans: exactly the stored spans, one mask per sub-token (default); bartl: "
            "Bartl et al.'s published code, choice for choice (see scoring/README.md)."
        ),
    ] = "spans",
) -> None:
    """Association log(P_target/P_prior) per item; TFG tables by profession group × gender,
    with bootstrap intervals and paired comparisons of models."""
    from biasforge.scoring.commands import run_becpro

    if procedure not in PROCEDURES:
        raise typer.BadParameter(f"--procedure must be one of {', '.join(PROCEDURES)}")
    run_becpro(request.dataset, request.models, request.out, request.options, procedure)


TASK = ScoringTask("becpro", command.__doc__ or "", command)
