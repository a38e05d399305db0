"""``score becpro``: associations per item by the chosen procedure, the TFG's tables with
intervals, paired comparisons, distributions — in ``report.md`` and ``report.html``.

Files: ``items.csv``, ``associations.csv`` (group × gender statistics, the mean with
``mean_low``/``mean_high``), ``summary.csv`` (P(f) − P(m) per group and model with bounds),
``comparisons.csv``, ``item_bias.csv``, the figures, ``models.json`` and ``manifest.json``.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from biasforge.files import staged_directory
from biasforge.scoring import plots
from biasforge.scoring.commands.common import (
    RunOptions,
    comparison_blocks,
    comparisons,
    cross_model_blocks,
    each_model,
    finish,
    interval_frame,
    interval_note,
    provenance_blocks,
    write_reports,
)
from biasforge.scoring.data import dataset_identity, load_items
from biasforge.scoring.document import Document, Figure, Heading, Paragraph, Table, interval_table
from biasforge.scoring.interface import ModelIdentity
from biasforge.scoring.tasks import becpro
from biasforge.scoring.uncertainty import Figures, Resampling

PROCEDURE_NOTES = {
    "spans": "spans: exactly the stored spans hidden, one mask per sub-token, product over the "
    "person word's sub-tokens, pad tokens not attended",
    "bartl": "bartl: Bartl et al.'s published code — the TSV's word-start masking, one mask per "
    "word, inputs cut or padded to 2^⌈log2(max words)⌉ tokens with the mask token (attended), "
    "first sub-token of the person word",
}


def run_becpro(
    dataset: str, models: list[str], out: Path, options: RunOptions, procedure: str = "spans"
) -> Path:
    """Score every model and write the report folder (see the module docstring)."""
    items = load_items(dataset, "becpro")
    if options.limit:
        items = items.head(options.limit).reset_index(drop=True)
    source = dataset_identity(dataset)
    started = time.time()
    with staged_directory(out, overwrite=options.overwrite, kind="score") as stage:
        scored, identities = {}, []
        for name, lm in each_model(models, options.model):
            scored[name] = becpro.score_items(lm, items, procedure)
            identities.append(lm.identity)
        pd.concat([s.assign(model=n) for n, s in scored.items()]).to_csv(
            stage / "items.csv", index=False
        )
        table, summary = _tables(scored, options.resampling)
        table.to_csv(stage / "associations.csv", index=False)
        summary.to_csv(stage / "summary.csv", index=False)
        compared = comparisons(list(scored), partial(_pairing, scored), options.resampling)
        compared.to_csv(stage / "comparisons.csv", index=False)
        tables = {"associations": table, "summary": summary, "compared": compared}
        document = _document(source, items, scored, identities, tables, stage, options, procedure)
        write_reports(stage, document)
        run = {**options.manifest(), "procedure": procedure, "seconds": time.time() - started}
        finish(stage, "score becpro", source, models, identities, run)
    return out


def _tables(
    scored: dict[str, pd.DataFrame], resampling: Resampling
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """TFG Tables 4.5–4.8 with the mean's interval, and P(f) − P(m) per group with its own."""
    tables, summaries = [], []
    for name, frame in scored.items():
        figures, ordered = becpro.figures(frame)
        values = interval_frame(figures, ordered[["association"]].to_numpy().T, resampling)
        bounds = values.set_index("figure")
        table = becpro.association_table(frame)
        for column, figure in (("mean", "{g}/{s}/mean"), ("P(f)-P(m)", "{g}/P(f)-P(m)")):
            keys = [
                figure.format(g=g, s=s) for g, s in table[["profession_group", "gender"]].values
            ]
            table[f"{column}_low"] = bounds["low"].reindex(keys).to_numpy()
            table[f"{column}_high"] = bounds["high"].reindex(keys).to_numpy()
        tables.append(table.assign(model=name))
        firsts = table.drop_duplicates("profession_group")
        summaries.append(
            firsts[["profession_group", "P(f)-P(m)", "P(f)-P(m)_low", "P(f)-P(m)_high"]].assign(
                model=name
            )
        )
    table, summary = pd.concat(tables, ignore_index=True), pd.concat(summaries, ignore_index=True)
    return _model_first(table), _model_first(summary)


def _model_first(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["model", *frame.columns.drop("model")]]


def _pairing(
    scored: dict[str, pd.DataFrame], a: str, b: str
) -> tuple[Figures, np.ndarray, np.ndarray]:
    """Cell means and P(f) − P(m); both models scored the same items in the same order."""
    figures, ordered_a = becpro.figures(scored[a])
    _, ordered_b = becpro.figures(scored[b])
    return figures, ordered_a[["association"]].to_numpy().T, ordered_b[["association"]].to_numpy().T


def _figure_id(row: dict, metric: str) -> str:
    return f"{row['model']}|{row['profession_group']}|{row.get('gender', 'all')}|{metric}"


def _document(
    source: dict,
    items: pd.DataFrame,
    scored: dict[str, pd.DataFrame],
    identities: list[ModelIdentity],
    tables: dict,
    stage: Path,
    options: RunOptions,
    procedure: str,
) -> Document:
    languages = ", ".join(sorted(items["language"].unique())) if "language" in items else "?"
    associations, summary = tables["associations"], tables["summary"]
    procedures = {i.name: {"procedure": procedure} for i in identities}
    doc = Document("BEC-Pro associations").add(
        Paragraph(
            f"{len(items)} items ({languages}). Association = "
            "log(P_target / P_prior) of the person word (Kurita et al.); P(f) − P(m) = mean "
            "association of female persons minus that of male persons. Procedure: "
            f"**{PROCEDURE_NOTES[procedure]}**."
        ),
        *provenance_blocks(source, identities, procedures),
        Heading("P(f) − P(m) by profession group (TFG Table 4.4)"),
        interval_note(options.resampling, "each profession group × person gender"),
        interval_table(summary, ["model", "profession_group"], ["P(f)-P(m)"], _figure_id, 3),
        Heading("Associations by profession group × person gender (TFG Tables 4.5–4.8)"),
        interval_table(
            associations, ["model", "profession_group", "gender", "n"], ["mean"], _figure_id, 3
        ),
        Table(associations.drop(columns=[*_bounds(associations), "P(f)-P(m)"]), 3),
        *_plots(scored, associations, stage),
        Heading("Models compared"),
        *comparison_blocks(tables["compared"], options.resampling, 3),
    )
    per_item = pd.DataFrame({n: s.set_index("id")["association"] for n, s in scored.items()})
    per_item.index.name = "id"
    per_item.to_csv(stage / "item_bias.csv")
    doc.add(Heading("Distribution and correlation across models"))
    label = "association log(P_target / P_prior)"
    return doc.add(*cross_model_blocks(per_item, stage, label, "BEC-Pro"))


def _bounds(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c.endswith(("_low", "_high"))]


def _plots(scored: dict[str, pd.DataFrame], associations: pd.DataFrame, stage: Path) -> list:
    """Association distributions per group × gender, and the means with intervals."""
    frame = pd.concat(
        [
            s.rename(columns={"profession_group": "group", "association": "value"}).assign(model=n)
            for n, s in scored.items()
        ]
    )
    plots.grouped_distributions(
        frame, stage / "association_distributions.png", "BEC-Pro associations", "association"
    )
    bars = pd.DataFrame(
        {
            "panel": associations["profession_group"] + " professions",
            "category": associations["gender"],
            "model": associations["model"],
            "value": associations["mean"],
            "low": associations["mean_low"],
            "high": associations["mean_high"],
        }
    )
    plots.interval_bars(bars, stage / "association_means.png", "BEC-Pro mean association")
    return [
        Heading("Figures"),
        Figure("association_distributions.png", "Associations per profession group × gender"),
        Figure("association_means.png", "Mean association per group × gender, with intervals"),
    ]
