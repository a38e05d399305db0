"""``biasforge curate becpro``: lexicon → items → checks → run directory.

Entry point: ``curate(Options(lang="es", variant="without_articles"), out)``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd

from biasforge.contract.redact import public_path
from biasforge.contract.rundir import RunResult, input_entry, write_run
from biasforge.curation.becpro import modules
from biasforge.curation.becpro.build import SCHEMA, SOURCE_LANGUAGE, build_items
from biasforge.curation.becpro.checks import checks_for
from biasforge.curation.becpro.lexicon import (
    GROUPS,
    Language,
    language_folder,
    load_language,
)
from biasforge.curation.becpro.options import Options
from biasforge.curation.checks import CheckResult, run_checks
from biasforge.curation.report import crosstab_md, examples_md, rules_md
from biasforge.errors import BiasforgeError


def source_language(options: Options) -> Language | None:
    """The English of the lexicon (``--lexicon`` or the bundled one)."""
    try:
        language_folder(SOURCE_LANGUAGE, options.lexicon)
    except BiasforgeError:
        return None  # a lexicon without English: items carry no source text
    return load_language(SOURCE_LANGUAGE, options.lexicon, options.encoding)


def curate(options: Options, out: str | Path, *, overwrite: bool = False) -> RunResult:
    """Build one BEC-Pro corpus and write its run directory (where it is, and its stats)."""
    steps: list[dict[str, Any]] = []

    def step(name: str, started: float, items: int) -> None:
        steps.append(
            {"step": name, "items": items, "seconds": round(time.perf_counter() - started, 6)}
        )

    started = time.perf_counter()
    language = options.language()
    variant = options.resolved_variant(language)
    english = source_language(options)
    step(
        "load_lexicon",
        started,
        len(language.professions) + len(language.persons) + len(language.templates),
    )
    if not language.templates_for(variant):
        raise BiasforgeError(
            f"{language.folder / 'templates.tsv'}: no templates for variant {variant!r}"
        )
    module = modules.get(language.grammar.module) if language.grammar.module else None

    started = time.perf_counter()
    items = build_items(language, variant, english)
    step("build_items", started, len(items))

    started = time.perf_counter()
    result = run_checks(items, checks_for(language, module.checks(language) if module else None))
    step("checks", started, len(items))

    config = {
        "family": "becpro",
        "language": language.code,
        "variant": variant,
        "source": language.grammar.source,
    }
    stats = _stats(config, items, result, steps)
    started = time.perf_counter()
    run = write_run(
        out,
        candidates=result.kept,
        rejected=result.rejected,
        schema=SCHEMA,
        stats=stats,
        report_md=_report(config, language, result, stats),
        inputs=[input_entry(path, f"becpro lexicon: {path.name}") for path in language.files()],
        config=config,
        overwrite=overwrite,
    )
    step("write_run", started, len(items))
    return run


def _stats(config: dict, items: pd.DataFrame, result: CheckResult, steps: list) -> dict[str, Any]:
    kept = result.kept
    return {
        **config,
        "items": len(items),
        "kept": len(kept),
        "rejected": len(result.rejected),
        "needs_review": int(kept["needs_review"].sum()),
        "per_group_gender": {
            f"{group}/{gender}": int(
                ((kept.profession_group == group) & (kept.gender == gender)).sum()
            )
            for group in GROUPS
            for gender in ("male", "female")
        },
        "rules": [s.as_dict() for s in result.stats],
        "steps": steps,
    }


def _report(config: dict, language: Language, result: CheckResult, stats: dict) -> str:
    kept = result.kept
    lang, variant = config["language"], config["variant"]
    templates = language.templates_for(variant)
    template_rows = "\n".join(f"{t.index}. `{t.text}`" for t in templates)
    return f"""# BEC-Pro run — {lang} ({variant})

Built from `{public_path(language.folder)}` ({language.grammar.name}): {len(templates)} \
templates × {len(language.professions)} professions × {len(language.persons)} person phrases.
Source: {config["source"]}.

| items | kept | rejected | kept but flagged for review |
|---|---|---|---|
| {stats["items"]} | {stats["kept"]} | {stats["rejected"]} | {stats["needs_review"]} |

## Kept items per profession group and person gender

{crosstab_md(kept, "profession_group", "gender", GROUPS) if len(kept) else "_no items kept_"}

## Kept items per template

{template_rows}

{crosstab_md(kept, "template_index", "gender") if len(kept) else "_no items kept_"}

## Rules

Every item carries the verdict of every rule it met (`checks` column). `reject` rules remove
broken items (kept in `rejected.parquet` with their reasons); `review` rules keep the item and
flag it for annotators because the rules could not decide.

{rules_md(result.stats)}

## Flagged for review (examples)

{examples_md(kept, "review_reasons")}

## Rejected (examples)

{examples_md(result.rejected, "reasons") if len(result.rejected) else "_none_"}
"""
