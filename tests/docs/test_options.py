"""Every option of every ``biasforge`` command in the documentation exists, in run and
skipped blocks alike (a skipped block still teaches the option): the command line is read
from the CLI's own click tree, so a renamed or misspelt option fails here, not for a reader."""

from __future__ import annotations

import shlex

import pytest
import typer

from tests.docs.blocks import all_blocks

BLOCKS = all_blocks()
OPERATORS = {";", "&&", "||", "|", "&", "(", ")", "$("}


def _tokens(code: str):
    """Shell words of each line (continuations joined), a ``;`` between lines."""
    for line in code.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        yield from lexer
        yield ";"


def invocations(code: str) -> list[list[str]]:
    """The argument lists of the ``biasforge`` commands in a block (continuations joined,
    comments dropped, one list per command of a pipeline or list)."""
    found, current = [], None
    for token in _tokens(code):
        if token in OPERATORS or token.startswith("$("):
            current = None
        elif token == "biasforge" or token.endswith("/biasforge"):
            current = []
            found.append(current)
        elif current is not None:
            current.append(token)
    return found


def command_of(args: list[str]) -> tuple[object, list[str], list[str]]:
    """The command ``args`` names (typer's click tree), its path, and the arguments after it."""
    from biasforge.cli import app

    command = typer.main.get_command(app)
    path: list[str] = []
    rest = list(args)
    while hasattr(command, "list_commands") and rest and not rest[0].startswith("-"):
        sub = command.get_command(None, rest[0])
        if sub is None:
            raise AssertionError(f"biasforge {' '.join([*path, rest[0]])}: no such command")
        command, path, rest = sub, [*path, rest[0]], rest[1:]
    return command, path, rest


def option_names(command: object) -> set[str]:
    names = {"--help"}
    for param in command.params:
        if param.param_type_name == "option":
            names.update(param.opts, param.secondary_opts)
    return names


@pytest.mark.parametrize("block", [b for b in BLOCKS if "biasforge" in b.code], ids=lambda b: b.id)
def test_every_option_exists(block):
    for args in invocations(block.code):
        if block.skip == "plugin" and args[:1] in (["curate"], ["score"]):
            continue  # the tutorial's own family: not installed here (tests/toy_family runs it)
        command, path, rest = command_of(args)
        known = option_names(command)
        for arg in rest:
            if arg.startswith("-") and arg != "-" and not arg.lstrip("-")[:1].isdigit():
                name = arg.split("=", 1)[0]
                assert name in known, (
                    f"{block.id}: biasforge {' '.join(path)} has no option {name} "
                    f"(it has {', '.join(sorted(known))})"
                )
