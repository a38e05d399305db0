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
from biasforge.curation.bbq.checks import ANSWERS, CHECKS, PRIVATE
from biasforge.curation.bbq.translation import translate_categories
from biasforge.curation.checks import run_checks
from biasforge.curation.translation.settings import TranslationSettings

CATEGORIES = (*single.CATEGORIES, *intersectional.CATEGORIES)


@dataclass(frozen=True)
class Options:
    seed: int = 0
    categories: tuple[str, ...] = CATEGORIES
    data_dir: Path | None = None
    lang: str = "en"
    #: how the templates and vocabulary reach ``lang`` (None: English, the authors' own)
    translation: TranslationSettings | None = None
    progress: bool = True


#: what an intersectional instance records of its making (its templates are not corrected yet)
UNRECORDED = {"template_context": None, "fillers": None}


def _made(category: str, options: Options, rendering=None) -> tuple[list, list, Callable, Callable]:
    """The instances of ``category`` (in ``rendering``'s language, else English), what each
    was made from, the way to find each one's ``target_loc``, and its templates' ``label_type``."""
    data_dir = options.data_dir
    if category in intersectional.CATEGORIES:
        made = intersectional.generate(category, options.seed, data_dir)
        locate, typer = crossed.locator(category, data_dir), crossed.label_typer(category, data_dir)
        return made, [UNRECORDED] * len(made), locate, typer
    record: list[dict] = []
    made = single.generate(category, options.seed, data_dir, rendering, record)
    return made, record, target.locator(category, data_dir), target.label_type


def _row(
    item: dict, lang: str, english: dict, target_loc, label_type: str, made_from: dict
) -> dict:
    """One candidate: ``item`` in ``lang``, its English twin ``english`` (the same item when
    English) giving its source text, ``made_from`` its template and fillers."""
    source_id = f"{item['category']}-{item['example_id']}"
    return {
        "id": source_id if lang == "en" else f"{source_id}-{lang}",
        "family": "bbq",
        "language": lang,
        "source_id": source_id,
        "source_language": "en",
        "source_text": english["context"],
        **{k: item[k] for k in ("category", "example_id", "question_index")},
        **{k: item[k] for k in ("question_polarity", "context_condition", "context")},
        **{k: item[k] for k in ("question", "ans0", "ans1", "ans2", "label")},
        "answer_info": item["answer_info"],
        "additional_metadata": item["additional_metadata"],
        "target_loc": target_loc,
        "label_type": label_type,
        **made_from,
        "checks": [],
        "needs_review": False,
        "review_reasons": [],
    }


def _rows(category: str, options: Options) -> list[dict]:
    made, record, locate, label_type = _made(category, options)
    return [
        _row(item, options.lang, item, locate(item), label_type(item["question_index"]), source)
        for item, source in zip(made, record, strict=True)
    ]


def _translated_rows(category: str, options: Options, rendering, rejected: dict) -> list[dict]:
    """``category`` written from its translated templates, each instance beside its English
    twin (same draws): the twin gives the target and the tags the translation must keep."""
    english, _, locate, label_type = _made(category, options)
    made, record, _, _ = _made(category, options, rendering)
    rows = []
    for item, twin, source in zip(made, english, record, strict=True):
        index = label_type(item["question_index"])
        row = _row(item, options.lang, twin, locate(twin), index, source)
        row["_template_problem"] = rejected.get(str(item["question_index"]), "")
        row["_english_tags"] = [twin["answer_info"][k][1] for k in ANSWERS]
        rows.append(row)
    return rows


def _instances(options: Options) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Kept and rejected instances, and what translating and checking them did."""
    if options.translation is None:
        rows = [row for category in options.categories for row in _rows(category, options)]
        kept = pd.DataFrame(rows)
        return kept, kept.iloc[0:0].assign(reasons=[]), {}
    translated = translate_categories(
        options.categories, options.translation, options.data_dir, options.progress
    )
    rows = [
        row
        for c in options.categories
        for row in _translated_rows(c, options, translated.renderings[c], translated.rejected[c])
    ]
    result = run_checks(pd.DataFrame(rows), CHECKS)
    assert translated.stats is not None
    done = {
        "translation": translated.stats.as_dict(),
        "checks": [s.as_dict() for s in result.stats],
        "templates_rejected": {c: r for c, r in translated.rejected.items() if r},
    }
    return (
        result.kept.drop(columns=list(PRIVATE)),
        result.rejected.drop(columns=list(PRIVATE)),
        done,
    )


def _report(kept: pd.DataFrame, done: dict) -> str:
    per_category = kept.groupby("category").size().to_dict()
    lines = ["# BBQ run", "", *(f"- {c}: {n}" for c, n in per_category.items())]
    for category, rejected in done.get("templates_rejected", {}).items():
        lines += ["", f"## {category}: templates rejected", ""]
        lines += [f"- {q}: {why}" for q, why in rejected.items()]
    return "\n".join(lines) + "\n"


def curate(options: Options, out: Path, *, schema, overwrite: bool = False) -> RunResult:
    """Generate the categories of ``options`` (in ``options.lang``, from templates and words
    translated through ``options.translation``) and write them as a run directory."""
    kept, rejected, done = _instances(options)
    kept["target_loc"] = kept["target_loc"].astype("Int64")
    rejected["target_loc"] = rejected["target_loc"].astype("Int64")
    data_dir = options.data_dir or single.default_data_dir()
    stats = {
        "family": "bbq",
        "language": options.lang,
        "kept": len(kept),
        "rejected": len(rejected),
        "seed": options.seed,
        "categories": kept.groupby("category").size().to_dict(),
        **done,
    }
    inputs = [
        input_entry(data_dir / "vocabulary.csv", "bbq vocabulary"),
        input_entry(data_dir / "vocabulary_proper_names.csv", "bbq proper names"),
    ]
    if options.translation is not None:
        names = data_dir / f"names_{options.lang}.csv"
        inputs.append(input_entry(names, f"bbq first names ({options.lang})"))
    inputs += [
        input_entry(data_dir / "templates" / f"{c}.csv", f"bbq templates: {c}")
        for c in options.categories
    ]
    config = {"family": "bbq", "seed": options.seed, "categories": list(options.categories)}
    if options.translation is not None:
        config |= {"lang": options.lang, "translator": options.translation.translator}
    return write_run(
        out,
        schema=schema,
        candidates=kept,
        rejected=rejected,
        stats=stats,
        report_md=_report(kept, done),
        inputs=inputs,
        config=config,
        overwrite=overwrite,
    )
