"""The ``biasforge`` command: one group per package (curate, annotate, export, score).

Each group's commands live with their package; heavy imports (torch, argilla) happen inside
the commands, so ``biasforge --help`` stays fast.
"""

from __future__ import annotations

import sys

import typer

from annotation.cli import app as annotate_app
from biasforge.errors import BiasforgeError
from curation.cli import app as curate_app
from exports.cli import app as export_app
from scoring.cli import app as score_app

app = typer.Typer(
    name="biasforge",
    help="Curate multilingual bias-evaluation datasets, review them on Argilla, release and score.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(curate_app, name="curate")
app.add_typer(annotate_app, name="annotate")
app.add_typer(export_app, name="export")
app.add_typer(score_app, name="score")


def main() -> None:
    """Console entry point: user errors print one clear line and exit 2, no traceback.

    Typer's standalone mode already handles usage errors, ``--help``, exit codes and Ctrl-C;
    only our own errors (bad input, refusing to overwrite) need translating.
    """
    try:
        app()
    except BiasforgeError as exc:
        typer.secho(f"error: {exc}", fg=typer.colors.RED, err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
