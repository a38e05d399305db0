"""``score slguset``: Bias_c per sentence and the paper's aggregates with intervals, per model.

Files: ``sentences.csv``, ``summary.csv`` and ``pairs.csv`` (each figure with ``_low`` /
``_high`` bounds), ``comparisons.csv``, ``topics.json``, ``item_bias.csv``, the figures,
``report.md``, ``report.html``, ``models.json`` and ``manifest.json``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from biasforge.files import staged_directory, write_json_atomic
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
from biasforge.scoring.data import dataset_identity, load_items
from biasforge.scoring.document import Document, Figure, Heading, Paragraph, Table, interval_table
from biasforge.scoring.folders import ScoreFolder
from biasforge.scoring.interface import ModelIdentity
from biasforge.scoring.tasks import slguset
from biasforge.scoring.uncertainty import Figures, Resampling

MEANS = ("mean_bias", "mean_abs_bias", "male_degree", "female_degree")
COUNTS = ("male_leaning", "female_leaning", "clear_male", "clear_female", "not_clear")


def run_slguset(
    dataset: str,
    models: list[str],
    out: Path,
    options: RunOptions,
    top_k: int = 5,
    models_from: Callable = each_model,
) -> Path:
    """Score every model and write the report folder (see the module docstring);
    ``models_from`` yields the (name, model) pairs (``score import-lm-eval`` replays results)."""
    items = load_items(dataset, "slguset")
    if options.limit:
        items = items.head(options.limit).reset_index(drop=True)
    source = dataset_identity(dataset)
    started = time.time()
    with staged_directory(out, overwrite=options.overwrite, kind="score") as stage:
        scored, identities = {}, []
        for name, lm in models_from(models, options.model):
            scored[name] = slguset.score_items(lm, items)
            identities.append(lm.identity)
        run = {**options.manifest(), "top_k": top_k}
        write_slguset(stage, source, models, scored, identities, options.resampling, run, started)
    return out


def merge_slguset(folders: list[ScoreFolder], out: Path, overwrite: bool = False) -> Path:
    """One multi-model folder from ``score slguset`` folders of the same release."""
    return merge_with(folders, out, overwrite, "sentences.csv", write_slguset)


def write_slguset(
    stage: Path,
    source: dict,
    models: list[str],
    scored: dict[str, pd.DataFrame],
    identities: list[ModelIdentity],
    resampling: Resampling,
    run: dict,
    started: float | None = None,
) -> None:
    """Every file of a ``score slguset`` folder from the models' per-sentence Bias_c."""
    pd.concat([s.assign(model=n) for n, s in scored.items()]).to_csv(
        stage / "sentences.csv", index=False
    )
    summary, pairs = _tables(scored, resampling)
    summary.to_csv(stage / "summary.csv", index=False)
    pairs.to_csv(stage / "pairs.csv", index=False)
    compared = comparisons(list(scored), partial(_pairing, scored), resampling)
    compared.to_csv(stage / "comparisons.csv", index=False)
    topics = {n: slguset.biased_topics(s, int(run.get("top_k", 5))) for n, s in scored.items()}
    write_json_atomic(stage / "topics.json", topics)
    tables = {"summary": summary, "pairs": pairs, "compared": compared, "topics": topics}
    write_reports(stage, _document(source, scored, identities, tables, stage, resampling))
    if started is not None:
        run = {**run, "seconds": time.time() - started}
    finish(stage, "score slguset", source, models, identities, run)


def _tables(
    scored: dict[str, pd.DataFrame], resampling: Resampling
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 3 overall and per keyword pair per model, each figure with its interval."""
    summaries, pairs = [], []
    for name, frame in scored.items():
        figures, ordered = slguset.figures(frame)
        values = interval_frame(figures, ordered[["bias"]].to_numpy().T, resampling)
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


def _pairing(
    scored: dict[str, pd.DataFrame], a: str, b: str
) -> tuple[Figures, np.ndarray, np.ndarray]:
    """Table 3's overall figures; both models scored the same sentences in the same order."""
    figures, ordered_a = slguset.figures(scored[a], per_pair=False)
    _, ordered_b = slguset.figures(scored[b], per_pair=False)
    return figures, ordered_a[["bias"]].to_numpy().T, ordered_b[["bias"]].to_numpy().T


def _figure_id(row: dict, metric: str) -> str:
    return f"{row['model']}|{row.get('pair', 'all')}|{metric}"


def _document(
    source: dict,
    scored: dict[str, pd.DataFrame],
    identities: list[ModelIdentity],
    tables: dict,
    stage: Path,
    resampling: Resampling,
) -> Document:
    summary, pairs = tables["summary"], tables["pairs"]
    doc = Document("SlguSet gender bias").add(
        Paragraph(
            f"{len(next(iter(scored.values())))} sentences. Bias_c = log(p_male / "
            "p_female) at the masked keyword (> 0 leans male). Degrees: sum of positive "
            f"(negative) Bias_c over N; clear bias: |Bias_c| > {slguset.THRESHOLD}."
        ),
        *provenance_blocks(source, identities, {}),
        Heading("Bias per model (Table 3)"),
        interval_note(resampling, "each keyword pair"),
        interval_table(summary, ["model", "sentences"], MEANS, _figure_id, digits=3),
        interval_table(summary, ["model"], COUNTS, _figure_id, digits=0),
        Heading("Per keyword pair"),
        interval_table(pairs, ["model", "pair", "sentences"], MEANS, _figure_id, digits=3),
        *_plots(scored, summary, pairs, stage),
        Heading("Topic words of clearly biased sentences (Table 6)"),
        Table(_topic_rows(tables["topics"])),
        Heading("Most biased sentences (Tables 4–5)"),
        Table(_extremes(scored), 3),
        Heading("Models compared (Table 3's overall figures)"),
        *comparison_blocks(tables["compared"], resampling, 3),
    )
    per_item = pd.DataFrame({n: s.set_index("id")["bias"] for n, s in scored.items()})
    per_item.index.name = "id"
    per_item.to_csv(stage / "item_bias.csv")
    doc.add(Heading("Distribution and correlation across models (Figures 2–3)"))
    return doc.add(
        *cross_model_blocks(per_item, stage, "Bias_c = log(p_male / p_female)", "SlguSet")
    )


def _plots(
    scored: dict[str, pd.DataFrame], summary: pd.DataFrame, pairs: pd.DataFrame, stage: Path
) -> list:
    """Mean Bias_c per pair × model (heatmap) and Table 3's means with intervals (bars)."""
    matrix = pairs.pivot_table(index="pair", columns="model", values="mean_bias", sort=False)
    plots.value_heatmap(
        matrix[list(scored)], stage / "pair_heatmap.png", "SlguSet: mean Bias_c", "mean Bias_c"
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


def _extremes(scored: dict[str, pd.DataFrame]) -> pd.DataFrame:
    rows = []
    for name, frame in scored.items():
        ordered = frame.sort_values("bias")
        for label, part in (("male", ordered.tail(5)[::-1]), ("female", ordered.head(5))):
            for r in part.itertuples(index=False):
                rows.append(
                    {"model": name, "leaning": label, "bias": r.bias}
                    | {"pair": r.pair, "sentence": r.sentence}
                )
    return pd.DataFrame(rows)
