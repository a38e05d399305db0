"""The tables and report of ``score stereoset`` (``biasforge.scoring.tasks.stereoset_task``):
the official rows per model with intervals, the French paper's tables (Table 2: the mean of
the splits; Table 3: intrasentence by model size), Spearman ρ across models (§4.2), the
figures, and which files StereoSet's own evaluator takes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasforge.scoring import document, plots
from biasforge.scoring.document import Figure, Heading, Paragraph, Table
from biasforge.scoring.stats import spearman_permutation
from biasforge.scoring.stereoset_eval import (
    METRICS,
    SPLITS,
    Example,
    figures,
    outcomes,
    results_table,
)
from biasforge.scoring.tasks import Results, Scored, stereoset
from biasforge.scoring.uncertainty import Figures, intervals

GOLD = "gold.json"


def scores(model: Scored) -> dict[str, float]:
    """Sentence id -> score, from the model's ``sentences.csv`` rows."""
    rows = model.rows
    if rows.empty:
        return {}
    return dict(zip(rows["sentence_id"], rows["score"].astype(float), strict=True))


def _examples(results: Results) -> list[Example]:
    return stereoset.examples_from(results.items, results.source["path"])


def tables(results: Results) -> dict:
    """``results.csv``, ``split_means.csv`` (with both splits) and ``spearman.json``."""
    table, means = _results(_examples(results), results)
    params = {n: s.identity.parameters for n, s in results.scored.items()}
    written = {"results.csv": table}
    if not means.empty:
        written["split_means.csv"] = means
    return written | {"spearman.json": _spearman(table, params)}


def _results(examples: list[Example], results: Results) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The official rows per model (split × domain), and with both splits the mean of the
    two splits per domain (split "mean"), each metric with its bootstrap interval."""
    frames, mean_frames = [], []
    for name, model in results.scored.items():
        scored = scores(model)
        chosen = [e for e in examples if e.stereotype in scored]
        if not chosen:
            continue
        fig, order = figures(chosen)
        x = outcomes(order, scored)
        values = dict(zip(fig.names, fig.compute(x), strict=True))
        bounds = dict(zip(fig.names, intervals(fig, x, results.resampling), strict=True))
        rows, means = results_table(chosen, scored), _mean_rows(values)
        for row in rows + means:
            for metric in METRICS:
                low, high = bounds[f"{row['split']}/{row['domain']}/{metric}"]
                row[f"{metric}_low"], row[f"{metric}_high"] = low, high
        frames.append(pd.DataFrame(rows).assign(model=name))
        mean_frames.append(pd.DataFrame(means).assign(model=name))
    return _model_first(frames), _model_first(mean_frames)


def _model_first(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return frame[["model", *[c for c in frame.columns if c != "model"]]] if len(frame) else frame


def _mean_rows(values: dict[str, float]) -> list[dict]:
    """French paper Table 2: the mean of the two splits' LMS, SS and ICAT per domain."""
    domains = dict.fromkeys(n.split("/")[1] for n in values if n.startswith("mean/"))
    return [
        {"split": "mean", "domain": d, **{m: values[f"mean/{d}/{m}"] for m in METRICS}}
        for d in domains
    ]


def pairing(results: Results, a: str, b: str) -> tuple[Figures, np.ndarray, np.ndarray]:
    """Figures over the items both models scored, and both models' outcomes on them."""
    sa, sb = scores(results.scored[a]), scores(results.scored[b])
    common = [e for e in _examples(results) if e.stereotype in sa and e.stereotype in sb]
    fig, order = figures(common)
    return fig, outcomes(order, sa), outcomes(order, sb)


def _spearman(results: pd.DataFrame, params: dict[str, int]) -> list[dict]:
    """Spearman ρ across models, per split (overall rows), French paper §4.2: LMS vs |SS − 50|
    and number of parameters vs |SS − 50|; p-values from a permutation test."""
    out = []
    overall = results[results["domain"] == "overall"]
    for split in overall["split"].unique():
        rows = overall[overall["split"] == split]
        distance = (rows["SS"] - 50).abs()
        sizes = rows["model"].map(params).astype(float)
        for label, x in (("LMS", rows["LMS"]), ("parameters", sizes)):
            rho, p = spearman_permutation(x, distance)
            out.append(
                {"split": split, "x": label, "y": "|SS - 50|", "models": len(rows)}
                | {"rho": rho, "p_value": p}
            )
    return out


# ------------------------------------------------------------------------------- the report
def _figure_id(row: dict, metric: str) -> str:
    return f"{row['model']}|{row['split']}|{row['domain']}|{metric}"


def intro(results: Results) -> list:
    items = results.items
    procedure = results.run.get("procedure", "official")
    counts = items["split"].value_counts().sort_index()
    return [
        Paragraph(
            f"{len(items)} items ("
            + ", ".join(f"{k}: {v}" for k, v in counts.items())
            + "). Evaluation: **official** — LMS, SS and ICAT per target term, averaged over "
            "terms, exactly as StereoSet's `evaluation.py` (ties count as anti-stereotype); "
            "each model's `results.json` is that evaluator's output. Masked LMs' "
            f"intrasentence attribute (`--procedure`): **{stereoset.PROCEDURES[procedure]}**. "
            f"{_differing(items)}"
        ),
        *_evaluator_blocks(results.scored),
        *_adaptations(results.scored),
    ]


def body(results: Results) -> list:
    table = results.tables["results.csv"]
    means = results.tables.get("split_means.csv", pd.DataFrame())
    blocks: list = [
        Heading("Overall"),
        document.interval_note(results.resampling, "each split × domain × target term"),
    ]
    overall = table[table["domain"] == "overall"]
    blocks.append(
        document.interval_table(overall, ["model", "split", "items"], METRICS, _figure_id)
    )
    for split in ("intrasentence", "intersentence"):
        sub = table[table["split"] == split]
        if not sub.empty:
            blocks += [
                Heading(f"{split.capitalize()}: LMS / SS / ICAT per domain", 3),
                document.interval_table(
                    sub, ["model", "domain", "items", "terms"], METRICS, _figure_id
                ),
            ]
    blocks += [*_paper_tables(table, means), *_plots(table, results.stage)]
    blocks += [Heading("Methods"), Table(_methods(results.scored), 1)]
    blocks.append(Heading("Spearman ρ across models (permutation test, French paper §4.2)"))
    blocks.append(Table(pd.DataFrame(results.tables["spearman.json"]), 3))
    return [*blocks, Paragraph("(NaN when fewer than three models.)")]


def _differing(items: pd.DataFrame) -> str:
    """How many sentences the other procedure would read differently, and which (a merged
    folder rebuilds its items from the models' sentences, without contexts: it says so)."""
    if "context" not in items.columns:
        return "The merged items carry no contexts; each model's folder names the sentences."
    ids = stereoset.readings_differ(items)
    shown = ", ".join(f"`{i}`" for i in ids[:12]) + (", …" if len(ids) > 12 else "")
    return (
        f"On these items the official and filler readings differ for {len(ids)} "
        f"intrasentence sentence(s){': ' + shown if ids else ''}."
    )


def _evaluator_blocks(scored: dict[str, Scored]) -> list[Paragraph]:
    """Which files StereoSet's own evaluator takes, per model (paths from this folder)."""
    lines = []
    for name, s in scored.items():
        if s.notes.get("gold"):
            lines.append(f"`{name}`: no `{GOLD}` ({s.notes['gold']}).")
        else:
            lines.append(
                f"`{name}`: `python evaluation.py --gold-file {name}/{GOLD} "
                f"--predictions-file {name}/predictions.json`"
            )
    return [
        Paragraph(
            "To re-run StereoSet's own evaluator (`code/evaluation.py` of its repository), "
            f"give it each model's `{GOLD}` — the items that model scored, in the official "
            "layout — with its `predictions.json` (paths from this report's folder); the whole "
            "release's export would lack scores where a split or item was not scored:"
        ),
        *(Paragraph(line) for line in lines),
    ]


def _adaptations(scored: dict[str, Scored]) -> list[Paragraph]:
    """The causal adaptation named up front for each model it applies to."""
    return [
        Paragraph(f"**Causal adaptation** for `{name}`: {s.procedure['intrasentence']}.")
        for name, s in scored.items()
        if "adaptation" in s.procedure.get("intrasentence", "")
    ]


def _paper_tables(results: pd.DataFrame, mean: pd.DataFrame) -> list:
    """French paper Table 3 (intrasentence by model size) and Table 2 (mean of the splits)."""
    blocks: list = []
    intra = results[(results["split"] == "intrasentence") & (results["domain"] == "overall")]
    if not intra.empty:
        blocks += [
            Heading("Intrasentence task by model size (French paper, Table 3)"),
            document.interval_table(intra, ["model"], METRICS, _figure_id),
        ]
    if not mean.empty:
        blocks += [
            Heading("Mean of the intra- and intersentence tasks (French paper, Table 2)"),
            document.interval_table(mean, ["model", "domain"], METRICS, _figure_id),
        ]
    return blocks


def _plots(results: pd.DataFrame, stage) -> list:
    """SS vs LMS per model and split, and per-domain bars, both with their intervals."""
    overall = results[(results["domain"] == "overall") & results["split"].isin(SPLITS)]
    plots.ss_lms_scatter(overall, stage / "ss_vs_lms.png", "StereoSet: SS against LMS")
    bars = []
    for row in results[results["split"].isin(SPLITS)].to_dict("records"):
        for metric in METRICS:
            bars.append(
                {
                    "panel": f"{row['split']} {metric}",
                    "category": row["domain"],
                    "model": row["model"],
                    "value": row[metric],
                    "low": row[f"{metric}_low"],
                    "high": row[f"{metric}_high"],
                }
            )
    bars_frame = pd.DataFrame(bars)
    references = {p: 50.0 for p in bars_frame["panel"] if p.endswith(" SS")}
    plots.interval_bars(bars_frame, stage / "domain_scores.png", "StereoSet per domain", references)
    return [
        Heading("Figures"),
        Figure("ss_vs_lms.png", "SS against LMS per model and split, with intervals"),
        Figure("domain_scores.png", "LMS, SS and ICAT per domain, with intervals"),
    ]


def _methods(scored: dict[str, Scored]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "model": name,
                "intrasentence": s.procedure.get("intrasentence", ""),
                "intersentence": s.procedure.get("intersentence", ""),
                "params": s.identity.parameters,
                "seconds": s.seconds,
            }
            for name, s in scored.items()
        ]
    )


def items_from_sentences(sentences: list[pd.DataFrame]) -> pd.DataFrame:
    """The scored items in the contract's columns the report reads (one row per item), from
    the models' ``sentences.csv`` (item, split, domain, term and each sentence's id and label),
    in the order the run scored them; items no model scored are not counted."""
    rows = pd.concat(sentences, ignore_index=True).drop_duplicates("sentence_id")
    items = []
    for item_id, group in rows.groupby("item_id", sort=False):
        first = group.iloc[0]
        listed_sentences = group[["sentence_id", "label", "sentence"]].rename(
            columns={"sentence_id": "id"}
        )
        items.append(
            {
                "id": item_id,
                "split": first["split"],
                "bias_type": first["bias_type"],
                "target": first["target"],
                "sentences": listed_sentences.to_dict("records"),
            }
        )
    return pd.DataFrame(items)
