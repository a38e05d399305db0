"""The reviewed-records folder: the output of ``annotate pull`` and the input of a release.

``reviewed.parquet`` (the run's candidate columns, the review columns and ``decision``),
``decisions.parquet`` (why each record was decided so), ``responses.parquet`` (every answer),
``agreement.json``, ``report.md`` and ``manifest.json`` (kind ``reviewed``: dataset, family,
policy, and the manifest and stats of the run the records came from, embedded). Written here,
read here; a reader verifies the folder against its manifest first.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from biasforge.contract.manifest import (
    Manifest,
    check_records_family,
    read_json_object,
    verify_manifest,
    write_manifest,
)
from biasforge.contract.rundir import read_table
from biasforge.errors import InputError
from biasforge.files import write_json_atomic, write_text_atomic

KIND = "reviewed"
REVIEWED = "reviewed.parquet"
DECISIONS = "decisions.parquet"
RESPONSES = "responses.parquet"
AGREEMENT = "agreement.json"
REPORT = "report.md"


def is_reviewed(path: str | Path) -> bool:
    return (Path(path) / REVIEWED).is_file()


def write_reviewed(
    stage: Path,
    *,
    reviewed: pa.Table,
    details: list[dict[str, Any]],
    responses: pd.DataFrame,
    agreement: dict[str, Any],
    report_md: str,
    provenance: dict[str, Any],
) -> dict[str, Any]:
    """Write the folder's files into ``stage`` (a staging folder), its manifest last.

    ``details`` (one dict per record: how it was decided) go to ``decisions.parquet``;
    ``provenance`` goes into the manifest and should carry ``family``, ``run_manifest`` and
    ``run_stats`` (what a release needs from the run, so nobody looks for the run folder).
    """
    pq.write_table(reviewed, stage / REVIEWED)
    pq.write_table(pa.Table.from_pylist(details), stage / DECISIONS)
    pq.write_table(pa.Table.from_pandas(responses, preserve_index=False), stage / RESPONSES)
    write_json_atomic(stage / AGREEMENT, agreement)
    write_text_atomic(stage / REPORT, report_md)
    return write_manifest(stage, KIND, **provenance)


@dataclass
class Reviewed:
    """A reviewed-records folder read back and verified."""

    path: Path
    table: pa.Table  # every record with its ``decision``
    manifest: Manifest  # its identity: the sha256 of reviewed.parquet
    agreement: dict[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> pa.Table:
        """The rows a release keeps and scoring reads: ``decision == "accept"``, without the
        ``decision`` column (computed here only)."""
        keep = pc.equal(self.table.column("decision"), "accept")
        return self.table.filter(keep).drop_columns(["decision"])

    @property
    def decisions(self) -> dict[str, int]:
        """How many records got each decision (accept, reject, pending)."""
        counts = Counter(str(d) for d in self.table.column("decision").to_pylist())
        return dict(sorted(counts.items()))

    @property
    def run_manifest(self) -> dict[str, Any]:
        value = self.manifest.get("run_manifest")
        return value if isinstance(value, dict) else {}

    @property
    def run_stats(self) -> dict[str, Any]:
        value = self.manifest.get("run_stats")
        return value if isinstance(value, dict) else {}


def read_reviewed(path: str | Path, family: str | None = None) -> Reviewed:
    """A verified reviewed-records folder; refused when a file changed or one is missing."""
    path = Path(path)
    manifest = verify_manifest(
        path,
        "reviewed-records folder",
        required=(REVIEWED,),
        kind=KIND,
        family=family,
        identity_file=REVIEWED,
    )
    table = read_table(path / REVIEWED)
    check_records_family(path, manifest, table)
    if "decision" not in table.column_names:
        raise InputError(path / REVIEWED, "no 'decision' column: not reviewed records")
    agreement = read_json_object(path / AGREEMENT) if (path / AGREEMENT).is_file() else {}
    return Reviewed(path, table, manifest, agreement)
