"""The three score commands: load items, score each model, write tables, figures and report.

Each command writes its output folder atomically (``staged_directory``): ``report.md``, CSV
tables, PNG figures, per-model files and ``manifest.json``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from biasforge.errors import BiasforgeError
from biasforge.files import staged_directory, write_json_atomic, write_text_atomic
from scoring import plots
from scoring.data import load_items
from scoring.models import ModelOptions, load_model, model_name
from scoring.report import md_table, write_manifest
from scoring.stats import correlation_matrix, spearman_permutation


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "model"


def _unique_names(models: list[str]) -> list[str]:
    names, seen = [], {}
    for spec in models:
        base = _safe(model_name(spec))
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return names


def _cross_model(per_item: pd.DataFrame, out: Path, xlabel: str, what: str) -> str:
    """Distribution plot + correlation heatmap of per-item bias across models; report text."""
    lines = []
    plots.bias_distribution(
        per_item, out / "bias_distribution.png", xlabel, f"{what}: distribution per model"
    )
    lines.append("![bias distribution](bias_distribution.png)\n")
    if per_item.shape[1] >= 2:
        rho, pval = correlation_matrix(per_item.dropna())
        rho.to_csv(out / "bias_correlation.csv")
        pval.to_csv(out / "bias_correlation_pvalues.csv")
        plots.correlation_heatmap(
            rho, out / "bias_correlation.png", f"{what}: per-item correlation"
        )
        lines.append(
            "Per-item bias correlation across models (Spearman ρ; permutation p-values in "
            "`bias_correlation_pvalues.csv`):\n"
        )
        lines.append(md_table(rho.reset_index(names="model"), 3))
        lines.append("![bias correlation](bias_correlation.png)\n")
    return "\n".join(lines)


# --------------------------------------------------------------------------- StereoSet
def run_stereoset(
    dataset: str,
    models: list[str],
    out: Path,
    options: ModelOptions,
    split: str = "all",
    limit: int | None = None,
    nsp_corpus: Path | None = None,
    nsp_head: Path | None = None,
    nsp_steps: int = 200,
    overwrite: bool = False,
) -> Path:
    from scoring import nsp as nsp_mod
    from scoring import stereoset
    from scoring.stereoset_eval import official_results, results_table

    items = load_items(dataset, "stereoset")
    if split != "all":
        items = items[items["split"] == split]
    if limit:
        items = items.groupby("split", group_keys=False).head(limit)
    if items.empty:
        raise BiasforgeError(f"no StereoSet items for split {split!r} in {dataset}")
    items = items.reset_index(drop=True)
    examples = stereoset.examples_from(items, dataset)
    names = _unique_names(models)
    started = time.time()
    with staged_directory(out, overwrite=overwrite, kind="score") as stage:
        tables, biases, methods, timings, params = [], {}, {}, {}, {}
        for spec, name in zip(models, names, strict=True):
            t0 = time.time()
            lm = load_model(spec, options, name)
            intra = items[items["split"] == "intrasentence"]
            inter = items[items["split"] == "intersentence"]
            scores = stereoset.score_intrasentence(lm, intra, dataset)
            head = None
            if nsp_head is not None and not inter.empty:
                head = nsp_mod.NSPHead.load(nsp_head)
            elif nsp_corpus is not None and not inter.empty:
                head = nsp_mod.train_head(
                    lm, nsp_corpus, steps=nsp_steps, progress=options.progress
                )
                head.save(stage / name / "nsp_head.pt")
            inter_scores, method = stereoset.score_intersentence(lm, inter, head)
            scores.update(inter_scores)
            methods[name] = {
                "intrasentence": stereoset.intrasentence_method(lm) if not intra.empty else "none",
                "intersentence": method,
            }
            scored = [e for e in examples if e.stereotype in scores]
            model_dir = stage / name
            model_dir.mkdir(parents=True, exist_ok=True)
            write_json_atomic(
                model_dir / "predictions.json", stereoset.predictions_json(items, scores)
            )
            write_json_atomic(model_dir / "results.json", official_results(scored, scores))
            _sentence_table(items, scores).to_csv(model_dir / "sentences.csv", index=False)
            for row in results_table(scored, scores):
                tables.append({"model": name, **row})
            biases[name] = stereoset.item_bias(scored, scores)
            timings[name] = time.time() - t0
            params[name] = lm.parameter_count()
            lm.close()
        results = pd.DataFrame(tables)
        results.to_csv(stage / "results.csv", index=False)
        per_item = pd.DataFrame(biases)
        per_item.index.name = "item_id"
        per_item.to_csv(stage / "item_bias.csv")
        spearman = _stereoset_spearman(results, params)
        write_json_atomic(stage / "spearman.json", spearman)
        figures = _cross_model(
            per_item, stage, "log P(stereotype) − log P(anti-stereotype)", "StereoSet"
        )
        report = _stereoset_report(
            dataset, items, results, methods, timings, params, spearman, figures
        )
        write_text_atomic(stage / "report.md", report)
        write_manifest(
            stage,
            "score stereoset",
            dataset,
            models,
            {
                **asdict(options),
                "split": split,
                "limit": limit,
                "nsp_corpus": str(nsp_corpus or ""),
                "nsp_head": str(nsp_head or ""),
                "seconds": time.time() - started,
            },
        )
    return out


def _sentence_table(items: pd.DataFrame, scores: dict[str, float]) -> pd.DataFrame:
    from scoring.data import as_list

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


def _stereoset_spearman(results: pd.DataFrame, params: dict[str, int]) -> list[dict]:
    """Spearman ρ across models, per split (overall rows), French paper §4.2: LMS vs |SS − 50|
    and number of parameters vs |SS − 50|; p-values from a permutation test."""
    out = []
    for split in results["split"].unique():
        rows = results[(results["split"] == split) & (results["domain"] == "overall")]
        distance = (rows["SS"] - 50).abs()
        sizes = rows["model"].map(params).astype(float)
        for label, x in (("LMS", rows["LMS"]), ("parameters", sizes)):
            rho, p = spearman_permutation(x, distance)
            out.append(
                {
                    "split": split,
                    "x": label,
                    "y": "|SS - 50|",
                    "models": len(rows),
                    "rho": rho,
                    "p_value": p,
                }
            )
    return out


def _table2(results: pd.DataFrame) -> pd.DataFrame:
    """LMS and SS, and ICAT per domain, each the mean of the two tasks' values."""
    both = results[results["split"].isin(["intrasentence", "intersentence"])]
    means = both.groupby(["model", "domain"], sort=False)[["LMS", "SS", "ICAT"]].mean()
    rows = []
    for model in both["model"].unique():
        m = means.loc[model]
        row = {"model": model, "LMS": m.loc["overall", "LMS"], "SS": m.loc["overall", "SS"]}
        for domain in m.index:
            if domain != "overall":
                row[f"ICAT {domain}"] = m.loc[domain, "ICAT"]
        row["ICAT global"] = m.loc["overall", "ICAT"]
        rows.append(row)
    return pd.DataFrame(rows)


def _stereoset_report(dataset, items, results, methods, timings, params, spearman, figures) -> str:
    parts = [
        "# StereoSet scores\n",
        f"Dataset: `{dataset}` — {len(items)} items "
        + ", ".join(f"{k}: {v}" for k, v in items["split"].value_counts().sort_index().items())
        + ".\n",
        "LMS, SS and ICAT are computed per target term and averaged over terms, exactly as the "
        "official StereoSet evaluator (ties between stereotype and anti-stereotype count as "
        "anti-stereotype). Per-model `results.json` is the official evaluator's output and "
        "`predictions.json` the official predictions layout.\n",
        "## Overall\n",
    ]
    overall = results[results["domain"] == "overall"][
        ["model", "split", "items", "LMS", "SS", "ICAT"]
    ]
    parts.append(md_table(overall))
    for split in ("intrasentence", "intersentence"):
        sub = results[results["split"] == split]
        if sub.empty:
            continue
        parts.append(f"\n## {split.capitalize()} by domain (ICAT)\n")
        pivot = sub.pivot_table(
            index="model", columns="domain", values="ICAT", sort=False
        ).reset_index()
        parts.append(md_table(pivot))
        parts.append(f"\n### {split.capitalize()}: LMS / SS / ICAT per domain\n")
        parts.append(md_table(sub[["model", "domain", "items", "terms", "LMS", "SS", "ICAT"]]))
    intra = results[(results["split"] == "intrasentence") & (results["domain"] == "overall")]
    if not intra.empty:
        parts.append("\n## Intrasentence task by model size (French paper, Table 3)\n")
        table3 = intra[["model", "LMS", "SS", "ICAT"]].copy()
        table3.insert(1, "params (M)", table3["model"].map(params) / 1e6)
        parts.append(md_table(table3, 1))
    if set(results["split"]) >= {"intrasentence", "intersentence"}:
        parts.append("\n## Mean of the intra- and intersentence tasks (French paper, Table 2)\n")
        parts.append(md_table(_table2(results)))
    parts.append("\n## Methods\n")
    parts.append(
        md_table(
            pd.DataFrame(
                [
                    {"model": m, **v, "params": params.get(m, 0), "seconds": timings.get(m)}
                    for m, v in methods.items()
                ]
            ),
            1,
        )
    )
    parts.append("\n## Spearman ρ across models (permutation test, French paper §4.2)\n")
    parts.append(md_table(pd.DataFrame(spearman), 3))
    parts.append("\n(NaN when fewer than three models.)\n\n## Per-item bias across models\n")
    parts.append(figures)
    return "\n".join(parts)


# --------------------------------------------------------------------------- SlguSet
def run_slguset(
    dataset: str,
    models: list[str],
    out: Path,
    options: ModelOptions,
    limit: int | None = None,
    top_k: int = 5,
    overwrite: bool = False,
) -> Path:
    from scoring import slguset

    items = load_items(dataset, "slguset")
    if limit:
        items = items.head(limit).reset_index(drop=True)
    names = _unique_names(models)
    started = time.time()
    with staged_directory(out, overwrite=overwrite, kind="score") as stage:
        summaries, pairs, topics, biases, scored_all, extremes = [], [], {}, {}, [], []
        for spec, name in zip(models, names, strict=True):
            lm = load_model(spec, options, name)
            scored = slguset.score_items(lm, items)
            lm.close()
            scored.insert(0, "model", name)
            scored_all.append(scored)
            summaries.append({"model": name, **slguset.summary(scored["bias"])})
            pairs.append(slguset.per_pair(scored).assign(model=name))
            topics[name] = slguset.biased_topics(scored, top_k)
            biases[name] = scored.set_index("id")["bias"]
            ordered = scored.sort_values("bias")
            for label, rows in (("male", ordered.tail(5)[::-1]), ("female", ordered.head(5))):
                for r in rows.itertuples(index=False):
                    extremes.append(
                        {
                            "model": name,
                            "leaning": label,
                            "bias": r.bias,
                            "pair": r.pair,
                            "sentence": r.sentence,
                        }
                    )
        pd.concat(scored_all).to_csv(stage / "sentences.csv", index=False)
        summary = pd.DataFrame(summaries)
        summary.to_csv(stage / "summary.csv", index=False)
        pair_table = pd.concat(pairs)[["model", *slguset.per_pair(scored_all[0]).columns]]
        pair_table.to_csv(stage / "pairs.csv", index=False)
        write_json_atomic(stage / "topics.json", topics)
        per_item = pd.DataFrame(biases)
        per_item.index.name = "id"
        per_item.to_csv(stage / "item_bias.csv")
        figures = _cross_model(per_item, stage, "Bias_c = log(p_male / p_female)", "SlguSet")
        topic_rows = [
            {"model": m, "leaning": lean, "method": meth, "top words": " ".join(words)}
            for m, t in topics.items()
            for lean, by in t.items()
            for meth, words in by.items()
        ]
        report = "\n".join(
            [
                "# SlguSet gender bias\n",
                f"Dataset: `{dataset}` — {len(items)} sentences. Bias_c = log(p_male / p_female) at the "
                "masked keyword (> 0 leans male). Degrees: sum of positive (negative) Bias_c over N; "
                f"clear bias: |Bias_c| > {slguset.THRESHOLD}.\n",
                "## Bias per model (Table 3)\n",
                md_table(summary, 3),
                "\n## Per keyword pair\n",
                md_table(pair_table, 3),
                f"\n## Topic words of clearly biased sentences (Table 6, top {top_k})\n",
                md_table(pd.DataFrame(topic_rows)),
                "\n## Most biased sentences (Tables 4–5)\n",
                md_table(pd.DataFrame(extremes), 3),
                "\n## Distribution and correlation across models (Figures 2–3)\n",
                figures,
            ]
        )
        write_text_atomic(stage / "report.md", report)
        write_manifest(
            stage,
            "score slguset",
            dataset,
            models,
            {**asdict(options), "limit": limit, "seconds": time.time() - started},
        )
    return out


# --------------------------------------------------------------------------- BEC-Pro
def run_becpro(
    dataset: str,
    models: list[str],
    out: Path,
    options: ModelOptions,
    limit: int | None = None,
    overwrite: bool = False,
) -> Path:
    from scoring import becpro

    items = load_items(dataset, "becpro")
    if limit:
        items = items.head(limit).reset_index(drop=True)
    names = _unique_names(models)
    started = time.time()
    with staged_directory(out, overwrite=overwrite, kind="score") as stage:
        tables, scored_all, biases = [], [], {}
        for spec, name in zip(models, names, strict=True):
            lm = load_model(spec, options, name)
            scored = becpro.score_items(lm, items)
            lm.close()
            scored.insert(0, "model", name)
            scored_all.append(scored)
            tables.append(becpro.association_table(scored).assign(model=name))
            biases[name] = scored.set_index("id")["association"]
        pd.concat(scored_all).to_csv(stage / "items.csv", index=False)
        table = pd.concat(tables)
        table = table[["model", *[c for c in table.columns if c != "model"]]]
        table.to_csv(stage / "associations.csv", index=False)
        summary = (
            table.drop_duplicates(["model", "profession_group"])
            .pivot_table(index="profession_group", columns="model", values="P(f)-P(m)", sort=False)
            .reset_index()
        )
        summary.to_csv(stage / "summary.csv", index=False)
        per_item = pd.DataFrame(biases)
        per_item.index.name = "id"
        per_item.to_csv(stage / "item_bias.csv")
        figures = _cross_model(per_item, stage, "association log(P_target / P_prior)", "BEC-Pro")
        languages = ", ".join(sorted(items["language"].unique())) if "language" in items else "?"
        report = "\n".join(
            [
                "# BEC-Pro associations\n",
                f"Dataset: `{dataset}` — {len(items)} items ({languages}). Association = "
                "log(P_target / P_prior) of the person word (Kurita et al.); P(f) − P(m) = mean "
                "association of female persons minus that of male persons.\n",
                "## P(f) − P(m) by profession group (TFG Table 4.4)\n",
                md_table(summary, 3),
                "\n## Associations by profession group × person gender (TFG Tables 4.5–4.8)\n",
                md_table(table, 3),
                "\n## Distribution and correlation across models\n",
                figures,
            ]
        )
        write_text_atomic(stage / "report.md", report)
        write_manifest(
            stage,
            "score becpro",
            dataset,
            models,
            {**asdict(options), "limit": limit, "seconds": time.time() - started},
        )
    return out


def evaluate_predictions(dataset: str, predictions: Path) -> dict:
    """Official evaluator numbers for a predictions JSON file against a dataset's items."""
    from scoring import stereoset
    from scoring.stereoset_eval import official_results

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
