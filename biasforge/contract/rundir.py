"""The run directory: the one output of every curation pipeline, and the input of review.

``candidates.parquet`` (kept items, typed by the family's schema), ``rejected.parquet`` (same
columns + ``reasons``), ``stats.json``, ``report.md`` and ``manifest.json`` (inputs with
checksums, config, package versions, sha256 of every file). The directory is staged and
renamed into place at the end, so a crash never leaves a half-written run that looks complete.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from biasforge.contract.manifest import (
    Manifest,
    check_records_family,
    read_json_object,
    verify_manifest,
    write_manifest,
)
from biasforge.contract.redact import public_path
from biasforge.contract.schema import FamilySchema
from biasforge.errors import BiasforgeError, InputError
from biasforge.files import (
    check_replaceable,
    sha256_file,
    staged_directory,
    write_json_atomic,
    write_text_atomic,
)

KIND = "run"
CANDIDATES = "candidates.parquet"
REJECTED = "rejected.parquet"
STATS = "stats.json"
REPORT = "report.md"
RUN_FILES = (CANDIDATES, REJECTED, STATS, REPORT)
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


BATCH_ROWS = 4096


class ParquetRows:
    """Rows appended one by one (or as tables), written to parquet in row groups of
    ``BATCH_ROWS``, so a run of any size never sits in memory; with ``check``, every batch is
    checked against the family's value rules before it is written."""

    def __init__(self, path: Path, schema: pa.Schema, check: FamilySchema | None = None) -> None:
        self.schema = schema
        self.check = check
        self.writer = pq.ParquetWriter(path, schema)
        self.batch: list[dict[str, Any]] = []

    def add(self, row: dict[str, Any]) -> None:
        self.batch.append(row)
        if len(self.batch) >= BATCH_ROWS:
            self.flush()

    def add_table(self, table: pa.Table) -> None:
        self.flush()
        self._write(table)

    def flush(self) -> None:
        if self.batch:
            table = pa.Table.from_pylist(self.batch, schema=self.schema)
            self.batch = []
            self._write(table)

    def _write(self, table: pa.Table) -> None:
        if self.check is not None:
            problems = self.check.check(table)
            if problems:
                first = problems[0]
                raise BiasforgeError(
                    f"{self.check.family} pipeline produced an invalid candidate "
                    f"{first.record}: {first}"
                )
        self.writer.write_table(table)

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.writer.close()


@dataclass
class RunWriter:
    """The open files of a run being written: ``kept`` and ``rejected`` rows (typed by the
    family's schema; rejected rows add ``reasons``), then :meth:`finish` with stats and report."""

    stage: Path
    kept: ParquetRows
    rejected: ParquetRows
    stats: dict[str, Any] | None = None

    def finish(self, stats: dict[str, Any], report_md: str) -> None:
        self.kept.close()
        self.rejected.close()
        write_json_atomic(self.stage / STATS, stats)
        write_text_atomic(self.stage / REPORT, report_md)
        self.stats = stats


def check_run_out(out: str | Path, family: str, overwrite: bool = False) -> None:
    """Refuse ``out`` before a pipeline starts when its run could not be written there: it
    exists and ``overwrite`` is not set, or it is not a run of ``family`` biasforge wrote."""
    check_replaceable(out, overwrite=overwrite, kind=KIND, family=family)


@contextlib.contextmanager
def run_writer(
    out: str | Path,
    *,
    schema: FamilySchema,
    inputs: list[dict[str, Any]],
    config: dict[str, Any],
    overwrite: bool = False,
) -> Iterator[RunWriter]:
    """The one writer of run directories, for every family: rows stream into a staging folder
    that becomes ``out`` (with its manifest) only when the block calls ``finish`` and ends.

    A candidate breaking a value rule is a pipeline bug, so nothing is written and the error
    names the record and column.
    """
    rejected_schema = schema.arrow.append(pa.field("reasons", pa.list_(pa.string())))
    with staged_directory(out, overwrite=overwrite, kind=KIND, family=schema.family) as stage:
        writer = RunWriter(
            stage,
            ParquetRows(stage / CANDIDATES, schema.arrow, check=schema),
            ParquetRows(stage / REJECTED, rejected_schema),
        )
        try:
            yield writer
        finally:
            writer.kept.close()
            writer.rejected.close()
        if writer.stats is None:
            raise BiasforgeError("a run writer ended without stats and report (a pipeline bug)")
        write_manifest(
            stage,
            KIND,
            family=schema.family,
            config=config,
            inputs=inputs,
            packages=RUN_PACKAGES,
        )


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
    """:func:`run_writer` for a pipeline that holds its rows as frames."""
    required = schema.required()
    kept = _table(candidates, schema.arrow, required)
    with run_writer(
        out, schema=schema, inputs=inputs, config=config, overwrite=overwrite
    ) as writer:
        writer.kept.add_table(kept)
        writer.rejected.add_table(_table(rejected, writer.rejected.schema, required))
        writer.finish(stats, report_md)
    return RunResult(Path(out), stats)


@dataclass
class Run:
    """A finished run directory, read back and verified against its manifest."""

    path: Path
    table: pa.Table  # the candidates with their exact column types
    rejected: pd.DataFrame
    stats: dict[str, Any]
    manifest: Manifest  # its identity: the sha256 of the candidates

    @property
    def candidates(self) -> pd.DataFrame:
        return self.table.to_pandas()


def run_identity(manifest: Manifest) -> str | None:
    """What tells two runs apart: the checksum of their candidates (``Run.manifest.identity``;
    kept for the annotation stage's callers)."""
    return manifest.identity


def is_run(path: str | Path) -> bool:
    return (Path(path) / CANDIDATES).is_file()


def read_run(path: str | Path, family: str | None = None) -> Run:
    """Read a run directory; refuse one that is incomplete, of another kind or ``family``, or
    whose files changed."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(path, "not a run directory (no such folder)")
    manifest = verify_manifest(
        path,
        "run directory",
        required=RUN_FILES,
        kind=KIND,
        family=family,
        identity_file=CANDIDATES,
    )
    table, rejected = read_table(path / CANDIDATES), read_table(path / REJECTED)
    check_records_family(path, manifest, table, rejected)
    return Run(
        path=path,
        table=table,
        rejected=rejected.to_pandas(),
        stats=read_json_object(path / STATS),
        manifest=manifest,
    )


def read_table(path: str | Path) -> pa.Table:
    """A parquet file as an Arrow table; a file that is not parquet is one clear error."""
    try:
        return pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(path, f"cannot read as parquet: {str(exc).splitlines()[0]}") from exc
