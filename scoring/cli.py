"""``biasforge score …``: evaluate models on a release."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Score language models on a release (StereoSet, SlguSet, BEC-Pro).", no_args_is_help=True
)


@app.callback()
def score() -> None:
    """Score language models on a release."""
