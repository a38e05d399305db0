"""Read items from whatever folder biasforge wrote — a run, reviewed records or a release — or
from one parquet file, always through the verifying reader of that folder's kind.

A path inside a folder (a release's config folder or one of its parquet files) is read after
the whole folder is verified. A folder without a manifest is refused (a release whose
``manifest.json`` was deleted must not pass for data); only a lone parquet file outside any
biasforge folder is read as it is, and is reported as ``kind == "file"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from biasforge.contract.manifest import Manifest, read_manifest
from biasforge.contract.release import KIND as RELEASE
from biasforge.contract.release import Release, read_release
from biasforge.contract.reviewed import KIND as REVIEWED
from biasforge.contract.reviewed import REVIEWED as REVIEWED_FILE
from biasforge.contract.reviewed import Reviewed, read_reviewed
from biasforge.contract.rundir import CANDIDATES, Run, read_run, read_table
from biasforge.contract.rundir import KIND as RUN
from biasforge.errors import InputError
from biasforge.files import MANIFEST


@dataclass
class Items:
    """Rows read from a verified folder (or a lone parquet file) and what they came from."""

    tables: dict[str, pa.Table]  # file (relative to ``root``) -> rows
    kind: str  # run, reviewed, release or file
    root: Path  # the folder holding the manifest (the file itself for a lone file)
    manifest: Manifest | dict[str, Any] = field(default_factory=dict)  # none for a lone file

    @property
    def frame(self) -> pd.DataFrame:
        frames = [table.to_pandas() for table in self.tables.values()]
        return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]

    @property
    def label(self) -> str:
        """``NAME-VERSION`` for a release, else the folder or file name."""
        if self.kind == RELEASE:
            return f"{self.manifest.get('name')}-{self.manifest.get('version')}"
        return self.root.stem


def biasforge_folder(path: Path) -> Path | None:
    """The folder with a manifest that ``path`` is or lies in (two levels up at most)."""
    for folder in (path, path.parent, path.parent.parent)[: 3 if path.is_file() else 2]:
        if folder.is_dir() and (folder / MANIFEST).is_file():
            return folder
    return None


def _inside(root: Path, path: Path) -> str:
    return "" if path == root else path.relative_to(root).as_posix()


def _release_tables(release: Release, path: Path) -> dict[str, pa.Table]:
    root = release.path
    wanted = _inside(root, path)
    files = {entry["file"]: release.configs[c] for c, entry in release.manifest["configs"].items()}
    chosen = {
        name: table
        for name, table in files.items()
        if not wanted or name == wanted or name.startswith(wanted + "/")
    }
    if not chosen:
        raise InputError(path, "not one of the release's configs or files")
    return chosen


def combined_sha256(digests: dict[str, str]) -> str:
    """One digest for the tables read from a folder, the one scores and exported tasks record:
    the file's own for one file, else the sha256 of the sorted "name sha256" lines."""
    import hashlib

    if len(digests) == 1:
        return next(iter(digests.values()))
    listing = "".join(f"{name} {digest}\n" for name, digest in sorted(digests.items()))
    return hashlib.sha256(listing.encode()).hexdigest()


def read_items(path: str | Path, family: str | None = None) -> Items:
    """The rows at ``path``, verified through the contract (see the module docstring).

    Reviewed records give their accepted rows. ``family``, when given, must be the family the
    folder's manifest names.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file or folder")
    root = biasforge_folder(path)
    if root is None:
        if path.is_file() and path.suffix == ".parquet":
            return Items({path.name: read_table(path)}, "file", path)
        raise InputError(
            path, f"not a run, reviewed-records folder or release ({MANIFEST} is missing)"
        )
    folder = read_folder(root, family)
    if isinstance(folder, Release):
        return Items(_release_tables(folder, path), RELEASE, root, folder.manifest)
    if isinstance(folder, Reviewed):
        return Items({REVIEWED_FILE: folder.accepted}, REVIEWED, root, folder.manifest)
    return Items({CANDIDATES: folder.table}, RUN, root, folder.manifest)


#: the folders that hold items, by the kind their manifest names, and the reader of each
READERS = {RUN: read_run, REVIEWED: read_reviewed, RELEASE: read_release}


def read_folder(
    root: str | Path, family: str | None = None, kind: str | None = None
) -> Run | Reviewed | Release:
    """The folder at ``root`` read by the verifying reader of ``kind``, by default the kind its
    manifest names (the one dispatch on folder kinds); another kind (a score folder) is
    refused, and so is a manifest naming another kind than ``kind``."""
    root = Path(root)
    kind = kind or read_manifest(root, "biasforge folder").kind
    if kind not in READERS:
        raise InputError(root / MANIFEST, f"kind {kind!r} holds no items to read")
    return READERS[kind](root, family)
