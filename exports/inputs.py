"""The inputs of a release: reviewed records from ``annotate pull``, or (explicitly) a run.

A reviewed-records folder holds ``reviewed.parquet`` (candidate columns + ``decision``),
``agreement.json`` and ``manifest.json``; only ``decision == "accept"`` rows are released. A
curation run directory (``candidates.parquet``) is released only with ``--unreviewed``, so
nobody publishes unreviewed machine output by accident. Rows are read as Arrow tables so the
release keeps the candidates' exact column types.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from biasforge.contract.manifest import verify_manifest
from biasforge.contract.redact import public_path
from biasforge.contract.rundir import read_run, read_table
from biasforge.errors import BiasforgeError, InputError
from biasforge.files import sha256_file

REVIEWED_FILE = "reviewed.parquet"
RUN_FILE = "candidates.parquet"


@dataclass
class ReleaseInput:
    """One input folder, read and verified, with what the card needs to describe it."""

    path: Path
    kind: str  # "reviewed" or "run"
    table: pa.Table  # the rows to release (accepted, or every candidate of a run)
    manifest: dict[str, Any]
    stats: dict[str, Any] = field(default_factory=dict)  # the curation run's stats.json
    agreement: dict[str, Any] | None = None
    decisions: dict[str, int] = field(default_factory=dict)  # reviewed: accept/reject/pending
    source_sha256: str = ""
    run_manifest: dict[str, Any] = field(default_factory=dict)  # reviewed: the run behind them

    def curation_manifest(self) -> dict[str, Any]:
        """The manifest of the curation run these rows come from, if known."""
        return self.manifest if self.kind == "run" else self.run_manifest

    def provenance(self) -> dict[str, Any]:
        """What the release manifest records about this input."""
        return {
            "path": public_path(self.path),
            "kind": self.kind,
            "rows_released": self.table.num_rows,
            "decisions": self.decisions,
            "data_sha256": self.source_sha256,
            "manifest": self.manifest,
            "run_manifest": self.run_manifest or None,
        }


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: {exc.msg}", line=exc.lineno) from exc


def _run_near(manifest: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The curation stats and manifest behind reviewed records: embedded in their manifest
    (``run_stats``, ``run_manifest``), or read from the run directory the manifest names (any
    string value, at any depth, that is a folder holding ``stats.json`` and
    ``candidates.parquet``)."""
    if isinstance(manifest.get("run_stats"), dict):
        return manifest["run_stats"], manifest.get("run_manifest") or {}
    stack: list[Any] = [manifest]
    while stack:
        value = stack.pop(0)
        if isinstance(value, dict):
            stack += list(value.values())
        elif isinstance(value, list):
            stack += value
        elif isinstance(value, str) and 0 < len(value) < 4096:
            folder = Path(value)
            try:
                found = (folder / "stats.json").is_file() and (folder / RUN_FILE).is_file()
            except OSError:
                continue
            if found:
                stats = _read_json(folder / "stats.json") or {}
                return stats, _read_json(folder / "manifest.json") or {}
    return {}, {}


def read_reviewed(path: Path) -> ReleaseInput:
    manifest = verify_manifest(path, "reviewed-records folder", required=(REVIEWED_FILE,))
    table = read_table(path / REVIEWED_FILE)
    if "decision" not in table.column_names:
        raise InputError(path / REVIEWED_FILE, "no 'decision' column: not reviewed records")
    decisions = Counter(str(d) for d in table.column("decision").to_pylist())
    accepted = table.filter(pc.equal(table.column("decision"), "accept")).drop_columns(["decision"])
    run_stats, run_manifest = _run_near(manifest)
    stats = _read_json(path / "stats.json") or run_stats
    return ReleaseInput(
        path=path,
        kind="reviewed",
        table=accepted,
        manifest=manifest,
        stats=stats,
        agreement=_read_json(path / "agreement.json"),
        decisions=dict(sorted(decisions.items())),
        source_sha256=sha256_file(path / REVIEWED_FILE),
        run_manifest=run_manifest,
    )


def read_candidates(path: Path) -> ReleaseInput:
    run = read_run(path)  # verifies every file against the run's manifest
    return ReleaseInput(
        path=path,
        kind="run",
        table=read_table(path / RUN_FILE),
        manifest=run.manifest,
        stats=run.stats,
        agreement=_read_json(path / "agreement.json"),
        source_sha256=sha256_file(path / RUN_FILE),
    )


def read_input(path: str | Path, *, unreviewed: bool = False) -> ReleaseInput:
    """Read one input folder; a curation run needs ``unreviewed=True``."""
    path = Path(path)
    if (path / REVIEWED_FILE).is_file():
        return read_reviewed(path)
    if (path / RUN_FILE).is_file():
        if not unreviewed:
            raise BiasforgeError(
                f"{path} is a curation run, not reviewed records: review it with "
                "`biasforge annotate push/pull` first, or pass --unreviewed to release "
                "its candidates as they are"
            )
        return read_candidates(path)
    raise InputError(
        path, f"no {REVIEWED_FILE} (reviewed records) or {RUN_FILE} (curation run) found"
    )
