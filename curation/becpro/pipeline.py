"""``biasforge curate becpro``: lexicon → items → checks → run directory.

Entry point: ``curate(Options(lang="es", variant="without_articles"), out)``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from biasforge.contract.redact import public_path
from biasforge.contract.rundir import RunResult, input_entry, write_run
from biasforge.curation.becpro.build import SCHEMA, build_items
from biasforge.curation.becpro.checks import checks_for
from biasforge.curation.becpro.lexicon import GROUPS, LANGUAGES, VARIANTS, Lexicon, load_lexicon
from biasforge.curation.checks import CheckResult, run_checks
from biasforge.curation.report import crosstab_md, examples_md, rules_md
from biasforge.errors import BiasforgeError


def default_variant(lang: str) -> str:
    return VARIANTS[lang][0]


@dataclass(frozen=True)
class Options:
    """Everything one BEC-Pro run depends on (the run's config is derived from it)."""

    lang: str = "en"
    #: ``with_articles``/``without_articles`` for es, ``default`` elsewhere; None: the first
    variant: str | None = None
    #: folder with professions.tsv, persons.tsv and templates.tsv; None: the bundled lexicon
    lexicon: Path | None = None
    #: encoding of the files of ``lexicon`` (the bundled lexicon is UTF-8)
    encoding: str = "utf-8"

    def resolved_variant(self) -> str:
        """The variant to build, checked against the language (a one-line error otherwise)."""
        if self.lang not in LANGUAGES:
            raise BiasforgeError(
                f"unknown language {self.lang!r}; choose one of {', '.join(LANGUAGES)}"
            )
        variant = self.variant or default_variant(self.lang)
        if variant not in VARIANTS[self.lang]:
            raise BiasforgeError(
                f"language {self.lang!r} has no variant {variant!r}; "
                f"choose one of {', '.join(VARIANTS[self.lang])}"
            )
        return variant


def curate(options: Options, out: str | Path, *, overwrite: bool = False) -> RunResult:
    """Build one BEC-Pro corpus and write its run directory (where it is, and its stats)."""
    lang, variant = options.lang, options.resolved_variant()
    steps: list[dict[str, Any]] = []

    def step(name: str, started: float, items: int) -> None:
        steps.append(
            {"step": name, "items": items, "seconds": round(time.perf_counter() - started, 6)}
        )

    started = time.perf_counter()
    lexicon = load_lexicon(options.lexicon, options.encoding)
    step(
        "load_lexicon",
        started,
        len(lexicon.professions) + len(lexicon.persons) + len(lexicon.templates),
    )
    if not lexicon.templates_for(lang, variant):
        raise BiasforgeError(
            f"{lexicon.directory / 'templates.tsv'}: no templates for {lang}/{variant}"
        )

    started = time.perf_counter()
    items = build_items(lexicon, lang, variant)
    step("build_items", started, len(items))

    started = time.perf_counter()
    result = run_checks(items, checks_for(lang))
    step("checks", started, len(items))

    config = {"family": "becpro", "language": lang, "variant": variant}
    stats = _stats(config, items, result, steps)
    started = time.perf_counter()
    run = write_run(
        out,
        candidates=result.kept,
        rejected=result.rejected,
        schema=SCHEMA,
        stats=stats,
        report_md=_report(config, lexicon, result, stats),
        inputs=[input_entry(path, f"becpro lexicon: {path.name}") for path in lexicon.files()],
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


def _report(config: dict, lexicon: Lexicon, result: CheckResult, stats: dict) -> str:
    kept = result.kept
    lang, variant = config["language"], config["variant"]
    templates = lexicon.templates_for(lang, variant)
    template_rows = "\n".join(f"{t.index}. `{t.text}`" for t in templates)
    return f"""# BEC-Pro run — {lang} ({variant})

Built from `{public_path(lexicon.directory)}`: {len(templates)} templates × \
{len(lexicon.professions)} professions × {len(lexicon.persons_for(lang))} person phrases.

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
