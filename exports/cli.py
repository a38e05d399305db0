"""``biasforge export …``: releases and compatibility formats."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    help="Release reviewed items and convert them to other tools' formats.", no_args_is_help=True
)


class Format(StrEnum):
    becpro_tsv = "becpro-tsv"


class Masking(StrEnum):
    original = "original"
    spans = "spans"


@app.command("convert")
def convert(
    source: Annotated[Path, typer.Argument(help="run directory, release folder or parquet file")],
    format: Annotated[Format, typer.Option("--format", help="output layout")],
    out: Annotated[Path, typer.Option("--out", help="file to write")],
    masking: Annotated[
        Masking,
        typer.Option(
            help="becpro-tsv: 'original' reproduces the published corpus, 'spans' masks exactly the words"
        ),
    ] = Masking.original,
) -> None:
    """Write items in another tool's layout (the original BEC-Pro TSV, …)."""
    from exports.becpro_tsv import write_becpro_tsv
    from exports.sources import load_items

    items = load_items(source)
    info = write_becpro_tsv(items, out, masking.value)
    other = "spans" if masking is Masking.original else "original"
    typer.echo(
        f"wrote {info['rows']} rows to {out} ({masking.value} masking; "
        f"{info['rows_where_maskings_differ']} rows would differ with --masking {other})"
    )
