"""``score crowspairs``: percent of pairs where each model prefers the more-stereotypical
sentence, per bias type with bootstrap intervals, in ``report.md`` and ``report.html``.

Files: ``pairs.csv`` (both scores per pair and model), ``results.csv`` (per model and bias
type: pairs, percent, low, high, neutral, |percent − 50|), ``models.json``, ``manifest.json``.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from biasforge.files import staged_directory
from biasforge.scoring.commands.common import (
    RunOptions,
    each_model,
    finish,
    interval_note,
    provenance_blocks,
    write_reports,
)
from biasforge.scoring.data import dataset_identity, load_items
from biasforge.scoring.document import Document, Heading, Paragraph, Table
from biasforge.scoring.interface import Capability
from biasforge.scoring.tasks import crowspairs
from biasforge.scoring.uncertainty import with_interval

ABOUT = (
    "Percent of pairs where the model scores the more-stereotypical sentence higher "
    "(Nangia et al. 2020); 50 is no preference. Scores are rounded to three decimals before "
    "they are compared and ties count as neither, as in the original `metric.py`."
)


def run_crowspairs(dataset: str, models: list[str], out: Path, options: RunOptions) -> Path:
    """Score every model and write the report folder (see the module docstring)."""
    items = load_items(dataset, "crowspairs")
    if options.limit:
        items = items.head(options.limit).reset_index(drop=True)
    source = dataset_identity(dataset)
    started = time.time()
    with staged_directory(out, overwrite=options.overwrite, kind="score") as stage:
        pairs, tables, identities, procedures = [], [], [], {}
        for name, lm in each_model(models, options.model):
            scored = crowspairs.score_pairs(lm, items)
            pairs.append(scored.assign(model=name))
            tables.append(crowspairs.results(scored, options.resampling).assign(model=name))
            identities.append(lm.identity)
            procedures[name] = {"procedure": lm.how(Capability.SCORE_PAIR)}
        pd.concat(pairs).to_csv(stage / "pairs.csv", index=False)
        table = pd.concat(tables, ignore_index=True)
        table.to_csv(stage / "results.csv", index=False)
        document = Document("CrowS-Pairs").add(
            Paragraph(ABOUT),
            *provenance_blocks(source, identities, procedures),
            Heading("Percent stereotypical by bias type"),
            Table(_shown(table), 1),
            interval_note(options.resampling, "bias types"),
        )
        write_reports(stage, document)
        finish(stage, "score crowspairs", source, models, identities, {
            **options.manifest(), "seconds": time.time() - started})  # fmt: skip
    return out


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
