"""``biasforge curate becpro``: a thin layer over :func:`biasforge.curation.becpro.curate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.contract.rundir import CANDIDATES, REPORT
from biasforge.curation.commands import options as check


def becpro(
    lang: Annotated[
        str,
        typer.Option(
            "--lang",
            help="a language of the lexicon (bundled: de, en, es, eu, fr) or the path of a "
            "language folder (./it); see docs/becpro-languages.md",
        ),
    ],
    out: check.Out,
    variant: Annotated[
        str | None,
        typer.Option(
            help="one of the language's variants (language.toml); es: with_articles (default) "
            "or without_articles"
        ),
    ] = None,
    lexicon: Annotated[
        Path | None,
        typer.Option(
            help="a lexicon: professions.tsv and one folder per language, laid out as the "
            "bundled curation/data/becpro (default: bundled)"
        ),
    ] = None,
    encoding: check.encoding_option("--lexicon, a --lang folder") = "utf-8",
    overwrite: check.Overwrite = False,
) -> None:
    """Bias Evaluation Corpus with Professions: templates × professions × person phrases."""
    from biasforge.curation.becpro import Options, curate

    options = Options(lang=lang, variant=variant, lexicon=lexicon, encoding=encoding)
    stats = curate(options, out, overwrite=overwrite).stats
    typer.echo(
        f"becpro {stats['language']}/{stats['variant']}: {stats['kept']} items kept "
        f"({stats['needs_review']} flagged for review), {stats['rejected']} rejected "
        f"-> {out / CANDIDATES}, report: {out / REPORT}"
    )
