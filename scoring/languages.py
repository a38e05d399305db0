"""``score compare --languages``: how far a model's figure moves between languages, on the
items every language shares (issue 44).

A parallel release's ``shared`` config (``export release --parallel``) holds, in each
language, the source items kept in all of them; scoring it gives each language's version of
each item a row. Here each model's rows are cut by language and paired by source item (the
family's ``source_key``, read from the release's items: an item's id differs by language, its
source does not), and for every two languages the family's own figures (its scoring task's
``pairing``, the one models are compared with) are compared on the pairs: the difference,
its **paired bootstrap** percentile interval (``scipy.stats.bootstrap`` through
:func:`biasforge.scoring.uncertainty.compare`: the same source items drawn for both
languages, within the task's strata) and the paired permutation p-value.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd

from biasforge import families
from biasforge.contract.score import check_same_release, read_score_folder
from biasforge.errors import BiasforgeError, InputError
from biasforge.scoring.data import dataset_identity, load_items
from biasforge.scoring.runner.merge import scored_models, task_of
from biasforge.scoring.tasks import Results, Scored, ScoringTask
from biasforge.scoring.uncertainty import Resampling, compare

COLUMNS = ["model", "language_a", "language_b", "pairs", "figure", "difference", "low", "high"]


def source_of(items: pd.DataFrame, family: str) -> pd.Series:
    """Each item's source item (by item id): its family's ``source_key`` columns joined."""
    key = families.get(family).source_key
    missing = [c for c in key if c not in items.columns]
    if missing:
        raise BiasforgeError(f"the items have no {', '.join(missing)}: nothing to pair by")
    joined = items[list(key)].astype(str).agg("\x1f".join, axis=1)
    return pd.Series(joined.to_numpy(), index=items["id"].astype(str))


def _by_language(rows: pd.DataFrame, language: pd.Series, source: pd.Series, lang: str):
    """One language's rows, their id replaced by their source item, in source order."""
    ids = rows["id"].astype(str)
    part = rows[ids.map(language).eq(lang).to_numpy()]
    return part.assign(id=part["id"].astype(str).map(source)).sort_values("id", kind="stable")


def pair_languages(
    task: ScoringTask,
    items: pd.DataFrame,
    scored: dict[str, Scored],
    resampling: Resampling,
) -> pd.DataFrame:
    """Per model and pair of languages, each figure's difference (a − b) with its paired
    interval and p-value, on the source items both languages' rows hold."""
    language = pd.Series(items["language"].astype(str).to_numpy(), index=items["id"].astype(str))
    source = source_of(items, task.family)
    languages = list(dict.fromkeys(language))
    if len(languages) < 2:
        raise BiasforgeError(f"the items are in one language ({languages[0]}): nothing to compare")
    out = []
    for model, s in scored.items():
        parts = {lang: _by_language(s.rows, language, source, lang) for lang in languages}
        for a, b in itertools.combinations(languages, 2):
            common = set(parts[a]["id"]) & set(parts[b]["id"])
            pair = {
                lang: Scored(parts[lang][parts[lang]["id"].isin(common)].reset_index(drop=True),
                             s.identity)
                for lang in (a, b)
            }  # fmt: skip
            results = Results({}, None, pair, resampling, {}, Path("."))
            figures, xa, xb, *design = task.pairing(results, a, b)
            for row in compare(figures, xa, xb, resampling, design[0] if design else None):
                out.append({"model": model, "language_a": a, "language_b": b,
                            "pairs": len(common), **row})  # fmt: skip
    return pd.DataFrame(out, columns=[*COLUMNS, "p"])


def compare_languages(folder: Path, dataset: str, resampling: Resampling) -> pd.DataFrame:
    """:func:`pair_languages` for a score folder and the release (config) it scored, which is
    read to know each item's language and source item (its identity must be the folder's)."""
    read = read_score_folder(folder)
    task = task_of(read)
    found = dataset_identity(dataset)
    check_same_release(folder, read.release, found, "--dataset is")
    items = load_items(dataset, task.family)
    if task.per_model:
        raise InputError(
            folder,
            f"'{read.command}' keeps rows per model folder; comparing languages reads the "
            "per-item rows of one file (CrowS-Pairs, SlguSet, BEC-Pro)",
        )
    scored = scored_models(task, [read], Path(folder))
    try:
        return pair_languages(task, items, scored, resampling)
    except NotImplementedError:
        raise InputError(folder, f"'{read.command}' declares no pairing of items") from None


def report(table: pd.DataFrame, resampling: Resampling) -> str:
    """The table as markdown, with what the interval is."""
    from biasforge.contract.markdown import frame_md

    level = round(100 * resampling.level)
    return (
        frame_md(table, 2)
        + f"\n\nDifference = figure in language_a − figure in language_b on the same source "
        f"items (pairs). [low, high]: {level}% paired bootstrap percentile interval "
        f"(scipy.stats.bootstrap, {resampling.n_resamples} resamples, seed {resampling.seed}; "
        "source items drawn together for both languages, within the figure's strata); "
        "p: paired permutation test.\n"
    )
