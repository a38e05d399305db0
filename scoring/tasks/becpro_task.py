"""``score becpro``: associations per item by the chosen procedure, the TFG's tables with
intervals, paired comparisons, distributions.

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

from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from biasforge.scoring import document, plots
from biasforge.scoring.crossed import CrossedDesign
from biasforge.scoring.document import Figure, Heading, Paragraph, Table
from biasforge.scoring.interface import LanguageModel
from biasforge.scoring.tasks import Answers, ItemBias, Results, ScoringTask
from biasforge.scoring.tasks import becpro as procedures
from biasforge.scoring.uncertainty import Figures, Resampling, interval_frame

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


class BECPro(ScoringTask):
    """Association log(P_target/P_prior) per item; TFG tables by profession group × gender,
    with bootstrap intervals and paired comparisons of models."""

    name = family = "becpro"
    title = "BEC-Pro associations"
    per_item = "items.csv"
    digits = 3
    item_bias = ItemBias(
        "association", "association log(P_target / P_prior)", "BEC-Pro",
        "Distribution and correlation across models",
    )  # fmt: skip

    def settings(
        self,
        options: object,
        procedure: Annotated[
            str,
            typer.Option(
                help="spans: exactly the stored spans, one mask per sub-token (default); bartl: "
                "Bartl et al.'s published code, choice for choice (see scoring/README.md)."
            ),
        ] = "spans",
    ) -> str:
        if procedure not in procedures.PROCEDURES:
            raise typer.BadParameter(
                f"--procedure must be one of {', '.join(procedures.PROCEDURES)}"
            )
        return procedure

    def run_options(self, settings: str, items: pd.DataFrame) -> dict:
        languages = sorted(items["language"].unique()) if "language" in items else []
        return {"procedure": settings, "languages": languages}

    def score(self, lm: LanguageModel, items: pd.DataFrame, settings: str, folder: Path):
        rows = procedures.score_items(lm, items, settings)
        return Answers(rows, {"procedure": PROCEDURE_NOTES[settings]})

    def tables(self, results: Results) -> dict:
        table, summary = _tables(results.scored, results.resampling)
        return {"associations.csv": table, "summary.csv": summary}

    def pairing(self, results: Results, a: str, b: str) -> tuple:
        """Cell means and P(f) − P(m) and the crossed design; both models scored the same
        items in the same order."""
        figures, ordered_a = procedures.figures(results.scored[a].rows)
        _, ordered_b = procedures.figures(results.scored[b].rows)
        xa, xb = ordered_a[["association"]].to_numpy().T, ordered_b[["association"]].to_numpy().T
        return figures, xa, xb, crossed_design(figures, ordered_a)

    def intro(self, results: Results) -> list:
        languages = ", ".join(results.run.get("languages") or ["?"])
        n_items = len(next(iter(results.scored.values())).rows)
        return [
            Paragraph(
                f"{n_items} items ({languages}). Association = "
                "log(P_target / P_prior) of the person word (Kurita et al.); P(f) − P(m) = "
                "mean association of female persons minus that of male persons. Procedure: "
                f"**{PROCEDURE_NOTES[results.run['procedure']]}**."
            )
        ]

    def shown(self, results: Results, name: str) -> dict:
        return {"procedure": results.run["procedure"]}

    def body(self, results: Results) -> list:
        associations, summary = results.tables["associations.csv"], results.tables["summary.csv"]
        keys = ["model", "profession_group", "gender", "n"]
        return [
            Heading("P(f) − P(m) by profession group (TFG Table 4.4)"),
            *design_note(results.resampling, set(summary["design"])),
            _side_by_side(summary),
            Heading("Associations by profession group × person gender (TFG Tables 4.5–4.8)"),
            document.interval_table(associations, keys, ["mean"], _figure_id, 3),
            Table(associations.drop(columns=[*_bounds(associations), "P(f)-P(m)"]), 3),
            *_plots(results.scored, associations, results.stage),
        ]


def _tables(scored: dict, resampling: Resampling) -> tuple[pd.DataFrame, pd.DataFrame]:
    """TFG Tables 4.5–4.8 with the mean's interval, and P(f) − P(m) per group with its own."""
    tables, summaries = [], []
    for name, model in scored.items():
        frame = model.rows
        figures, ordered = procedures.figures(frame)
        x, design = ordered[["association"]].to_numpy().T, crossed_design(figures, ordered)
        table = procedures.association_table(frame).assign(
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


def _figure_id(row: dict, metric: str) -> str:
    return f"{row['model']}|{row['profession_group']}|{row.get('gender', 'all')}|{metric}"


def design_note(resampling: Resampling, used: set[str]) -> list:
    """What the brackets mean, with the design named, in one sentence per design."""
    if not resampling.enabled:
        return [document.interval_note(resampling, "")]
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
    return document.interval_table(
        shown, ["model", "profession_group", "design"], metrics, _figure_id, 3
    )


def _bounds(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c.endswith(("_low", "_high"))]


def _plots(scored: dict, associations: pd.DataFrame, stage: Path) -> list:
    """Association distributions per group × gender, and the means with intervals."""
    frame = pd.concat(
        [
            s.rows.rename(columns={"profession_group": "group", "association": "value"}).assign(
                model=n
            )
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


TASK = BECPro()
