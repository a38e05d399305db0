"""StereoSet (Nadeem et al. 2021; the French paper): the ``score stereoset`` task."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.scoring.tasks import ScoreRequest, ScoringTask

SPLITS = ("intrasentence", "intersentence", "all")


def command(
    request: ScoreRequest,
    split: Annotated[str, typer.Option(help="intrasentence | intersentence | all")] = "all",
    nsp_corpus: Annotated[
        Path | None,
        typer.Option(
            help="Corpus for intersentence NSP: UTF-8, one sentence per line, a blank line "
            "between documents (the paper used French Wikipedia)."
        ),
    ] = None,
    nsp_train: Annotated[
        str,
        typer.Option(
            help="finetune: fine-tune a copy of the model with an NSP head on --nsp-corpus "
            "(the paper's procedure); head: train only a linear head on the frozen model."
        ),
    ] = "head",
    nsp_steps: Annotated[int, typer.Option(min=1, help="NSP optimiser steps.")] = 200,
    nsp_batch: Annotated[int, typer.Option(min=1, help="NSP fine-tuning batch size.")] = 16,
    nsp_lr: Annotated[
        float, typer.Option(help="NSP fine-tuning learning rate of the model.")
    ] = 5e-6,
    nsp_head_lr: Annotated[
        float, typer.Option(help="NSP fine-tuning learning rate of the head.")
    ] = 1e-3,
    nsp_head: Annotated[
        Path | None,
        typer.Option(help="Reuse an NSP head saved by an earlier run (<out>/<model>/nsp_head.pt)."),
    ] = None,
) -> None:
    """LMS, SS and ICAT (official StereoSet procedure and evaluator) per domain and split,
    with bootstrap intervals and paired comparisons of models."""
    from biasforge.scoring.commands import NSPOptions, run_stereoset
    from biasforge.scoring.interface import NSPTraining

    if split not in SPLITS:
        raise typer.BadParameter("split must be intrasentence, intersentence or all")
    if nsp_train not in ("head", "finetune"):
        raise typer.BadParameter("--nsp-train must be finetune or head")
    if nsp_train == "finetune" and (nsp_corpus is None or nsp_head is not None):
        raise typer.BadParameter("--nsp-train finetune needs --nsp-corpus (and no --nsp-head)")
    options = request.options
    training = NSPTraining(
        steps=nsp_steps,
        batch_size=nsp_batch,
        core_lr=nsp_lr,
        head_lr=nsp_head_lr,
        seed=options.resampling.seed,
    )
    nsp = NSPOptions(nsp_train, nsp_corpus, nsp_head, training)
    run_stereoset(request.dataset, request.models, request.out, options, split, nsp)


TASK = ScoringTask("stereoset", command.__doc__ or "", command)
