"""``biasforge curate bbq``: a thin layer over :func:`biasforge.curation.bbq.pipeline.curate`."""

from __future__ import annotations

from typing import Annotated

import typer

from biasforge.contract.rundir import CANDIDATES
from biasforge.curation import options as check
from biasforge.errors import BiasforgeError


def bbq(
    out: check.Out,
    lang: Annotated[
        str, typer.Option("--lang", help="language of the instances (en so far)")
    ] = "en",
    seed: Annotated[int, typer.Option(help="seed of every draw (same seed, same run)")] = 0,
    category: Annotated[
        list[str] | None, typer.Option(help="a category to build (repeat; default: all 11)")
    ] = None,
    overwrite: check.Overwrite = False,
) -> None:
    """BBQ from the authors' templates: all 11 categories, seeded."""
    from biasforge.curation.bbq.pipeline import CATEGORIES, Options, curate
    from biasforge.families.bbq import SCHEMA

    if lang != "en":
        raise BiasforgeError(f"--lang {lang!r}: only en so far (the authors' templates)")
    unknown = sorted(set(category or ()) - set(CATEGORIES))
    if unknown:
        raise BiasforgeError(
            f"--category {unknown[0]!r}: not a BBQ category; choose from {', '.join(CATEGORIES)}"
        )
    options = Options(seed=seed, categories=tuple(category or CATEGORIES), lang=lang)
    stats = curate(options, out, schema=SCHEMA, overwrite=overwrite).stats
    typer.echo(f"bbq {lang}: {stats['kept']} instances -> {out / CANDIDATES}")
