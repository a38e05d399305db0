"""The one declaration of what every ``score`` command takes besides its own options.

Issue 24: eleven model options were copied into four commands and had drifted (``score
crowspairs`` had no ``--device-map`` and defaulted to float32). Here they are declared once, as
``inspect.Parameter`` objects with typer annotations; ``biasforge.scoring.cli`` prepends
``LEADING`` and appends ``SHARED`` to each task's own options, and ``run_options`` turns the
values into the ``RunOptions`` the tasks receive. The fixed commands that write a score folder
without loading models (``merge``, ``import-lm-eval``) take the shared options that apply to
them through ``with_shared``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, get_type_hints

import typer

from biasforge.errors import BiasforgeError

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
BatchTokens = Annotated[int, typer.Option(min=1, help="Max padded tokens per batch.")]
MaxBatch = Annotated[int, typer.Option(min=1, help="Max sequences per batch.")]
Limit = Annotated[
    int | None, typer.Option(min=1, help="Score only the first N items (per split); default all.")
]
Overwrite = Annotated[bool, typer.Option(help="Replace an existing output folder.")]
Progress = Annotated[bool, typer.Option(help="Show progress bars.")]
MAX_RESAMPLES = 100_000  # percentile intervals are stable long before; more only exhausts memory
MAX_SEED = 2**32 - 1  # what every generator seeded from it (numpy, torch, random) accepts
Bootstrap = Annotated[
    int,
    typer.Option(
        "--bootstrap",
        min=0,
        max=MAX_RESAMPLES,
        help="Bootstrap resamples for intervals and model comparisons (0: none).",
    ),
]
Seed = Annotated[
    int,
    typer.Option(
        min=0, max=MAX_SEED, help="Seed of the bootstrap, permutation tests and NSP training."
    ),
]


def _option(name: str, annotation: Any, default: Any = inspect.Parameter.empty):
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
    )


# what every score command takes first, before the task's own options
LEADING = (_option("dataset", Dataset), _option("model", Models), _option("out", Out))
# the model and run options every score command takes after the task's own options
SHARED = (
    _option("kind", Kind, "auto"),
    _option("device", Device, "cpu"),
    _option("dtype", Dtype, "auto"),
    _option("device_map", DeviceMap, None),
    _option("max_memory", MaxMemory, None),
    _option("batch_tokens", BatchTokens, 4096),
    _option("max_batch", MaxBatch, 256),
    _option("limit", Limit, None),
    _option("bootstrap", Bootstrap, 1000),
    _option("seed", Seed, 0),
    _option("overwrite", Overwrite, False),
    _option("progress", Progress, True),
)
NAMES = tuple(p.name for p in (*LEADING, *SHARED))


def with_shared(*names: str) -> Callable:
    """Give a fixed ``score`` command (merge, import-lm-eval) the shared options ``names``, as
    ``SHARED`` declares them: they join its signature and reach it as keyword arguments
    (``**shared``), so no command declares a shared option a second time."""
    chosen = [p for p in SHARED if p.name in names]
    unknown = set(names) - {p.name for p in chosen}
    if unknown:
        raise ValueError(f"not shared options: {sorted(unknown)}")

    def decorate(function: Callable) -> Callable:
        signature = inspect.signature(function)
        hints = get_type_hints(function, include_extras=True)  # the typer.Option metadata
        own = [
            p.replace(annotation=hints.get(p.name, p.annotation))
            for p in signature.parameters.values()
            if p.kind != p.VAR_KEYWORD
        ]
        parameters = [*own, *chosen]
        function.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        function.__annotations__ = {p.name: p.annotation for p in parameters}
        return function

    return decorate


def run_options(values: dict[str, Any]):
    """``RunOptions`` from the ``SHARED`` values, the device and dtype checked before any
    model is loaded."""
    from biasforge.scoring.adapters.base import DTYPES, parse_max_memory
    from biasforge.scoring.models import ModelOptions
    from biasforge.scoring.runner import RunOptions
    from biasforge.scoring.uncertainty import Resampling

    quiet_transformers()
    check_device(values["device"])
    if values["dtype"] not in DTYPES:
        raise typer.BadParameter(f"--dtype must be one of {', '.join(DTYPES)}")
    model = ModelOptions(
        kind=values["kind"],
        device=values["device"],
        dtype=values["dtype"],
        batch_tokens=values["batch_tokens"],
        max_batch=values["max_batch"],
        progress=values["progress"],
        device_map=values["device_map"] or None,
        max_memory=parse_max_memory(values["max_memory"] or ""),
    )
    resampling = Resampling(values["bootstrap"], values["seed"])
    return RunOptions(model, resampling, values["limit"], values["overwrite"])


def check_device(device: str) -> None:
    """Refuse a device this torch build cannot use now, before any model is loaded."""
    import torch

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


def quiet_transformers() -> None:
    """No transformers warnings or download bars in the command's output."""
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
