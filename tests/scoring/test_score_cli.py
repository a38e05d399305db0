"""The ``score`` command group is built from the family registry, and every family command
takes the same model and run options, declared once (issue 24)."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from biasforge import families
from biasforge.scoring.cli import app
from biasforge.scoring.options import NAMES
from biasforge.scoring.tasks import registered_tasks

#: every registered family that declares scoring tasks has one command of its own name
FAMILY_COMMANDS = {n for n in families.names() if families.get(n).scoring_tasks}


def _group():
    return typer.main.get_command(app)


def _shape(param) -> tuple:
    """What a user sees of an option: its flags, default, type, and help."""
    return (
        tuple(param.opts),
        tuple(param.secondary_opts),
        param.default,
        param.type_descriptor.annotation,
        param.multiple,
        param.min,
        getattr(param, "help", None),
    )


def test_every_family_command_takes_the_same_model_options():
    group = _group()
    ctx = typer.Context(group)
    commands = {name: group.get_command(ctx, name) for name in FAMILY_COMMANDS}
    shapes = {
        name: {p.name: _shape(p) for p in command.params if p.name in NAMES}
        for name, command in commands.items()
    }
    reference = shapes["stereoset"]
    assert set(reference) == set(NAMES)
    for name, shape in shapes.items():
        assert shape == reference, name
    # the drift issue 24 found: crowspairs lacked --device-map and defaulted to float32
    crows = {p.name: p for p in commands["crowspairs"].params}
    assert crows["dtype"].default == "auto" and "device_map" in crows
    # each command's own options are still its own
    assert "procedure" in {p.name for p in commands["becpro"].params}
    assert "procedure" not in crows and "nsp_corpus" in {
        p.name for p in commands["stereoset"].params
    }


def test_help_lists_the_registered_families_and_only_them():
    group = _group()
    listed = set(group.list_commands(typer.Context(group)))
    assert listed >= FAMILY_COMMANDS
    assert set(registered_tasks()) == FAMILY_COMMANDS
    assert {"stereoset-eval", "prepare-gemma", "compare"} <= listed
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in FAMILY_COMMANDS:
        assert name in result.output


def test_a_family_without_tasks_adds_no_command():
    from dataclasses import replace

    bare = replace(families.get("becpro"), name="bare", scoring_tasks=())
    families.register(bare)
    try:
        assert set(registered_tasks()) == FAMILY_COMMANDS
    finally:
        families.unregister("bare")


def test_a_task_reference_that_does_not_load_is_one_clear_error():
    from dataclasses import replace

    from biasforge.errors import BiasforgeError

    broken = replace(families.get("becpro"), name="broken", scoring_tasks=("no.such:TASK",))
    families.register(broken)
    try:
        with pytest.raises(BiasforgeError, match=r"'no\.such:TASK' cannot be loaded"):
            registered_tasks()
    finally:
        families.unregister("broken")


@pytest.mark.parametrize("command", sorted(FAMILY_COMMANDS))
@pytest.mark.parametrize(
    ("option", "value"), [("--batch-tokens", "0"), ("--max-batch", "-1"), ("--limit", "0")]
)
def test_budgets_and_limit_below_one_are_refused_by_every_command(command, option, value):
    """Issue 27 item 9: ``--batch-tokens 0`` was accepted; ``--limit 0`` meant "all" here and
    "none" in curate. One declaration refuses them for every family command, before loading."""
    args = [command, "-d", "nowhere", "-m", "nothing", "-o", "out", option, value]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    said = " ".join(re.sub("[│╭╮╰╯─]", " ", result.output).split())  # rich wraps its box
    assert f"Invalid value for '{option}': Input should be greater than or equal to 1" in said
    ok = CliRunner().invoke(app, [*args[:-2], option, "1", "--help"])
    assert ok.exit_code == 0
