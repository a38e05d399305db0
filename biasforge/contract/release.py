"""The release folder: the output of ``export release`` and the input of scoring and converters.

``releases/NAME/VERSION/`` holds one ``CONFIG/test.parquet`` per config, ``README.md`` (the
dataset card), ``CHANGELOG.md`` and ``manifest.json`` (kind ``release``: name, version, family,
configs, the sha256 of every file, and the manifests of the reviewed folders and runs it was
made from, embedded, so nothing needs to find those folders again). Written here, read here:
every reader verifies the folder against its manifest before it uses a row.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from biasforge.contract.manifest import (
    Manifest,
    check_records_family,
    verify_manifest,
    write_manifest,
)
from biasforge.contract.rundir import read_table
from biasforge.errors import InputError
from biasforge.files import MANIFEST, write_text_atomic

KIND = "release"
SPLIT = "test"  # every config of a release is one split
CARD = "README.md"
CHANGELOG = "CHANGELOG.md"
RELEASE_PACKAGES = ("biasforge", "pyarrow", "datasets", "huggingface_hub")


def config_file(config: str) -> str:
    """Where a config's rows live inside a release folder."""
    return f"{config}/{SPLIT}.parquet"


def write_release(
    stage: Path,
    configs: dict[str, pa.Table],
    *,
    card: str,
    changelog: str,
    **fields: Any,
) -> dict[str, Any]:
    """Write a release's files into ``stage`` (a staging folder), its manifest last."""
    for config, table in configs.items():
        (stage / config).mkdir()
        pq.write_table(table, stage / config_file(config))
    write_text_atomic(stage / CARD, card)
    write_text_atomic(stage / CHANGELOG, changelog)
    listing = {
        c: {"split": SPLIT, "file": config_file(c), "rows": t.num_rows} for c, t in configs.items()
    }
    return write_manifest(stage, KIND, packages=RELEASE_PACKAGES, configs=listing, **fields)


def verify_release(path: str | Path, family: str | None = None) -> Manifest:
    """Check a release folder against its manifest (kind, family, every file); the manifest."""
    path = Path(path)
    if not (path / MANIFEST).is_file():
        raise InputError(path, f"not a release: {MANIFEST} is missing")
    return verify_manifest(path, "release", required=(CARD,), kind=KIND, family=family)


@dataclass
class Release:
    """A release read back and verified: its manifest and each config's rows."""

    path: Path
    manifest: Manifest
    configs: dict[str, pa.Table]

    @property
    def label(self) -> str:
        return f"{self.manifest.get('name')}-{self.manifest.get('version')}"


def read_release(path: str | Path, family: str | None = None) -> Release:
    """A verified release: the configs its manifest lists, read from the checked files."""
    path = Path(path)
    manifest = verify_release(path, family)
    listed = manifest.get("configs")
    if not isinstance(listed, dict) or not listed:
        raise InputError(path / MANIFEST, "lists no configs")
    configs = {}
    for config, entry in listed.items():
        name = entry.get("file") if isinstance(entry, dict) else None
        if name not in manifest.files:
            raise InputError(path / MANIFEST, f"config {config!r} names no listed file")
        configs[str(config)] = read_table(path / name)
    check_records_family(path, manifest, *configs.values())
    return Release(path, manifest, configs)
