"""``biasforge curate …``: build candidate items into a run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="Build candidate test items into a run directory.", no_args_is_help=True)


@app.command("becpro")
def becpro(
    lang: Annotated[str, typer.Option("--lang", help="en, es or eu")],
    out: Annotated[Path, typer.Option("--out", help="run directory to create")],
    variant: Annotated[
        str | None,
        typer.Option(help="es: with_articles (default) or without_articles; en/eu: default"),
    ] = None,
    lexicon: Annotated[
        Path | None,
        typer.Option(
            help="folder with professions.tsv, persons.tsv, templates.tsv (default: bundled)"
        ),
    ] = None,
    overwrite: Annotated[bool, typer.Option(help="replace an existing run directory")] = False,
) -> None:
    """Bias Evaluation Corpus with Professions: templates × professions × person phrases."""
    from curation.becpro.pipeline import curate_becpro

    stats = curate_becpro(lang, out, variant=variant, lexicon_dir=lexicon, overwrite=overwrite)
    typer.echo(
        f"becpro {stats['language']}/{stats['variant']}: {stats['kept']} items kept "
        f"({stats['needs_review']} flagged for review), {stats['rejected']} rejected "
        f"-> {out}/candidates.parquet, report: {out}/report.md"
    )
