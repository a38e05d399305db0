"""The inputs of a release: reviewed records from ``annotate pull``, or (explicitly) a run.

Both are read through the contract (:func:`biasforge.contract.folders.read_folder`, by the
kind the folder's manifest names), which verifies them; only ``decision == "accept"`` rows of
reviewed records are released. A
curation run directory (``candidates.parquet``) is released only with ``--unreviewed``, so
nobody publishes unreviewed machine output by accident. Rows are read as Arrow tables so the
release keeps the candidates' exact column types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from biasforge.contract.folders import read_folder
from biasforge.contract.manifest import Manifest, read_json_object
from biasforge.contract.redact import public_path
from biasforge.contract.reviewed import AGREEMENT, REVIEWED, Reviewed, is_reviewed
from biasforge.contract.reviewed import KIND as REVIEWED_KIND
from biasforge.contract.rundir import CANDIDATES, STATS, Run, is_run
from biasforge.contract.rundir import KIND as RUN_KIND
from biasforge.errors import BiasforgeError, InputError


@dataclass
class ReleaseInput:
    """One input folder, read and verified, with what the card needs to describe it."""

    path: Path
    kind: str  # "reviewed" or "run"
    table: pa.Table  # the rows to release (accepted, or every candidate of a run)
    manifest: Manifest
    stats: dict[str, Any] = field(default_factory=dict)  # the curation run's stats.json
    agreement: dict[str, Any] | None = None
    decisions: dict[str, int] = field(default_factory=dict)  # reviewed: accept/reject/pending
    source_sha256: str = ""
    run_manifest: dict[str, Any] = field(default_factory=dict)  # reviewed: the run behind them
    excluded_changed: int | None = None  # items left out by --exclude-changed (None: kept)

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
            **(
                {"excluded_changed": self.excluded_changed}
                if self.excluded_changed is not None
                else {}
            ),
        }


def _read_json(path: Path) -> dict[str, Any] | None:
    return read_json_object(path) if path.is_file() else None


def _from_reviewed(reviewed: Reviewed) -> ReleaseInput:
    """Accepted rows of a verified reviewed-records folder; the run behind them comes from the
    manifest, which embeds the run's manifest and stats."""
    path = reviewed.path
    stats = _read_json(path / STATS) or reviewed.run_stats
    return ReleaseInput(
        path=path,
        kind="reviewed",
        table=reviewed.accepted,
        manifest=reviewed.manifest,
        stats=stats,
        agreement=reviewed.agreement or None,
        decisions=reviewed.decisions,
        source_sha256=reviewed.manifest.digest(REVIEWED),
        run_manifest=reviewed.run_manifest,
    )


def _from_run(run: Run) -> ReleaseInput:
    path = run.path
    return ReleaseInput(
        path=path,
        kind="run",
        table=run.table,
        manifest=run.manifest,
        stats=run.stats,
        agreement=_read_json(path / AGREEMENT),
        source_sha256=run.manifest.digest(CANDIDATES),
    )


def exclude_changed(item: ReleaseInput) -> ReleaseInput:
    """Leave out the items whose labels review changed from the source's (``--exclude-changed``);
    the card says how many."""
    from biasforge.families.base import LABELS_CHANGED

    name = LABELS_CHANGED[0]
    if name not in item.table.column_names:
        raise InputError(
            item.path,
            f"--exclude-changed: no {name!r} column (its family's source carries no labels, "
            "or it was pulled by a biasforge that did not compare them)",
        )
    keep = pc.invert(pc.fill_null(item.table.column(name), False))
    kept = pc.sum(keep.cast("int64")).as_py() or 0  # the sum of no row is null
    item.excluded_changed = item.table.num_rows - kept
    item.table = item.table.filter(keep)
    return item


def read_input(path: str | Path, *, unreviewed: bool = False) -> ReleaseInput:
    """Read one input folder; a curation run needs ``unreviewed=True``."""
    path = Path(path)
    if is_reviewed(path):
        reviewed = read_folder(path, kind=REVIEWED_KIND)
        assert isinstance(reviewed, Reviewed)
        return _from_reviewed(reviewed)
    if not is_run(path):
        raise InputError(
            path, f"no {REVIEWED} (reviewed records) or {CANDIDATES} (curation run) found"
        )
    if not unreviewed:
        raise BiasforgeError(
            f"{path} is a curation run, not reviewed records: review it with "
            "`biasforge annotate push/pull` first, or pass --unreviewed to release "
            "its candidates as they are"
        )
    run = read_folder(path, kind=RUN_KIND)
    assert isinstance(run, Run)
    return _from_run(run)
