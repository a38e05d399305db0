"""Benchmark procedures, one module per family, each built only from the model interface's
generic questions (``biasforge.scoring.interface``), in the shape of lm-evaluation-harness's
tasks: the model answers "how likely is this continuation?" or "what is at these masked
positions?", the task decides what to ask and how to aggregate.

A family declares its tasks by import string in ``Family.scoring_tasks`` ("module:attr", loaded
only when the ``score`` command needs them, so the core never imports torch); ``load_task``
resolves one. A ``ScoringTask`` is the ``score`` subcommand: its name, its help, and a
``command(request, **own_options)`` whose extra parameters are typer-annotated options; the
model and run options every command shares are declared once in ``biasforge.scoring.options``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from biasforge.errors import BiasforgeError
from biasforge.families.base import load_object


@dataclass(frozen=True)
class ScoreRequest:
    """What every score command receives: the dataset, the models, the output folder and the
    shared options (``biasforge.scoring.commands.common.RunOptions``)."""

    dataset: str
    models: list[str]
    out: Path
    options: object


@dataclass(frozen=True)
class ScoringTask:
    """One ``score`` subcommand a family declares (see the module docstring)."""

    name: str
    help: str
    command: Callable[..., object]


def load_task(reference: str) -> ScoringTask:
    """The task object named by ``"module:attr"``; one clear error when it cannot be found."""
    task = load_object(reference, "scoring task")
    if not isinstance(task, ScoringTask):
        raise BiasforgeError(f"scoring task {reference!r} is not a ScoringTask")
    return task
