"""``curate bbq``: BBQ's instances of the chosen categories into a run directory.

Each instance becomes one candidate with the columns lm-evaluation-harness's BBQ tasks and the
authors' analysis read (context, question, ans0-2, label, answer_info, the metadata) plus
``target_loc`` and ``label_type`` (as the authors' metadata script defines them, for the
single-dimension and the intersectional categories alike).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from biasforge.contract.rundir import RunResult, input_entry, write_run
from biasforge.curation.bbq import generate as single
from biasforge.curation.bbq import intersectional, target
from biasforge.curation.bbq import target_intersectional as crossed

CATEGORIES = (*single.CATEGORIES, *intersectional.CATEGORIES)


@dataclass(frozen=True)
class Options:
    seed: int = 0
    categories: tuple[str, ...] = CATEGORIES
    data_dir: Path | None = None
    lang: str = "en"


def _made(category: str, options: Options) -> tuple[list[dict], Callable, Callable]:
    """The instances of ``category``, the way to find each one's ``target_loc``, and its
    templates' ``label_type``."""
    data_dir = options.data_dir
    if category in intersectional.CATEGORIES:
        made = intersectional.generate(category, options.seed, data_dir)
        return made, crossed.locator(category, data_dir), crossed.label_typer(category, data_dir)
    made = single.generate(category, options.seed, data_dir)
    return made, target.locator(category, data_dir), target.label_type


def _rows(category: str, options: Options) -> list[dict]:
    made, locate, label_type = _made(category, options)
    return [
        {
            "id": f"{category}-{item['example_id']}",
            "family": "bbq",
            "language": options.lang,
            "source_id": f"{category}-{item['example_id']}",
            "source_language": "en",
            "source_text": item["context"],
            **{k: item[k] for k in ("category", "example_id", "question_index")},
            **{k: item[k] for k in ("question_polarity", "context_condition", "context")},
            **{k: item[k] for k in ("question", "ans0", "ans1", "ans2", "label")},
            "answer_info": item["answer_info"],
            "additional_metadata": item["additional_metadata"],
            "target_loc": locate(item),
            "label_type": label_type(item["question_index"]),
            "checks": [],
            "needs_review": False,
            "review_reasons": [],
        }
        for item in made
    ]


def curate(options: Options, out: Path, *, schema, overwrite: bool = False) -> RunResult:
    """Generate the categories of ``options`` and write them as a run directory."""
    rows = [row for category in options.categories for row in _rows(category, options)]
    kept = pd.DataFrame(rows)
    kept["target_loc"] = kept["target_loc"].astype("Int64")
    data_dir = options.data_dir or single.default_data_dir()
    per_category = kept.groupby("category").size().to_dict()
    stats = {
        "family": "bbq",
        "language": options.lang,
        "kept": len(kept),
        "rejected": 0,
        "seed": options.seed,
        "categories": per_category,
    }
    report = "# BBQ run\n\n" + "\n".join(f"- {c}: {n}" for c, n in per_category.items()) + "\n"
    inputs = [
        input_entry(data_dir / "vocabulary.csv", "bbq vocabulary"),
        input_entry(data_dir / "vocabulary_proper_names.csv", "bbq proper names"),
    ]
    inputs += [
        input_entry(data_dir / "templates" / f"{c}.csv", f"bbq templates: {c}")
        for c in options.categories
    ]
    return write_run(
        out,
        schema=schema,
        candidates=kept,
        rejected=kept.iloc[0:0].assign(reasons=[]),
        stats=stats,
        report_md=report,
        inputs=inputs,
        config={"family": "bbq", "seed": options.seed, "categories": list(options.categories)},
        overwrite=overwrite,
    )
