"""``score stereoset``: the official procedure and evaluator per model, with intervals,
paired comparisons, the French paper's tables and figures, in ``report.md`` and ``report.html``.

Per model: ``predictions.json`` (official layout), ``results.json`` (the official evaluator's
output, untouched), ``sentences.csv`` and ``identity.json``. Across models: ``results.csv``
(every split × domain with ``_low``/``_high`` interval bounds), ``comparisons.csv``,
``item_bias.csv``, ``spearman.json``, the figures, ``models.json`` and ``manifest.json``.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from biasforge.errors import BiasforgeError
from biasforge.files import staged_directory, write_json_atomic
from biasforge.scoring import plots
from biasforge.scoring.commands.common import (
    RunOptions,
    comparison_blocks,
    comparisons,
    cross_model_blocks,
    each_model,
    finish,
    interval_note,
    provenance_blocks,
    write_reports,
)
from biasforge.scoring.data import dataset_identity, load_items
from biasforge.scoring.document import Document, Figure, Heading, Paragraph, Table, interval_table
from biasforge.scoring.interface import LanguageModel, ModelIdentity, NSPTraining
from biasforge.scoring.stats import spearman_permutation
from biasforge.scoring.stereoset_eval import (
    METRICS,
    SPLITS,
    Example,
    figures,
    official_results,
    outcomes,
    results_table,
)
from biasforge.scoring.tasks import nsp as nsp_mod
from biasforge.scoring.tasks import stereoset
from biasforge.scoring.uncertainty import Figures, Resampling, intervals

PROCEDURE = "official"


@dataclass(frozen=True)
class NSPOptions:
    """Intersentence NSP: ``mode`` head (frozen model) or finetune (the paper's), on
    ``corpus``; or a head saved by an earlier run (``head``)."""

    mode: str = "head"
    corpus: Path | None = None
    head: Path | None = None
    training: NSPTraining = field(default_factory=NSPTraining)
    progress: bool = False  # a progress bar over the fine-tuning steps


@dataclass
class Scored:
    """One model's sentence scores and how they were obtained."""

    scores: dict[str, float]
    methods: dict[str, str]
    identity: ModelIdentity
    seconds: float


def run_stereoset(
    dataset: str,
    models: list[str],
    out: Path,
    options: RunOptions,
    split: str = "all",
    nsp: NSPOptions | None = None,
) -> Path:
    """Score every model and write the report folder (see the module docstring)."""
    nsp = nsp or NSPOptions()
    items = _items(dataset, split, options.limit)
    examples = stereoset.examples_from(items, dataset)
    source = dataset_identity(dataset)
    started = time.time()
    with staged_directory(out, overwrite=options.overwrite, kind="score") as stage:
        scored: dict[str, Scored] = {}
        for name, lm in each_model(models, options.model):
            scored[name] = _score_model(lm, items, examples, stage / name, nsp)
        results, means = _results(examples, scored, options.resampling)
        results.to_csv(stage / "results.csv", index=False)
        if not means.empty:
            means.to_csv(stage / "split_means.csv", index=False)
        compared = comparisons(
            list(scored), partial(_pairing, examples, scored), options.resampling
        )
        compared.to_csv(stage / "comparisons.csv", index=False)
        spearman = _spearman(results, {n: s.identity.parameters for n, s in scored.items()})
        write_json_atomic(stage / "spearman.json", spearman)
        tables = {"results": results, "means": means, "compared": compared, "spearman": spearman}
        document = _document(source, items, scored, tables, stage, options)
        write_reports(stage, document)
        identities = [s.identity for s in scored.values()]
        run = {**options.manifest(), "split": split, "procedure": PROCEDURE}
        run |= {"nsp_train": nsp.mode, "nsp_corpus": str(nsp.corpus or "")}
        run |= {"nsp_head": str(nsp.head or ""), "nsp_training": asdict(nsp.training)}
        finish(stage, "score stereoset", source, models, identities, run | _seconds(started))
    return out


def _seconds(started: float) -> dict[str, float]:
    return {"seconds": time.time() - started}


def _items(dataset: str, split: str, limit: int | None) -> pd.DataFrame:
    items = load_items(dataset, "stereoset")
    if split != "all":
        items = items[items["split"] == split]
    if limit:
        items = items.groupby("split", group_keys=False).head(limit)
    if items.empty:
        raise BiasforgeError(f"no StereoSet items for split {split!r} in {dataset}")
    return items.reset_index(drop=True)


def _score_model(
    lm: LanguageModel, items: pd.DataFrame, examples: list[Example], folder: Path, nsp: NSPOptions
) -> Scored:
    """Intra- and intersentence scores, and the per-model files."""
    started = time.time()
    intra = items[items["split"] == "intrasentence"]
    inter = items[items["split"] == "intersentence"]
    scores = stereoset.score_intrasentence(lm, intra)
    scorer, label = _nsp_scorer(lm, nsp, folder) if not inter.empty else (None, "")
    inter_scores, inter_method = stereoset.score_intersentence(lm, inter, scorer, label)
    scores.update(inter_scores)
    methods = {
        "procedure": PROCEDURE,
        "intrasentence": stereoset.intrasentence_method(lm) if not intra.empty else "none",
        "intersentence": inter_method,
    }
    folder.mkdir(parents=True, exist_ok=True)
    write_json_atomic(folder / "predictions.json", stereoset.predictions_json(items, scores))
    chosen = [e for e in examples if e.stereotype in scores]
    write_json_atomic(folder / "results.json", official_results(chosen, scores))
    _sentence_table(items, scores).to_csv(folder / "sentences.csv", index=False)
    write_json_atomic(folder / "identity.json", {**asdict(lm.identity), **methods})
    return Scored(scores, methods, lm.identity, time.time() - started)


def _nsp_scorer(
    lm: LanguageModel, nsp: NSPOptions, folder: Path
) -> tuple[nsp_mod.Scorer | None, str]:
    """(scorer of (context, sentence) pairs, its name in the report), or (None, "")."""
    if nsp.head is not None:
        head = nsp_mod.NSPHead.load(nsp.head)
        return partial(head, lm), f"NSP head from {nsp.head.name} (frozen model)"
    if nsp.corpus is None:
        return None, ""
    steps = nsp.training.steps
    if nsp.mode == "finetune":
        scorer = nsp_mod.finetune(lm, nsp.corpus, nsp.training, nsp.progress)
        return scorer, f"fine-tuned with an NSP head on {nsp.corpus.name} ({steps} steps)"
    head = nsp_mod.train_head(lm, nsp.corpus, steps=steps, seed=nsp.training.seed, progress=False)
    head.save(folder / "nsp_head.pt")
    return partial(head, lm), f"trained NSP head on {nsp.corpus.name} (frozen model)"


def _sentence_table(items: pd.DataFrame, scores: dict[str, float]) -> pd.DataFrame:
    from biasforge.scoring.data import as_list

    rows = []
    for row in items.itertuples(index=False):
        for s in as_list(row.sentences):
            if s["id"] in scores:
                rows.append(
                    {
                        "item_id": row.id,
                        "split": row.split,
                        "bias_type": row.bias_type,
                        "target": row.target,
                        "sentence_id": s["id"],
                        "label": s["label"],
                        "sentence": s["sentence"],
                        "score": scores[s["id"]],
                    }
                )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------- tables and tests
def _results(
    examples: list[Example], scored: dict[str, Scored], resampling: Resampling
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The official rows per model (split × domain), and with both splits the mean of the
    two splits per domain (split "mean"), each metric with its bootstrap interval."""
    frames, mean_frames = [], []
    for name, model in scored.items():
        chosen = [e for e in examples if e.stereotype in model.scores]
        if not chosen:
            continue
        fig, order = figures(chosen)
        x = outcomes(order, model.scores)
        values = dict(zip(fig.names, fig.compute(x), strict=True))
        bounds = dict(zip(fig.names, intervals(fig, x, resampling), strict=True))
        rows, means = results_table(chosen, model.scores), _mean_rows(values)
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


def _pairing(
    examples: list[Example], scored: dict[str, Scored], a: str, b: str
) -> tuple[Figures, np.ndarray, np.ndarray]:
    """Figures over the items both models scored, and both models' outcomes on them."""
    common = [e for e in examples if e.stereotype in scored[a].scores]
    common = [e for e in common if e.stereotype in scored[b].scores]
    fig, order = figures(common)
    return fig, outcomes(order, scored[a].scores), outcomes(order, scored[b].scores)


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


def _document(
    source: dict,
    items: pd.DataFrame,
    scored: dict[str, Scored],
    tables: dict,
    stage: Path,
    options: RunOptions,
) -> Document:
    results = tables["results"]
    counts = items["split"].value_counts().sort_index()
    doc = Document("StereoSet scores").add(
        Paragraph(
            f"{len(items)} items ("
            + ", ".join(f"{k}: {v}" for k, v in counts.items())
            + "). Procedure: **official** — LMS, SS and ICAT per target term, averaged over "
            "terms, exactly as StereoSet's `evaluation.py` (ties count as anti-stereotype); "
            "each model's `results.json` is that evaluator's output."
        ),
        *_adaptations(scored),
        *provenance_blocks(source, [s.identity for s in scored.values()], _procedures(scored)),
        Heading("Overall"),
        interval_note(options.resampling, "each split × domain × target term"),
    )
    overall = results[results["domain"] == "overall"]
    doc.add(interval_table(overall, ["model", "split", "items"], METRICS, _figure_id))
    for split in ("intrasentence", "intersentence"):
        sub = results[results["split"] == split]
        if not sub.empty:
            doc.add(
                Heading(f"{split.capitalize()}: LMS / SS / ICAT per domain", 3),
                interval_table(sub, ["model", "domain", "items", "terms"], METRICS, _figure_id),
            )
    doc.add(*_paper_tables(results, tables["means"]), *_plots(results, stage))
    doc.add(Heading("Methods"), Table(_methods(scored), 1))
    doc.add(Heading("Spearman ρ across models (permutation test, French paper §4.2)"))
    doc.add(Table(pd.DataFrame(tables["spearman"]), 3))
    doc.add(Paragraph("(NaN when fewer than three models.)"), Heading("Models compared"))
    doc.add(*comparison_blocks(tables["compared"], options.resampling))
    per_item = pd.DataFrame(
        {name: stereoset.item_bias(_chosen(items, s), s.scores) for name, s in scored.items()}
    )
    per_item.index.name = "item_id"
    per_item.to_csv(stage / "item_bias.csv")
    label = "log P(stereotype) − log P(anti-stereotype)"
    doc.add(Heading("Per-item bias across models"))
    return doc.add(*cross_model_blocks(per_item, stage, label, "StereoSet"))


def _chosen(items: pd.DataFrame, model: Scored) -> list[Example]:
    return [e for e in stereoset.examples_from(items) if e.stereotype in model.scores]


def _adaptations(scored: dict[str, Scored]) -> list[Paragraph]:
    """The causal adaptation named up front for each model it applies to."""
    return [
        Paragraph(f"**Causal adaptation** for `{name}`: {s.methods['intrasentence']}.")
        for name, s in scored.items()
        if "adaptation" in s.methods["intrasentence"]
    ]


def _procedures(scored: dict[str, Scored]) -> dict[str, dict]:
    return {n: {"procedure": s.methods["procedure"]} for n, s in scored.items()}


def _paper_tables(results: pd.DataFrame, mean: pd.DataFrame) -> list:
    """French paper Table 3 (intrasentence by model size) and Table 2 (mean of the splits)."""
    blocks: list = []
    intra = results[(results["split"] == "intrasentence") & (results["domain"] == "overall")]
    if not intra.empty:
        blocks += [
            Heading("Intrasentence task by model size (French paper, Table 3)"),
            interval_table(intra, ["model"], METRICS, _figure_id),
        ]
    if not mean.empty:
        blocks += [
            Heading("Mean of the intra- and intersentence tasks (French paper, Table 2)"),
            interval_table(mean, ["model", "domain"], METRICS, _figure_id),
        ]
    return blocks


def _plots(results: pd.DataFrame, stage: Path) -> list:
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
                "intrasentence": s.methods["intrasentence"],
                "intersentence": s.methods["intersentence"],
                "params": s.identity.parameters,
                "seconds": s.seconds,
            }
            for name, s in scored.items()
        ]
    )


def evaluate_predictions(dataset: str, predictions: Path) -> dict:
    """Official evaluator numbers for a predictions JSON file against a dataset's items."""
    import json

    items = load_items(dataset, "stereoset")
    data = json.loads(Path(predictions).read_text(encoding="utf-8"))
    scores = {
        p["id"]: float(p["score"])
        for split in ("intrasentence", "intersentence")
        for p in data.get(split, [])
    }
    examples = [e for e in stereoset.examples_from(items, dataset) if e.stereotype in scores]
    if not examples:
        raise BiasforgeError(f"{predictions}: no prediction matches the dataset's sentence ids")
    return official_results(examples, scores)
