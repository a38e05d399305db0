"""``biasforge curate …``: build candidate items into a run directory.

One subcommand per registered family that declares a curation command (``Family.curation``),
built-ins and families from the ``biasforge.families`` entry-point group alike. A command that
cannot be imported (a broken third-party family) becomes a command that says why, so it never
breaks the other commands.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import typer

from biasforge import families
from biasforge.errors import BiasforgeError
from biasforge.families.base import load_object

app = typer.Typer(help="Build candidate test items into a run directory.", no_args_is_help=True)


def _unavailable(name: str, problem: str) -> Callable[[], None]:
    def command() -> None:
        raise BiasforgeError(f"curate {name} is unavailable: {problem}")

    command.__doc__ = f"(unavailable: {problem})"
    return command


def _checks_out(family: str, command: Callable[..., None]) -> Callable[..., None]:
    """``command``, refusing its ``--out`` before any work when the run could not replace
    what is there (another family's run, a user's folder; see
    :func:`biasforge.contract.rundir.check_run_out`)."""

    @functools.wraps(command)  # typer reads the options from the wrapped signature
    def checked(*args: Any, **kwargs: Any) -> None:
        if kwargs.get("out") is not None:
            from biasforge.contract.rundir import check_run_out

            check_run_out(kwargs["out"], family, bool(kwargs.get("overwrite")))
        command(*args, **kwargs)

    return checked


for _name in families.names():
    _spec = families.get(_name).curation
    if _spec:
        try:
            _command = _checks_out(_name, load_object(_spec))
        except BiasforgeError as exc:
            _command = _unavailable(_name, str(exc))
        app.command(_name)(_command)
