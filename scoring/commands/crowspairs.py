"""``score crowspairs``: percent of pairs where each model prefers the more-stereotypical
sentence, per bias type with bootstrap intervals, in ``report.md`` and ``report.html``.

Files: ``pairs.csv`` (both scores per pair and model), ``results.csv`` (per model and bias
type: pairs, percent, low, high, neutral, |percent − 50|), ``models.json``, ``manifest.json``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from biasforge.files import staged_directory
from biasforge.scoring.commands.common import (
    RunOptions,
    each_model,
    finish,
    interval_note,
    listed,
    provenance_blocks,
    read_scored,
    resampling_of,
    write_reports,
)
from biasforge.scoring.data import dataset_identity, load_items
from biasforge.scoring.document import Document, Heading, Paragraph, Table
from biasforge.scoring.folders import ScoreFolder
from biasforge.scoring.interface import Capability, ModelIdentity
from biasforge.scoring.tasks import crowspairs
from biasforge.scoring.uncertainty import Resampling, with_interval

ABOUT = (
    "Percent of pairs where the model scores the more-stereotypical sentence higher "
    "(Nangia et al. 2020); 50 is no preference. Scores are rounded to three decimals before "
    "they are compared and ties count as neither, as in the original `metric.py`."
)


def run_crowspairs(
    dataset: str,
    models: list[str],
    out: Path,
    options: RunOptions,
    models_from: Callable = each_model,
) -> Path:
    """Score every model and write the report folder (see the module docstring);
    ``models_from`` yields the (name, model) pairs (``score import-lm-eval`` replays results)."""
    items = load_items(dataset, "crowspairs")
    if options.limit:
        items = items.head(options.limit).reset_index(drop=True)
    source = dataset_identity(dataset)
    started = time.time()
    with staged_directory(out, overwrite=options.overwrite, kind="score") as stage:
        scored, identities, procedures = {}, [], {}
        for name, lm in models_from(models, options.model):
            scored[name] = crowspairs.score_pairs(lm, items)
            identities.append(lm.identity)
            procedures[name] = {"procedure": lm.how(Capability.SCORE_PAIR)}
        run = {**options.manifest(), "seconds": time.time() - started}
        write_crowspairs(
            stage, source, models, scored, identities, procedures, options.resampling, run
        )
    return out


def merge_crowspairs(folders: list[ScoreFolder], out: Path, overwrite: bool = False) -> Path:
    """One multi-model folder from ``score crowspairs`` folders of the same release."""
    scored, identities = read_scored(folders, "pairs.csv")
    recorded = [m for f in folders for m in f.models]
    procedures = {
        i.name: {"procedure": str(m.get("procedure", ""))}
        for i, m in zip(identities, recorded, strict=True)
    }
    run = {**folders[0].options, "merged_from": [f.path.name for f in folders]}
    with staged_directory(out, overwrite=overwrite, kind="score") as stage:
        source, resampling = folders[0].release, resampling_of(run)
        models = listed(folders)
        write_crowspairs(stage, source, models, scored, identities, procedures, resampling, run)
    return out


def write_crowspairs(
    stage: Path,
    source: dict,
    models: list[str],
    scored: dict[str, pd.DataFrame],
    identities: list[ModelIdentity],
    procedures: dict[str, dict],
    resampling: Resampling,
    run: dict,
) -> None:
    """Every file of a ``score crowspairs`` folder from the models' per-pair scores."""
    pd.concat([s.assign(model=n) for n, s in scored.items()]).to_csv(
        stage / "pairs.csv", index=False
    )
    tables = [crowspairs.results(s, resampling).assign(model=n) for n, s in scored.items()]
    table = pd.concat(tables, ignore_index=True)
    table.to_csv(stage / "results.csv", index=False)
    document = Document("CrowS-Pairs").add(
        Paragraph(ABOUT),
        *provenance_blocks(source, identities, procedures),
        Heading("Percent stereotypical by bias type"),
        Table(_shown(table), 1),
        interval_note(resampling, "bias types"),
    )
    write_reports(stage, document)
    finish(stage, "score crowspairs", source, models, identities, run, procedures)


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
