"""The run directory: the one output of every curation pipeline, and the input of review.

``candidates.parquet`` (kept items, typed by the family's schema), ``rejected.parquet`` (same
columns + ``reasons``), ``stats.json``, ``report.md`` and ``manifest.json`` (inputs with
checksums, config, package versions, sha256 of every file). The directory is staged and
renamed into place at the end, so a crash never leaves a half-written run that looks complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from biasforge.contract.manifest import read_json_object, verify_manifest, write_manifest
from biasforge.contract.redact import public_path
from biasforge.contract.schema import FamilySchema
from biasforge.errors import BiasforgeError, InputError
from biasforge.files import sha256_file, staged_directory, write_json_atomic, write_text_atomic

CANDIDATES = "candidates.parquet"
REJECTED = "rejected.parquet"
RUN_FILES = (CANDIDATES, REJECTED, "stats.json", "report.md")
RUN_PACKAGES = ("biasforge", "pandas", "pyarrow", "jieba", "spacy", "deepl", "datasets")


def input_entry(path: str | Path, role: str) -> dict[str, Any]:
    """Describe one input file for the manifest: what for, which file, how big, which bytes.

    The path is written as :func:`biasforge.contract.redact.public_path` writes it (as given
    when relative, package-relative for bundled data, else by name): a published manifest must
    not carry the absolute paths of the machine it was made on; the sha256 identifies the bytes.
    """
    path = Path(path)
    return {
        "role": role,
        "path": public_path(path),
        "bytes": path.stat().st_size,
        "sha256": sha256_file(path),
    }


def _table(frame: pd.DataFrame, schema: pa.Schema, required: list[str]) -> pa.Table:
    """``frame`` typed by ``schema``; optional columns it lacks are filled with nulls."""
    if frame.empty:  # pandas cannot type the columns of an empty frame; the schema can
        return schema.empty_table()
    missing = [name for name in required if name not in frame.columns]
    if missing:
        raise BiasforgeError(f"candidates lack required column(s) {', '.join(missing)}")
    frame = frame.assign(**{n: None for n in schema.names if n not in frame.columns})
    return pa.Table.from_pandas(frame, schema=schema, preserve_index=False)


@dataclass
class RunResult:
    """What a curation entry point returns: where the run is and its ``stats.json``."""

    path: Path
    stats: dict[str, Any]


def write_run(
    out: str | Path,
    *,
    schema: FamilySchema,
    candidates: pd.DataFrame,
    rejected: pd.DataFrame,
    stats: dict[str, Any],
    report_md: str,
    inputs: list[dict[str, Any]],
    config: dict[str, Any],
    overwrite: bool = False,
) -> RunResult:
    """Check the candidates against the family's schema, then write the run atomically.

    Rejected rows use the schema plus ``reasons``, so both files have the same typed columns
    even when one of them is empty. A candidate breaking a value rule is a pipeline bug, so
    nothing is written and the error names the record and column.
    """
    arrow = schema.arrow
    required = schema.required()
    kept = _table(candidates, arrow, required)
    problems = schema.check(kept)
    if problems:
        first = problems[0]
        raise BiasforgeError(
            f"{schema.family} pipeline produced an invalid candidate {first.record}: {first}"
        )
    rejected_schema = arrow.append(pa.field("reasons", pa.list_(pa.string())))
    with staged_directory(out, overwrite=overwrite, kind="run") as stage:
        pq.write_table(kept, stage / CANDIDATES)
        pq.write_table(_table(rejected, rejected_schema, required), stage / REJECTED)
        write_json_atomic(stage / "stats.json", stats)
        write_text_atomic(stage / "report.md", report_md)
        write_manifest(
            stage,
            "run",
            family=schema.family,
            config=config,
            inputs=inputs,
            packages=RUN_PACKAGES,
        )
    return RunResult(Path(out), stats)


@dataclass
class Run:
    """A finished run directory, read back and verified against its manifest."""

    path: Path
    candidates: pd.DataFrame
    rejected: pd.DataFrame
    stats: dict[str, Any]
    manifest: dict[str, Any]


def is_run(path: str | Path) -> bool:
    return (Path(path) / CANDIDATES).is_file()


def read_run(path: str | Path) -> Run:
    """Read a run directory; refuse one that is incomplete or whose files changed."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(path, "not a run directory (no such folder)")
    manifest = verify_manifest(path, "run directory", required=RUN_FILES)
    return Run(
        path=path,
        candidates=read_table(path / CANDIDATES).to_pandas(),
        rejected=read_table(path / REJECTED).to_pandas(),
        stats=read_json_object(path / "stats.json"),
        manifest=manifest,
    )


def read_table(path: str | Path) -> pa.Table:
    """A parquet file as an Arrow table; a file that is not parquet is one clear error."""
    try:
        return pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(path, f"cannot read as parquet: {str(exc).splitlines()[0]}") from exc


def read_candidates_table(path: str | Path) -> pa.Table:
    """A verified run's candidates as an Arrow table (keeps the exact column types)."""
    path = Path(path)
    verify_manifest(path, "run directory", required=RUN_FILES)
    return read_table(path / CANDIDATES)
