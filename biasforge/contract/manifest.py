"""``manifest.json``: the one writer and the one verifier for every folder biasforge produces.

Runs, reviewed records, releases and score reports all end with a manifest that names what
made the folder (``kind``), when, with which package versions, and the sha256 of every file
in it. A reader trusts a folder only after :func:`verify_manifest`: the manifest must parse,
list files, list every file the folder's kind requires and every data file present, and each
listed file must still hold the bytes it was written with. So an edited sentence, a deleted
file or a manifest whose file list was emptied is refused instead of released. The manifest
is not under its own checksums: the readers of each kind check that the family it names is
the family of the records (:func:`check_records_family`), so an edited ``family`` is refused
too.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
import platform
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa

from biasforge.errors import InputError
from biasforge.files import MANIFEST, sha256_file, use_manifest_reader, write_json_atomic
from biasforge.textfiles import read_bytes

# Files whose bytes are data: each one present in a folder must be covered by the manifest.
DATA_SUFFIXES = (".parquet", ".json", ".jsonl", ".tsv", ".csv")
CORE_PACKAGES = ("biasforge", "pandas", "pyarrow")
# The registered family names a manifest's ``family`` is checked against. The registry
# (``biasforge.families``) builds on the contract, so it hands its lookup down when imported
# (``use_family_registry``), as every stage does; the contract never imports it.
_family_names: Callable[[], Iterable[str]] | None = None


def use_family_registry(names: Callable[[], Iterable[str]]) -> None:
    """Check manifests' ``family`` against ``names()`` (the family registry's)."""
    global _family_names
    _family_names = names


def package_versions(names: Iterable[str] = CORE_PACKAGES) -> dict[str, str]:
    """Versions of the packages that shaped a folder's content (missing ones are left out)."""
    versions = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def _listed_files(folder: Path) -> list[Path]:
    """Every visible file under ``folder`` except the manifest (hidden names are staging)."""
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and p.name != MANIFEST
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def now_utc() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def write_manifest(
    folder: str | Path,
    kind: str,
    *,
    packages: Iterable[str] = CORE_PACKAGES,
    **fields: Any,
) -> dict[str, Any]:
    """Write ``folder/manifest.json`` listing the sha256 of every file now in ``folder``.

    Call it last, once every other file is written (inside the staging folder).
    """
    folder = Path(folder)
    manifest = {
        "kind": kind,
        "created_at": now_utc(),
        **fields,
        "versions": package_versions(packages),
        "files": {p.relative_to(folder).as_posix(): sha256_file(p) for p in _listed_files(folder)},
    }
    write_json_atomic(folder / MANIFEST, manifest)
    return manifest


class Manifest(dict[str, Any]):
    """A folder's ``manifest.json``, read once, with what readers ask of it.

    It stays the JSON object as written (a ``dict``): reviewed records embed their run's
    manifest and releases their inputs' as they were, and the bytes written must not change.
    The accessors are what the stages use instead of reaching into the JSON; once returned by
    :func:`verify_manifest`, every file in :attr:`files` holds the bytes it was written with.
    """

    def __init__(self, data: dict[str, Any], folder: Path, identity_file: str | None = None):
        super().__init__(data)
        self.folder = folder
        self.identity_file = identity_file  # the data file that tells two folders apart

    @property
    def kind(self) -> str | None:
        """run, reviewed, release, score or export: which writer made the folder."""
        found = self.get("kind")
        return found if isinstance(found, str) else None

    @property
    def family(self) -> str | None:
        found = self.get("family")
        return found if isinstance(found, str) else None

    @property
    def files(self) -> dict[str, str]:
        """Every listed file (relative to the folder) and its sha256; empty when malformed."""
        found = self.get("files")
        return found if isinstance(found, dict) else {}

    def digest(self, name: str) -> str:
        """The sha256 the manifest lists for ``name``; one clear error when it lists none."""
        if name not in self.files:
            raise InputError(self.folder / MANIFEST, f"does not list {name}")
        return self.files[name]

    @property
    def identity(self) -> str | None:
        """What tells two folders of this kind apart: the sha256 of their data file (a run's
        candidates, reviewed records' rows), None when the kind names none or it is unlisted."""
        return self.files.get(self.identity_file) if self.identity_file else None


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON object from ``path``; one clear error when it is not one."""
    try:
        data = json.loads(read_bytes(path).decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: {exc.msg}", line=exc.lineno) from exc
    except UnicodeDecodeError as exc:
        raise InputError(path, "not UTF-8 text") from exc
    if not isinstance(data, dict):
        raise InputError(path, f"expected a JSON object, found {type(data).__name__}")
    return data


def read_manifest(folder: str | Path, what: str, identity_file: str | None = None) -> Manifest:
    """Parse ``folder/manifest.json`` (not verified: :func:`verify_manifest` checks the files
    too); one clear error when it is missing or not an object."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise InputError(folder, f"incomplete {what}: {MANIFEST} is missing")
    return Manifest(read_json_object(path), Path(folder), identity_file)


def manifest_or_problem(folder: Path) -> Manifest | str:
    """The manifest in ``folder`` (not verified), or why there is none: what deciding whether
    ``--overwrite`` may replace a folder needs (handed to :mod:`biasforge.files`)."""
    try:
        return read_manifest(folder, "folder")
    except InputError as exc:
        missing = not (folder / MANIFEST).is_file()
        return f"{MANIFEST} is missing" if missing else f"{MANIFEST} is unreadable: {exc}"


use_manifest_reader(manifest_or_problem)


def _outside(name: str) -> bool:
    """Whether a listed file name points outside its folder (absolute, ``..``, or a drive)."""
    path = Path(name)
    return path.is_absolute() or ".." in path.parts or "\\" in name or ":" in name


def _check_identity(path: Path, manifest: Manifest, kind: str | None, family: str | None):
    """The manifest says what the folder is: the reader's ``kind`` and a registered family."""
    found = manifest.get("kind")
    if kind is not None and found != kind:
        raise InputError(path, f"kind is {found!r}, expected {kind!r} (wrong kind of folder)")
    named = manifest.get("family")
    if named is None:
        return
    known = sorted(_family_names()) if _family_names is not None else None
    if not isinstance(named, str) or (known is not None and named not in known):
        raise InputError(path, f"unknown family {named!r}; known: {', '.join(known or [])}")
    if family is not None and named != family:
        raise InputError(path, f"holds {named} records, not {family}")


def verify_manifest(
    folder: str | Path,
    what: str,
    required: Iterable[str] = (),
    *,
    kind: str | None = None,
    family: str | None = None,
    identity_file: str | None = None,
) -> Manifest:
    """Read the manifest and check the folder against it; return the manifest (whose
    :attr:`~Manifest.identity` is the sha256 of ``identity_file``).

    Refused: a manifest of another ``kind`` (when given), naming an unregistered family or
    another ``family`` than expected; one without a non-empty ``files`` object, or listing a
    path outside the folder; a ``required`` file or a data file present in the folder that the
    manifest does not list; a listed file that is missing or whose sha256 differs.
    """
    folder = Path(folder)
    manifest = read_manifest(folder, what, identity_file)
    path = folder / MANIFEST
    _check_identity(path, manifest, kind, family)
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        raise InputError(path, "lists no files: the folder's content cannot be verified")
    for name in files:
        if _outside(str(name)):
            raise InputError(path, f"lists {name!r}, a path outside the folder")
    present = {p.relative_to(folder).as_posix() for p in _listed_files(folder)}
    data = {name for name in present if name.endswith(DATA_SUFFIXES)}
    for name in sorted({*required, *data} - set(files)):
        raise InputError(folder / name, f"not listed in {MANIFEST} (unverifiable file)")
    for name, digest in files.items():
        if not isinstance(digest, str) or not (folder / name).is_file():
            raise InputError(folder / name, f"listed in {MANIFEST} but missing")
        if sha256_file(folder / name) != digest:
            raise InputError(folder / name, f"checksum differs from {MANIFEST} (file changed)")
    return manifest


def check_records_family(folder: str | Path, manifest: dict[str, Any], *tables: Any) -> None:
    """The family ``manifest`` names is the only one in the ``family`` column of ``tables``
    (Arrow tables or pandas frames), the records read from ``folder``."""
    named = manifest.get("family")
    other = sorted({str(value) for t in tables for value in _family_values(t)} - {named})
    if named is not None and other:
        raise InputError(
            Path(folder) / MANIFEST,
            f"names family {named!r}, but the records are {other[0]!r} records (was the "
            "manifest edited?)",
        )


def _family_values(table: Any) -> list:
    """The distinct values of an Arrow table's (or pandas frame's) ``family`` column, if any."""
    if isinstance(table, pa.Table):
        return table.column("family").unique().to_pylist() if "family" in table.column_names else []
    return list(table["family"].unique()) if "family" in table.columns else []
