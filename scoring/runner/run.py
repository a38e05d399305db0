"""``score <task>``: the items, each model's per-item rows, then the folder."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from biasforge.contract.score import write_model_identity
from biasforge.files import staged_directory
from biasforge.scoring.data import dataset_identity, load_items
from biasforge.scoring.interface import LanguageModel
from biasforge.scoring.model_spec import ModelSpec
from biasforge.scoring.runner.folder import write_folder
from biasforge.scoring.runner.lineup import RunOptions, each_model
from biasforge.scoring.runner.subsets import scored_items
from biasforge.scoring.tasks import Results, Scored, ScoringTask


@dataclass(frozen=True)
class ScoreRequest:
    """What every score command receives: the dataset, the models, the output folder and the
    shared options; ``inputs``: other files or folders the command reads (never written over)."""

    dataset: str
    models: list[ModelSpec]  # parsed once from --model
    out: Path
    options: RunOptions
    inputs: tuple[Path, ...] = ()


def run_task(
    task: ScoringTask,
    request: ScoreRequest,
    settings: Any = None,
    models_from: Callable = each_model,
) -> Path:
    """Score every model with ``task`` and write the folder; ``models_from`` yields the
    (name, model) pairs (``score import-lm-eval`` replays logged results)."""
    options = request.options
    items, removed = scored_items(load_items(request.dataset, task.family))  # issue 44
    items = task.select(items, settings, options.limit, request.dataset)
    source = dataset_identity(request.dataset)
    started = time.time()
    inputs = (Path(request.dataset), *task.inputs(settings), *request.inputs)
    with staged_directory(
        request.out, overwrite=options.overwrite, kind="score", family=task.family, inputs=inputs
    ) as stage:
        scored = {
            name: _score(task, lm, items, settings, stage / name)
            for name, lm in models_from(request.models, options.model)
        }
        run = {**options.manifest(), **task.run_options(settings, items)}
        run |= {"removed_items": removed} if removed else {}
        results = Results(source, items, scored, options.resampling, run, stage)
        write_folder(task, results, [m.listed for m in request.models], started)
    return request.out


def _score(
    task: ScoringTask, lm: LanguageModel, items: pd.DataFrame, settings: Any, folder: Path
) -> Scored:
    """One model's rows; with ``per_model``, its own folder (rows and identity.json too)."""
    began = time.time()
    if task.per_model:
        folder.mkdir(parents=True, exist_ok=True)
    answers = task.score(lm, items, settings, folder)
    if task.per_model:
        answers.rows.to_csv(folder / task.per_item, index=False)
        write_model_identity(folder, {**asdict(lm.identity), **answers.procedure})
    seconds = time.time() - began
    return Scored(answers.rows, lm.identity, answers.procedure, seconds, answers.notes)
