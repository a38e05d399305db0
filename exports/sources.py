"""Locate the items an export reads: a curation run directory, a release, or a parquet file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from biasforge.contract.rundir import read_run, read_table
from biasforge.errors import InputError


def load_items(path: str | Path) -> pd.DataFrame:
    """Items from a run directory (its verified ``candidates.parquet``), a release folder (all
    its parquet files) or a single parquet file."""
    path = Path(path)
    if path.is_file() and path.suffix == ".parquet":
        return read_table(path).to_pandas()
    if (path / "candidates.parquet").is_file():
        return read_run(path).candidates
    if path.is_dir():
        if (path / "manifest.json").is_file() and (path / "README.md").is_file():
            from biasforge.exports.release import verify_release

            verify_release(path)  # a release: refuse one whose files changed
        files = sorted(p for p in path.rglob("*.parquet") if not p.name.startswith("."))
        if files:
            return pd.concat([read_table(f).to_pandas() for f in files], ignore_index=True)
    raise InputError(
        path, "no items found: expected a run directory, a release folder or a .parquet file"
    )


def release_label(path: str | Path) -> str:
    """``NAME-VERSION`` when ``path`` is (inside) a release, else the folder or file name."""
    import json

    path = Path(path)
    for folder in (path, path.parent, path.parent.parent):
        manifest = folder / "manifest.json"
        if manifest.is_file():
            data = json.loads(manifest.read_text(encoding="utf-8"))
            if "version" in data and "name" in data:
                return f"{data['name']}-{data['version']}"
    return path.stem
