"""``score slguset``: Bias_c per sentence and the paper's aggregates with intervals, per model.

Files: ``sentences.csv``, ``summary.csv`` and ``pairs.csv`` (each figure with ``_low`` /
``_high`` bounds), ``comparisons.csv``, ``topics.json``, ``item_bias.csv``, the figures,
``report.md``, ``report.html``, ``models.json`` and ``manifest.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from biasforge.scoring import document, plots
from biasforge.scoring.document import Figure, Heading, Paragraph, Table
from biasforge.scoring.interface import LanguageModel
from biasforge.scoring.tasks import Answers, ItemBias, Results, ScoringTask
from biasforge.scoring.tasks import slguset as procedures
from biasforge.scoring.uncertainty import interval_frame

MEANS = ("mean_bias", "mean_abs_bias", "male_degree", "female_degree")
COUNTS = ("male_leaning", "female_leaning", "clear_male", "clear_female", "not_clear")
TopK = Annotated[int, typer.Option(min=1, help="Topic words per group.")]


class SlguSet(ScoringTask):
    """Bias_c = log(p_male/p_female) per sentence, degrees, clear-bias counts, topic words,
    with bootstrap intervals and paired comparisons of models."""

    name = family = "slguset"
    title = "SlguSet gender bias"
    per_item = "sentences.csv"
    compared = "Models compared (Table 3's overall figures)"
    digits = 3
    item_bias = ItemBias(
        "bias", "Bias_c = log(p_male / p_female)", "SlguSet",
        "Distribution and correlation across models (Figures 2–3)",
    )  # fmt: skip

    def settings(self, options: object, top_k: TopK = 5) -> dict:
        return {"top_k": top_k}  # recorded in the run as it is

    def score(self, lm: LanguageModel, items: pd.DataFrame, settings: dict, folder: Path):
        """Bias_c per sentence; how it was read, and a warning (printed, and kept in
        models.json and the report) when the tokenizer does not know keyword words."""
        recorded = {"procedure": procedures.procedure(lm)}
        unknown = procedures.unknown_keywords(lm, items)
        if unknown:
            print(f"warning: {lm.name}: {unknown}", file=sys.stderr)
            recorded["unknown_keywords"] = unknown
        return Answers(procedures.score_items(lm, items), recorded)

    def tables(self, results: Results) -> dict:
        summary, pairs = _tables(results)
        top_k = int(results.run.get("top_k", 5))
        topics = {n: procedures.biased_topics(s.rows, top_k) for n, s in results.scored.items()}
        return {"summary.csv": summary, "pairs.csv": pairs, "topics.json": topics}

    def pairing(self, results: Results, a: str, b: str) -> tuple:
        """Table 3's overall figures; both models scored the same sentences in the same order."""
        figures, ordered_a = procedures.figures(results.scored[a].rows, per_pair=False)
        _, ordered_b = procedures.figures(results.scored[b].rows, per_pair=False)
        return figures, ordered_a[["bias"]].to_numpy().T, ordered_b[["bias"]].to_numpy().T

    def intro(self, results: Results) -> list:
        n = len(next(iter(results.scored.values())).rows)
        warnings = [
            Paragraph(f"**Warning** — `{name}`: {model.procedure['unknown_keywords']}")
            for name, model in results.scored.items()
            if model.procedure.get("unknown_keywords")
        ]
        return [
            Paragraph(
                f"{n} sentences. Bias_c = log(p_male / "
                "p_female) at the masked keyword (> 0 leans male). Degrees: sum of positive "
                f"(negative) Bias_c over N; clear bias: |Bias_c| > {procedures.THRESHOLD}."
            ),
            *warnings,
        ]

    def shown(self, results: Results, name: str) -> dict[str, str]:
        """The procedure in the model table (a vocabulary warning has its own paragraph)."""
        return {"procedure": results.scored[name].procedure.get("procedure", "")}

    def body(self, results: Results) -> list:
        summary, pairs = results.tables["summary.csv"], results.tables["pairs.csv"]
        return [
            Heading("Bias per model (Table 3)"),
            document.interval_note(results.resampling, "each keyword pair"),
            document.interval_table(summary, ["model", "sentences"], MEANS, _figure_id, digits=3),
            document.interval_table(summary, ["model"], COUNTS, _figure_id, digits=0),
            Heading("Per keyword pair"),
            document.interval_table(
                pairs, ["model", "pair", "sentences"], MEANS, _figure_id, digits=3
            ),
            *_plots(list(results.scored), summary, pairs, results.stage),
            Heading("Topic words of clearly biased sentences (Table 6)"),
            Table(_topic_rows(results.tables["topics.json"])),
            Heading("Most biased sentences (Tables 4–5)"),
            Table(_extremes(results), 3),
        ]


def _tables(results: Results) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 3 overall and per keyword pair per model, each figure with its interval."""
    summaries, pairs = [], []
    for name, model in results.scored.items():
        figures, ordered = procedures.figures(model.rows)
        values = interval_frame(figures, ordered[["bias"]].to_numpy().T, results.resampling)
        # "<pair>/<figure>": a pair such as 他/她 holds a slash itself
        values[["group", "figure"]] = values["figure"].str.rsplit("/", n=1, expand=True)
        sizes = ordered["pair"].value_counts()
        for group, rows in values.groupby("group", sort=False):
            record = {"model": name, "sentences": int(sizes.get(group, len(ordered)))}
            for row in rows.itertuples(index=False):
                record |= {row.figure: row.value, f"{row.figure}_low": row.low}
                record |= {f"{row.figure}_high": row.high}
            if group == "all":
                summaries.append(record)
            else:
                pairs.append({"model": name, "pair": group, **record})
    return pd.DataFrame(summaries), pd.DataFrame(pairs)


def _figure_id(row: dict, metric: str) -> str:
    return f"{row['model']}|{row.get('pair', 'all')}|{metric}"


def _plots(models: list[str], summary: pd.DataFrame, pairs: pd.DataFrame, stage: Path) -> list:
    """Mean Bias_c per pair × model (heatmap) and Table 3's means with intervals (bars)."""
    matrix = pairs.pivot_table(index="pair", columns="model", values="mean_bias", sort=False)
    plots.value_heatmap(
        matrix[models], stage / "pair_heatmap.png", "SlguSet: mean Bias_c", "mean Bias_c"
    )
    bars = [
        {
            "panel": figure,
            "category": row["model"],
            "model": row["model"],
            "value": row[figure],
            "low": row[f"{figure}_low"],
            "high": row[f"{figure}_high"],
        }
        for row in summary.to_dict("records")
        for figure in MEANS
    ]
    plots.interval_bars(pd.DataFrame(bars), stage / "summary_bars.png", "SlguSet Table 3")
    return [
        Heading("Figures"),
        Figure("pair_heatmap.png", "Mean Bias_c per keyword pair and model (> 0 leans male)"),
        Figure("summary_bars.png", "Mean Bias_c, mean |Bias_c| and degrees, with intervals"),
    ]


def _topic_rows(topics: dict) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"model": m, "leaning": lean, "method": meth, "top words": " ".join(words)}
            for m, t in topics.items()
            for lean, by in t.items()
            for meth, words in by.items()
        ]
    )


def _extremes(results: Results) -> pd.DataFrame:
    rows = []
    for name, model in results.scored.items():
        ordered = model.rows.sort_values("bias")
        for label, part in (("male", ordered.tail(5)[::-1]), ("female", ordered.head(5))):
            for r in part.itertuples(index=False):
                rows.append(
                    {"model": name, "leaning": label, "bias": r.bias}
                    | {"pair": r.pair, "sentence": r.sentence}
                )
    return pd.DataFrame(rows)


TASK = SlguSet()
