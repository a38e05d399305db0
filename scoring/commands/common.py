"""What the three score commands share: options, loading models one at a time, intervals and
paired comparisons as tables, the provenance section, and writing the report and manifest."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import pandas as pd

from biasforge.errors import InputError
from biasforge.files import staged_directory, write_json_atomic, write_text_atomic
from biasforge.scoring import plots
from biasforge.scoring.crossed import CrossedDesign
from biasforge.scoring.document import Document, Figure, Heading, Paragraph, Table, to_markdown
from biasforge.scoring.folders import ScoreFolder
from biasforge.scoring.interface import LanguageModel, ModelIdentity
from biasforge.scoring.models import ModelOptions, load_model, model_name
from biasforge.scoring.report import write_manifest
from biasforge.scoring.stats import correlation_matrix
from biasforge.scoring.uncertainty import (
    Figures,
    Resampling,
    compare,
    holm,
    intervals,
    with_interval,
)


@dataclass(frozen=True)
class RunOptions:
    """What every score command takes besides its dataset, models and output folder."""

    model: ModelOptions = field(default_factory=ModelOptions)
    resampling: Resampling = field(default_factory=Resampling)
    limit: int | None = None
    overwrite: bool = False

    def manifest(self) -> dict:
        """The options as the manifest records them."""
        return {
            **asdict(self.model),
            "limit": self.limit,
            "bootstrap": self.resampling.n_resamples,
            "seed": self.resampling.seed,
            "confidence_level": self.resampling.level,
        }


def unique_names(models: list[str]) -> list[str]:
    """Short, file-safe, distinct names for the models (a repeated model gets -2, -3 …)."""
    names, seen = [], {}
    for spec in models:
        base = "".join(c if c.isalnum() or c in "-_." else "_" for c in model_name(spec))
        base = base or "model"
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return names


def resampling_of(options: dict) -> Resampling:
    """The bootstrap settings a score folder's manifest recorded (``RunOptions.manifest``)."""
    return Resampling(
        int(options.get("bootstrap", Resampling.n_resamples)),
        int(options.get("seed", Resampling.seed)),
        float(options.get("confidence_level", Resampling.level)),
    )


def listed(folders: list[ScoreFolder]) -> list[str]:
    """The models the folders' manifests list, in order (the merged manifest's ``models``)."""
    return [model for folder in folders for model in folder.listed]


def read_scored(
    folders: list[ScoreFolder], table: str
) -> tuple[dict[str, pd.DataFrame], list[ModelIdentity]]:
    """Each model's per-item rows from ``table`` (with a ``model`` column) of verified score
    folders, in the first model's item order, and its identity; a name already taken by an
    earlier folder gets -2, -3 … (as ``unique_names`` does in one run). Folders whose models
    scored other items (another ``--limit``, another subset) are refused."""
    scored: dict[str, pd.DataFrame] = {}
    identities: list[ModelIdentity] = []
    known = {f.name for f in fields(ModelIdentity)}
    for folder in folders:
        frame = pd.read_csv(folder.path / table, dtype={"id": str, "model": str})
        for entry in folder.models:
            rows = frame[frame["model"] == entry.get("name")].drop(columns="model")
            name = free_name(str(entry.get("name") or "model"), scored)
            scored[name] = _aligned(rows.reset_index(drop=True), scored, folder.path)
            values = {k: v for k, v in entry.items() if k in known}
            identities.append(ModelIdentity(**{**values, "name": name}))
    return scored, identities


def merge_with(
    folders: list[ScoreFolder], out: Path, overwrite: bool, table: str, write: Callable
) -> Path:
    """A merged score folder at ``out``: the models' rows of ``table`` read from verified
    folders and handed to the family's writer, ``write(stage, source, models, scored,
    identities, resampling, run)``, the one a multi-model run calls (``score merge``)."""
    scored, identities = read_scored(folders, table)
    run = {**folders[0].options, "merged_from": [f.path.name for f in folders]}
    with staged_directory(out, overwrite=overwrite, kind="score") as stage:
        models, resampling = listed(folders), resampling_of(run)
        write(stage, folders[0].release, models, scored, identities, resampling, run)
    return out


def free_name(name: str, taken: dict) -> str:
    """``name``, or ``name-2``, ``name-3`` … when taken: a merge names a repeated model as
    one run does (``unique_names``)."""
    n, free = 1, name
    while free in taken:
        n += 1
        free = f"{name}-{n}"
    return free


def _aligned(rows: pd.DataFrame, scored: dict[str, pd.DataFrame], where: Path) -> pd.DataFrame:
    """``rows`` in the item order of the models read before; refused if the items differ."""
    if not scored:
        return rows
    first = next(iter(scored.values()))["id"]
    if len(rows) != len(first) or set(rows["id"]) != set(first):
        raise InputError(
            where, f"its models scored {len(rows)} items, not the {len(first)} of the others"
        )
    return rows.iloc[pd.Index(rows["id"]).get_indexer(first)].reset_index(drop=True)


def each_model(models: list[str], options: ModelOptions) -> Iterator[tuple[str, LanguageModel]]:
    """(name, model) one at a time; each model's weights are freed before the next loads."""
    for spec, name in zip(models, unique_names(models), strict=True):
        lm = load_model(spec, options, name)
        try:
            yield name, lm
        finally:
            lm.close()


def interval_frame(
    figures: Figures, x, resampling: Resampling, design: CrossedDesign | None = None
) -> pd.DataFrame:
    """One row per figure: its value and bootstrap interval (two-way when ``design``)."""
    bounds = intervals(figures, x, resampling, design)
    return pd.DataFrame(
        {
            "figure": figures.names,
            "value": figures.compute(x),
            "low": bounds[:, 0],
            "high": bounds[:, 1],
        }
    )


# (figures, a's features, b's features[, crossed design of the common items])
Pairing = Callable[[str, str], tuple]


def comparisons(names: list[str], pairing: Pairing, resampling: Resampling) -> pd.DataFrame:
    """Every pair of models on their common items: differences, paired bootstrap intervals,
    permutation p-values and Holm-adjusted p-values over the whole table."""
    rows = []
    for a, b in itertools.combinations(names, 2):
        figures, xa, xb, *design = pairing(a, b)
        compared = compare(figures, xa, xb, resampling, design[0] if design else None)
        rows += [{"model_a": a, "model_b": b, **r} for r in compared]
    table = pd.DataFrame(
        rows, columns=["model_a", "model_b", "figure", "difference", "low", "high", "p"]
    )
    table["p_holm"] = holm(table["p"]) if len(table) else []
    table["significant"] = table["p_holm"] < 0.05
    return table


def comparison_blocks(table: pd.DataFrame, resampling: Resampling, digits: int = 2) -> list:
    """The comparisons section: what the test is, then the table."""
    if table.empty:
        return [Paragraph("One model: nothing to compare.")]
    shown = pd.DataFrame(
        {
            "model A": table["model_a"],
            "model B": table["model_b"],
            "figure": table["figure"],
            "A − B [95% CI]": [
                with_interval(d, lo, hi, digits)
                for d, lo, hi in table[["difference", "low", "high"]].itertuples(index=False)
            ],
            "p": table["p"],
            "p (Holm)": table["p_holm"],
            "significant": table["significant"].map({True: "yes", False: "no"}),
        }
    )
    text = (
        f"Paired on the same items: the interval is a paired bootstrap ({resampling.n_resamples} "
        "resamples, stratified like the intervals above), the p-value a paired permutation test "
        "(`scipy.stats.permutation_test`, each item's two outcomes swapped at random), and the "
        f"p-values of this table are adjusted together by Holm's method ({len(table)} tests); "
        "'significant' means Holm-adjusted p < 0.05."
    )
    return [Paragraph(text), Table(shown, 3)]


def interval_note(resampling: Resampling, strata: str) -> Paragraph:
    """What the brackets mean, said once per report."""
    if not resampling.enabled:
        return Paragraph("Intervals were turned off (`--bootstrap 0`).")
    return Paragraph(
        f"Brackets are {resampling.level:.0%} percentile bootstrap intervals: items resampled "
        f"with replacement within {strata}, {resampling.n_resamples} resamples "
        f"(`scipy.stats.bootstrap`, seed {resampling.seed}). Design: conditional on {strata} "
        "— those are held fixed, not resampled — so an interval says how much a figure would "
        "move with another draw of items for these same ones; it does not cover another "
        "choice of them (resampling them too would widen it), nor how far the items are from "
        "the population of sentences they stand for."
    )


def provenance_blocks(dataset: dict, identities: list[ModelIdentity], procedures: dict) -> list:
    """Dataset version and sha256, each model's identity and the procedure it was scored with."""
    version = " ".join(str(dataset.get(k) or "") for k in ("name", "version")).strip()
    blocks: list = [
        Heading("Dataset and models"),
        Paragraph(
            f"Dataset `{dataset['path']}`"
            + (f" — release **{version}**" if version else "")
            + (f", sha256 `{dataset['sha256']}`" if dataset.get("sha256") else "")
            + "."
        ),
    ]
    rows = []
    for identity in identities:
        rows.append(
            {
                "model": identity.name,
                "identity": identity.label,
                "source": identity.source,
                "kind": identity.kind,
                "revision": identity.revision or "–",
                "weights sha256": (
                    f"{identity.sha256} ({identity.sha256_of})" if identity.sha256 else "–"
                ),
                "dtype": identity.dtype,
                "quantisation": identity.quantisation,
                "parameters": identity.parameters,
                **procedures.get(identity.name, {}),
            }
        )
    blocks.append(Table(pd.DataFrame(rows), 0))
    return blocks


def cross_model_blocks(per_item: pd.DataFrame, out: Path, xlabel: str, what: str) -> list:
    """Distribution plot and (two models or more) per-item correlation heatmap, with files."""
    plots.bias_distribution(
        per_item, out / "bias_distribution.png", xlabel, f"{what}: distribution per model"
    )
    blocks: list = [Figure("bias_distribution.png", f"{what}: per-item bias, one line per model")]
    if per_item.shape[1] >= 2:
        rho, pval = correlation_matrix(per_item.dropna())
        rho.to_csv(out / "bias_correlation.csv")
        pval.to_csv(out / "bias_correlation_pvalues.csv")
        plots.correlation_heatmap(
            rho, out / "bias_correlation.png", f"{what}: per-item correlation"
        )
        blocks += [
            Paragraph(
                "Per-item bias correlation across models (Spearman ρ; permutation p-values in "
                "`bias_correlation_pvalues.csv`):"
            ),
            Table(rho.reset_index(names="model"), 3),
            Figure("bias_correlation.png", f"{what}: Spearman ρ of per-item bias across models"),
        ]
    return blocks


def write_reports(stage: Path, document: Document) -> None:
    """``report.md`` and the self-contained ``report.html`` from one document."""
    from biasforge.scoring.html import to_html

    write_text_atomic(stage / "report.md", to_markdown(document))
    write_text_atomic(stage / "report.html", to_html(document, stage))


def finish(
    stage: Path,
    command: str,
    dataset: dict,
    models: list[str],
    identities: list[ModelIdentity],
    options: dict,
    procedures: dict[str, dict] | None = None,
) -> None:
    """``models.json`` (every model's identity and, when given, the procedure it was scored
    with), then the manifest, written last, with the release identity under ``release``."""
    procedures = procedures or {}
    write_json_atomic(
        stage / "models.json",
        [{**asdict(i), **procedures.get(i.name, {})} for i in identities],
    )
    write_manifest(
        stage,
        command,
        dataset["path"],
        models,
        {**options, "dataset_sha256": dataset.get("sha256", ""), "dataset_files": dataset["files"]},
        dataset,
    )
