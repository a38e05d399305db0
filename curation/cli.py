"""``biasforge curate …``: build candidate items into a run directory.

One subcommand per registered family that declares a curation command (``Family.curation``),
built-ins and families from the ``biasforge.families`` entry-point group alike.
"""

from __future__ import annotations

import typer

from biasforge import families
from biasforge.families.base import load_object

app = typer.Typer(help="Build candidate test items into a run directory.", no_args_is_help=True)

for _name in families.names():
    _command = families.get(_name).curation
    if _command:
        app.command(_name)(load_object(_command))
