"""The run directory: the one output of every curation pipeline.

``candidates.parquet`` (kept items), ``rejected.parquet`` (same columns + ``reasons``),
``stats.json``, ``report.md`` and ``manifest.json`` (inputs with checksums, config, package
versions, time). The directory is staged and renamed into place at the end, so a crash never
leaves a half-written run that looks complete; ``manifest.json`` lists the sha256 of every
other file so a reader can tell a tampered or truncated run from a good one.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from biasforge.errors import InputError
from biasforge.files import sha256_file, staged_directory, write_json_atomic, write_text_atomic

RUN_FILES = ("candidates.parquet", "rejected.parquet", "stats.json", "report.md")
_VERSIONED = ("biasforge", "pandas", "pyarrow", "jieba", "spacy", "deepl", "datasets")


def package_versions(names: tuple[str, ...] = _VERSIONED) -> dict[str, str]:
    """Versions of the packages that shape a run's output, for the manifest."""
    versions = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def input_entry(path: str | Path, role: str) -> dict[str, Any]:
    """Describe one input file for the manifest: where, what for, how big, which bytes."""
    path = Path(path)
    return {
        "role": role,
        "path": str(path),
        "bytes": path.stat().st_size,
        "sha256": sha256_file(path),
    }


def _table(frame: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    if frame.empty:  # pandas cannot type the columns of an empty frame; the schema can
        return schema.empty_table()
    return pa.Table.from_pandas(frame, schema=schema, preserve_index=False)


def write_run(
    out: str | Path,
    *,
    candidates: pd.DataFrame,
    rejected: pd.DataFrame,
    schema: pa.Schema,
    stats: dict[str, Any],
    report_md: str,
    inputs: list[dict[str, Any]],
    config: dict[str, Any],
    overwrite: bool = False,
) -> Path:
    """Write a complete run directory at ``out`` atomically and return its path.

    ``schema`` is the Arrow schema of a candidate; rejected rows use it plus ``reasons``, so
    both files have the same typed columns even when one of them is empty.
    """
    rejected_schema = schema.append(pa.field("reasons", pa.list_(pa.string())))
    with staged_directory(out, overwrite=overwrite) as stage:
        pq.write_table(_table(candidates, schema), stage / "candidates.parquet")
        pq.write_table(_table(rejected, rejected_schema), stage / "rejected.parquet")
        write_json_atomic(stage / "stats.json", stats)
        write_text_atomic(stage / "report.md", report_md)
        manifest = {
            "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "config": config,
            "inputs": inputs,
            "versions": package_versions(),
            "files": {name: sha256_file(stage / name) for name in RUN_FILES},
        }
        write_json_atomic(stage / "manifest.json", manifest)
    return Path(out)


@dataclass
class Run:
    """A finished run directory, read back and verified against its manifest."""

    path: Path
    candidates: pd.DataFrame
    rejected: pd.DataFrame
    stats: dict[str, Any]
    manifest: dict[str, Any]


def read_run(path: str | Path, *, verify: bool = True) -> Run:
    """Read a run directory; refuse one that is incomplete or whose files changed."""
    path = Path(path)
    manifest_path = path / "manifest.json"
    if not path.is_dir():
        raise InputError(path, "not a run directory (no such folder)")
    if not manifest_path.is_file():
        raise InputError(path, "incomplete run directory: manifest.json is missing")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if verify:
        for name, digest in manifest.get("files", {}).items():
            if not (path / name).is_file():
                raise InputError(path / name, "listed in manifest.json but missing")
            if sha256_file(path / name) != digest:
                raise InputError(path / name, "checksum differs from manifest.json (file changed)")
    return Run(
        path=path,
        candidates=pq.read_table(path / "candidates.parquet").to_pandas(),
        rejected=pq.read_table(path / "rejected.parquet").to_pandas(),
        stats=json.loads((path / "stats.json").read_text(encoding="utf-8")),
        manifest=manifest,
    )
