"""``score merge``: score folders of one release, each scored on its own (here or on another
machine), re-aggregated into one multi-model folder — the per-item rows are read back and the
folder written by the runner's one writer, as one ``score`` run of all the models writes it.

Each folder is verified through the score-folder contract, given once, and all must come from
the same command, release (name, version, sha256), procedure, ``--limit`` and ``--split``
(``biasforge.contract.score.check_combinable``); ``--out`` is none of them (nor in or around
one, even with ``--overwrite``). The task that wrote them is found by the
command's name among the tasks the registered families declare.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

from biasforge.contract.score import (
    IDENTITY,
    ScoreFolder,
    check_combinable,
    read_model_identity,
    read_score_folder,
    write_model_identity,
)
from biasforge.errors import BiasforgeError, InputError
from biasforge.files import staged_directory
from biasforge.scoring.interface import ModelIdentity
from biasforge.scoring.runner.folder import write_folder
from biasforge.scoring.runner.lineup import free_name, resampling_of
from biasforge.scoring.tasks import Results, Scored, ScoringTask, registered_tasks

KNOWN = {f.name for f in fields(ModelIdentity)}


def merge(folders: Sequence[Path], out: Path, overwrite: bool = False) -> Path:
    """Verify, check and combine ``folders`` into ``out`` (see the module docstring)."""
    if len(folders) < 2:
        raise BiasforgeError("score merge needs at least two score folders")
    read = [read_score_folder(f) for f in folders]
    check_combinable(read)
    task = task_of(read[0])
    run = {**read[0].options, "merged_from": [f.path.name for f in read]}
    with staged_directory(
        Path(out), overwrite=overwrite, kind="score", family=task.family, inputs=folders
    ) as stage:
        scored = scored_models(task, read, stage)
        items = task.items_from_rows([s.rows for s in scored.values()])
        results = Results(read[0].release, items, scored, resampling_of(run), run, stage)
        write_folder(task, results, [m for f in read for m in f.listed])
    return Path(out)


def task_of(folder: ScoreFolder) -> ScoringTask:
    """The registered task whose command wrote ``folder``; one line naming those that merge."""
    tasks = {f"score {t.name}": t for t in registered_tasks().values()}
    if folder.command not in tasks:
        known = ", ".join(f"'{c}'" for c in sorted(tasks))
        raise InputError(
            folder.path,
            f"'{folder.command}' folders do not merge: no registered family "
            f"declares that task ({known} do)",
        )
    return tasks[folder.command]


def scored_models(task: ScoringTask, folders: list[ScoreFolder], stage: Path) -> dict[str, Scored]:
    """Each model's rows, identity and procedure, renamed as one run names a repeated model;
    per-model folders are copied as they are."""
    scored: dict[str, Scored] = {}
    for folder in folders:
        table = None if task.per_model else task.read_rows(folder.path / task.per_item)
        for entry in folder.models:
            recorded = str(entry.get("name") or "model")
            name = free_name(recorded, scored)
            if table is None:
                rows, extra = _model_folder(task, folder.path / recorded, stage / name, name)
            else:
                rows = table[table["model"] == entry.get("name")].drop(columns="model")
                rows, extra = _aligned(rows.reset_index(drop=True), scored, folder.path), entry
            identity = ModelIdentity(
                **{k: v for k, v in entry.items() if k in KNOWN} | {"name": name}
            )
            procedure = {k: str(v) for k, v in extra.items() if k not in KNOWN}
            scored[name] = Scored(rows, identity, procedure)
    return scored


def _model_folder(task: ScoringTask, source: Path, target: Path, name: str):
    """A model's own folder: its rows and identity.json, copied under its merged name."""
    if not (source / task.per_item).is_file() or not (source / IDENTITY).is_file():
        raise InputError(
            source,
            f"no {task.per_item} or {IDENTITY} (is it a model folder of 'score {task.name}'?)",
        )
    rows = task.read_rows(source / task.per_item)
    shutil.copytree(source, target)
    identity = read_model_identity(target)
    if identity.get("name") != name:
        write_model_identity(target, {**identity, "name": name})
    return rows, identity


def _aligned(rows, scored: dict[str, Scored], where: Path):
    """``rows`` in the item order of the models read before (by their ``id``); refused if the
    items differ."""
    if not scored or "id" not in rows.columns:
        return rows
    first = next(iter(scored.values())).rows["id"]
    if len(rows) != len(first) or set(rows["id"]) != set(first):
        raise InputError(
            where, f"its models scored {len(rows)} items, not the {len(first)} of the others"
        )
    return rows.iloc[rows.set_index("id").index.get_indexer(first)].reset_index(drop=True)
