"""``biasforge curate bbq``: a thin layer over :func:`biasforge.curation.bbq.pipeline.curate`."""

from __future__ import annotations

from typing import Annotated

import typer

from biasforge.contract.rundir import CANDIDATES
from biasforge.curation import options as check
from biasforge.curation.translation import options as translation
from biasforge.errors import BiasforgeError


def bbq(
    out: check.Out,
    lang: Annotated[
        str,
        typer.Option(
            "--lang",
            help="language of the instances: en (the authors' templates), or another, whose "
            "templates and words are translated (single-dimension categories)",
        ),
    ] = "en",
    seed: Annotated[int, typer.Option(help="seed of every draw (same seed, same run)")] = 0,
    category: Annotated[
        list[str] | None, typer.Option(help="a category to build (repeat; default: all)")
    ] = None,
    translator: translation.Translator = "deepl",
    server_url: translation.ServerUrl = None,
    glossary: translation.Glossary = None,
    memory: translation.Memory = None,
    overwrite: check.Overwrite = False,
) -> None:
    """BBQ from the authors' templates: all 11 categories, seeded; in another language from
    its templates and vocabulary translated (DeepL + memory), not its instances."""
    from biasforge.curation.bbq import intersectional as crossed
    from biasforge.curation.bbq.pipeline import CATEGORIES, Options, curate
    from biasforge.curation.translation.settings import TranslationSettings
    from biasforge.families.bbq import SCHEMA

    english = lang.lower() == "en"
    unknown = sorted(set(category or ()) - set(CATEGORIES))
    if unknown:
        raise BiasforgeError(
            f"--category {unknown[0]!r}: not a BBQ category; choose from {', '.join(CATEGORIES)}"
        )
    chosen = tuple(category or (c for c in CATEGORIES if english or c not in crossed.CATEGORIES))
    crossing = sorted(set(chosen) & set(crossed.CATEGORIES))
    if crossing and not english:
        raise BiasforgeError(
            f"--category {crossing[0]}: the intersectional templates are built in English only "
            f"so far (--lang {lang} builds the nine single-dimension categories)"
        )
    settings = None
    if not english:
        settings = TranslationSettings(
            lang=lang, translator=translator, server_url=server_url, glossary=glossary,
            memory=memory,
        )  # fmt: skip
    options = Options(seed=seed, categories=chosen, lang=lang.lower(), translation=settings)
    stats = curate(options, out, schema=SCHEMA, overwrite=overwrite).stats
    typer.echo(
        f"bbq {options.lang}: {stats['kept']} instances, {stats['rejected']} rejected "
        f"-> {out / CANDIDATES}"
    )
