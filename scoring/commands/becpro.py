"""``score becpro``: associations per item by the chosen procedure, the TFG's tables with
intervals, paired comparisons, distributions — in ``report.md`` and ``report.html``.

Files: ``items.csv``, ``associations.csv`` (group × gender statistics, the mean with
``mean_low``/``mean_high``), ``summary.csv`` (P(f) − P(m) per group and model with bounds),
``comparisons.csv``, ``item_bias.csv``, the figures, ``models.json`` and ``manifest.json``.

Intervals respect the design (issue 25): the sentences cross professions × person words ×
templates, so the default bounds (``*_low``/``*_high``) come from a two-way bootstrap over
professions and person words, templates within (``biasforge.scoring.crossed``); the bounds
that treat sentences as independent draws stay beside them (``*_sentences_low``/``_high``),
and the report names both designs. An incomplete crossing (``--limit``, a reviewed release
that dropped items) falls back to resampling sentences, and the report says so.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

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
    merge_with,
    provenance_blocks,
    write_reports,
)
from biasforge.scoring.crossed import CrossedDesign
from biasforge.scoring.data import dataset_identity, load_items
from biasforge.scoring.document import (
    Document,
    Figure,
    Heading,
    Paragraph,
    Table,
    interval_table,
)
from biasforge.scoring.folders import ScoreFolder
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
TWO_WAY = "two-way"
SENTENCES = "sentences"
DESIGNS = {
    TWO_WAY: "a two-way bootstrap: professions (within their group) and person words (within "
    "their gender) drawn with replacement, independently, each drawn pair with all its "
    "templates (hand-written with numpy after Owen 2007; scipy has no crossed bootstrap)",
    SENTENCES: "sentences resampled with replacement within each profession group × person "
    "gender, as if they were independent draws (`scipy.stats.bootstrap`)",
}
MEANINGS = {
    TWO_WAY: "how much a figure would move if other professions and person words like these "
    "had been chosen",
    SENTENCES: "how much a figure would move with another draw of sentences for the same "
    "professions and person words; it ignores that sentences share them, so it is narrower",
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
        languages = sorted(items["language"].unique()) if "language" in items else []
        run = {**options.manifest(), "procedure": procedure, "languages": languages}
        write_becpro(stage, source, models, scored, identities, options.resampling, run, started)
    return out


def merge_becpro(folders: list[ScoreFolder], out: Path, overwrite: bool = False) -> Path:
    """One multi-model folder from ``score becpro`` folders of the same release, written as
    a multi-model run would write it (``score merge``)."""
    return merge_with(folders, out, overwrite, "items.csv", write_becpro)


def write_becpro(
    stage: Path,
    source: dict,
    models: list[str],
    scored: dict[str, pd.DataFrame],
    identities: list[ModelIdentity],
    resampling: Resampling,
    run: dict,
    started: float | None = None,
) -> None:
    """Every file of a ``score becpro`` folder from the models' per-item associations."""
    pd.concat([s.assign(model=n) for n, s in scored.items()]).to_csv(
        stage / "items.csv", index=False
    )
    table, summary = _tables(scored, resampling)
    table.to_csv(stage / "associations.csv", index=False)
    summary.to_csv(stage / "summary.csv", index=False)
    compared = comparisons(list(scored), partial(_pairing, scored), resampling)
    compared.to_csv(stage / "comparisons.csv", index=False)
    tables = {"associations": table, "summary": summary, "compared": compared}
    write_reports(stage, _document(source, scored, identities, tables, stage, resampling, run))
    if started is not None:
        run = {**run, "seconds": time.time() - started}
    note = {"procedure": PROCEDURE_NOTES[run["procedure"]]}
    finish(
        stage, "score becpro", source, models, identities, run, {i.name: note for i in identities}
    )


def _tables(
    scored: dict[str, pd.DataFrame], resampling: Resampling
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """TFG Tables 4.5–4.8 with the mean's interval, and P(f) − P(m) per group with its own."""
    tables, summaries = [], []
    for name, frame in scored.items():
        figures, ordered = becpro.figures(frame)
        x, design = ordered[["association"]].to_numpy().T, crossed_design(figures, ordered)
        table = becpro.association_table(frame).assign(
            design=TWO_WAY if design is not None else SENTENCES
        )
        for suffix, used in (("", design), ("_sentences", None)):
            bounds = interval_frame(figures, x, resampling, used).set_index("figure")
            for column, figure in (("mean", "{g}/{s}/mean"), ("P(f)-P(m)", "{g}/P(f)-P(m)")):
                cells = table[["profession_group", "gender"]].values
                keys = [figure.format(g=g, s=s) for g, s in cells]
                table[f"{column}{suffix}_low"] = bounds["low"].reindex(keys).to_numpy()
                table[f"{column}{suffix}_high"] = bounds["high"].reindex(keys).to_numpy()
        tables.append(table.assign(model=name))
        firsts = table.drop_duplicates("profession_group")
        difference = [c for c in firsts.columns if c.startswith("P(f)-P(m)")]
        summaries.append(firsts[["profession_group", *difference, "design"]].assign(model=name))
    table, summary = pd.concat(tables, ignore_index=True), pd.concat(summaries, ignore_index=True)
    return _model_first(table), _model_first(summary)


def crossed_design(figures: Figures, ordered: pd.DataFrame) -> CrossedDesign | None:
    """Professions × person words of the items in the figures' order; ``None`` when some
    group × gender cell is not a complete crossing (then sentences are resampled)."""
    return CrossedDesign.of(ordered["profession"], ordered["person"], figures.sizes)


def _model_first(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["model", *frame.columns.drop("model")]]


def _pairing(scored: dict[str, pd.DataFrame], a: str, b: str) -> tuple:
    """Cell means and P(f) − P(m) and the crossed design; both models scored the same items
    in the same order."""
    figures, ordered_a = becpro.figures(scored[a])
    _, ordered_b = becpro.figures(scored[b])
    xa, xb = ordered_a[["association"]].to_numpy().T, ordered_b[["association"]].to_numpy().T
    return figures, xa, xb, crossed_design(figures, ordered_a)


def _figure_id(row: dict, metric: str) -> str:
    return f"{row['model']}|{row['profession_group']}|{row.get('gender', 'all')}|{metric}"


def _document(
    source: dict,
    scored: dict[str, pd.DataFrame],
    identities: list[ModelIdentity],
    tables: dict,
    stage: Path,
    resampling: Resampling,
    run: dict,
) -> Document:
    languages = ", ".join(run.get("languages") or ["?"])
    procedure = run["procedure"]
    n_items = len(next(iter(scored.values())))
    associations, summary = tables["associations"], tables["summary"]
    procedures = {i.name: {"procedure": procedure} for i in identities}
    doc = Document("BEC-Pro associations").add(
        Paragraph(
            f"{n_items} items ({languages}). Association = "
            "log(P_target / P_prior) of the person word (Kurita et al.); P(f) − P(m) = mean "
            "association of female persons minus that of male persons. Procedure: "
            f"**{PROCEDURE_NOTES[procedure]}**."
        ),
        *provenance_blocks(source, identities, procedures),
        Heading("P(f) − P(m) by profession group (TFG Table 4.4)"),
        *design_note(resampling, set(summary["design"])),
        _side_by_side(summary),
        Heading("Associations by profession group × person gender (TFG Tables 4.5–4.8)"),
        interval_table(
            associations, ["model", "profession_group", "gender", "n"], ["mean"], _figure_id, 3
        ),
        Table(associations.drop(columns=[*_bounds(associations), "P(f)-P(m)"]), 3),
        *_plots(scored, associations, stage),
        Heading("Models compared"),
        *comparison_blocks(tables["compared"], resampling, 3),
    )
    per_item = pd.DataFrame({n: s.set_index("id")["association"] for n, s in scored.items()})
    per_item.index.name = "id"
    per_item.to_csv(stage / "item_bias.csv")
    doc.add(Heading("Distribution and correlation across models"))
    label = "association log(P_target / P_prior)"
    return doc.add(*cross_model_blocks(per_item, stage, label, "BEC-Pro"))


def design_note(resampling: Resampling, used: set[str]) -> list:
    """What the brackets mean, with the design named, in one sentence per design."""
    if not resampling.enabled:
        return [interval_note(resampling, "")]
    design = TWO_WAY if used == {TWO_WAY} else SENTENCES
    level, n, seed = f"{resampling.level:.0%}", resampling.n_resamples, resampling.seed
    text = (
        f"Intervals ({level} percentile, {n} resamples, seed {seed}) follow the crossed design "
        f"of the sentences — {DESIGNS[design]}. Such an interval says {MEANINGS[design]}."
    )
    if design == SENTENCES:
        text = (
            "The professions × person words crossing is incomplete here (some sentences "
            f"missing), so the default intervals resample sentences: {DESIGNS[SENTENCES]}. "
            f"Such an interval says {MEANINGS[SENTENCES]}."
        )
    aside = (
        f"The column *sentences* shows, beside it, {DESIGNS[SENTENCES]}: it says "
        f"{MEANINGS[SENTENCES]}."
    )
    return [Paragraph(text), Paragraph(aside)]


def _side_by_side(summary: pd.DataFrame) -> Table:
    """P(f) − P(m) with the default interval and, beside it, the sentence-level one."""
    shown = summary.rename(
        columns={
            "P(f)-P(m)_sentences_low": "P(f)-P(m) sentences_low",
            "P(f)-P(m)_sentences_high": "P(f)-P(m) sentences_high",
        }
    ).assign(**{"P(f)-P(m) sentences": summary["P(f)-P(m)"]})
    metrics = ["P(f)-P(m)", "P(f)-P(m) sentences"]
    return interval_table(shown, ["model", "profession_group", "design"], metrics, _figure_id, 3)


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
