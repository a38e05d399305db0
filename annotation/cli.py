"""``biasforge annotate …``: review candidates on Argilla."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Review candidates on Argilla (serve, push, pull, agreement).", no_args_is_help=True
)


@app.callback()
def annotate() -> None:
    """Review candidates on Argilla."""
