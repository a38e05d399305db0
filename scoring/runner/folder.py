"""A score folder written from the models' per-item rows: the same code for a run and for
``score merge``, so a merged folder is the folder one run of all the models writes."""

from __future__ import annotations

import time
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from biasforge.contract.score import MODELS, write_score_manifest
from biasforge.files import write_json_atomic, write_text_atomic
from biasforge.scoring.document import Document, Heading, to_markdown
from biasforge.scoring.runner.blocks import (
    comparison_blocks,
    comparisons,
    cross_model_blocks,
    provenance_blocks,
)
from biasforge.scoring.runner.subsets import removed_note, transferred_blocks
from biasforge.scoring.tasks import Results, ScoringTask


def write_folder(
    task: ScoringTask, results: Results, listed: list[str], started: float | None = None
) -> None:
    """Every file of ``task``'s folder in ``results.stage``, the manifest last; ``listed``
    are the models as the command was given them, ``started`` when the run began (a merge
    keeps the first folder's seconds)."""
    stage, scored = results.stage, results.scored
    if not task.per_model:
        rows = pd.concat([s.rows.assign(model=name) for name, s in scored.items()])
        rows.to_csv(stage / task.per_item, index=False)
    results.tables = task.tables(results)
    for file, value in results.tables.items():
        _write(stage / file, value)
    document = Document(task.title).add(*task.intro(results))
    identities = [s.identity for s in scored.values()]
    shown = {name: task.shown(results, name) for name in scored}
    document.add(*provenance_blocks(results.source, identities, shown), *task.body(results))
    if task.compared:
        compared = comparisons(list(scored), partial(task.pairing, results), results.resampling)
        compared.to_csv(stage / "comparisons.csv", index=False)
        document.add(Heading(task.compared))
        document.add(*comparison_blocks(compared, results.resampling, task.digits))
    if task.item_bias is not None:
        document.add(*_item_bias_blocks(task, results))
    subset = transferred_blocks(task, results, _write)
    document.add(*(subset or removed_note(int(results.run.get("removed_items") or 0))))
    write_reports(stage, document)
    run = results.run if started is None else {**results.run, "seconds": time.time() - started}
    recorded = {name: task.recorded(results, name) for name in scored}
    write_json_atomic(
        stage / MODELS, [{**asdict(i), **recorded.get(i.name, {})} for i in identities]
    )
    write_score_manifest(stage, f"score {task.name}", results.source, listed, run, task.family)


def _write(path: Path, value: Any) -> None:
    """A table as CSV (no index), anything else as JSON."""
    if isinstance(value, pd.DataFrame):
        value.to_csv(path, index=False)
    else:
        write_json_atomic(path, value)


def _item_bias_blocks(task: ScoringTask, results: Results) -> list:
    """``item_bias.csv``, its distribution and (two models or more) correlation."""
    spec = task.item_bias
    assert spec is not None
    per_item = pd.DataFrame({name: task.bias(results, name) for name in results.scored})
    per_item.index.name = spec.index
    per_item.to_csv(results.stage / "item_bias.csv")
    blocks = cross_model_blocks(per_item, results.stage, spec.label, spec.what)
    return [Heading(spec.heading), *blocks]


def write_reports(stage: Path, document: Document) -> None:
    """``report.md`` and the self-contained ``report.html`` from one document."""
    from biasforge.scoring.html import to_html

    write_text_atomic(stage / "report.md", to_markdown(document))
    write_text_atomic(stage / "report.html", to_html(document, stage))
