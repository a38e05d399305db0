"""Markdown tables and the report/manifest files every score command writes."""

from __future__ import annotations

import math
import platform
import time
from pathlib import Path

import pandas as pd

from biasforge.files import write_json_atomic


def fmt(value, digits: int = 2) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def md_table(frame: pd.DataFrame, digits: int = 2) -> str:
    """A GitHub markdown table of ``frame`` (floats rounded, NaN shown as –)."""
    if frame.empty:
        return "_(no rows)_\n"
    head = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = [
        "| " + " | ".join(fmt(v, digits).replace("|", "\\|") for v in row) + " |"
        for row in frame.itertuples(index=False)
    ]
    return "\n".join([head, rule, *body]) + "\n"


def write_manifest(out: Path, command: str, dataset: str, models: list[str], options: dict) -> None:
    """What was run, on what, with which versions (for reproducibility)."""
    import scipy
    import torch
    import transformers

    from biasforge import __version__

    write_json_atomic(
        out / "manifest.json",
        {
            "command": command,
            "dataset": dataset,
            "models": models,
            "options": options,
            "versions": {
                "biasforge": __version__,
                "python": platform.python_version(),
                "torch": torch.__version__,
                "transformers": transformers.__version__,
                "scipy": scipy.__version__,
                "pandas": pd.__version__,
            },
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )
