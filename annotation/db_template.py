"""A migrated, empty Argilla database kept in the user's cache: a new data folder starts from a
copy of it instead of running Argilla's migrations and building the search index (about 4 CPU
seconds and a process of their own at every first start).

The template is keyed by argilla-server's version, its migration files and the search index's
schema (``server/sql_index.py``): another Argilla or another index is another template. It is
made by the launcher right after the migrations, before any account exists, so it holds no
password or key. It is published atomically (renamed into place, then its SHA-256 and Alembic
revision in a sidecar, renamed too) and checked before each use: the SHA-256, SQLite's
integrity check and the revision. A template that fails a check is deleted and the start
migrates as before, which makes a new one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

from biasforge.annotation.paths import (
    ARGILLA_SERVER_VERSION,
    cache_dir,
    requirements_digest,
    server_code_dir,
)
from biasforge.files import write_text_atomic


def _migrations(python: Path) -> list[str]:
    """The names of argilla-server's migration files in the server's virtualenv."""
    venv = python.parent.parent
    found = venv.glob("lib/python*/site-packages/argilla_server/alembic/versions/*.py")
    return sorted(path.name for path in found)


def template_key(python: Path) -> str:
    """What the template depends on: Argilla's version and migrations, the index's schema."""
    digest = hashlib.sha256()
    for part in (ARGILLA_SERVER_VERSION, requirements_digest(), *_migrations(python)):
        digest.update(part.encode() + b"\0")
    digest.update((server_code_dir() / "sql_index.py").read_bytes())
    return digest.hexdigest()


def template_path(python: Path) -> Path:
    """Where the template for this server's virtualenv lives (its sidecar: ``.json``)."""
    name = f"argilla-{ARGILLA_SERVER_VERSION}-{template_key(python)[:16]}.sqlite"
    return cache_dir() / "biasforge" / "argilla-db" / name


def _sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _revision(database: Path) -> str | None:
    """The Alembic revision of a database that passes SQLite's integrity check, else None."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
            if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                return None
            (revision,) = db.execute("SELECT version_num FROM alembic_version").fetchone()
            return revision
    except (sqlite3.Error, TypeError):
        return None


def _discard(*paths: Path) -> None:
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def copy_template(python: Path, database: Path) -> bool:
    """Make ``database`` (which must not exist) a checked copy of the template; False when
    there is no usable template (one that fails a check is deleted)."""
    template = template_path(python)
    sidecar = template.with_suffix(".json")
    if not (template.is_file() and sidecar.is_file()):
        return False
    try:
        recorded = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        recorded = {}
    partial = database.with_name(f".{database.name}.partial")
    shutil.copyfile(template, partial)
    if (
        not isinstance(recorded, dict)
        or _sha256(partial) != recorded.get("sha256")
        or _revision(partial) != recorded.get("revision")
        or not any(name.startswith(f"{recorded['revision']}_") for name in _migrations(python))
    ):
        _discard(partial, template, sidecar)
        return False
    with contextlib.closing(sqlite3.connect(partial)) as db:
        db.execute("PRAGMA journal_mode = WAL")  # as the search index's migration leaves it
    os.replace(partial, database)
    return True


def publish_template(python: Path, made: Path) -> None:
    """Keep ``made`` (the launcher's copy of a freshly migrated database) as the template, if
    it is sound; it is moved away from ``made``."""
    revision = _revision(made)
    if revision is None:
        _discard(made)
        return
    with contextlib.closing(sqlite3.connect(made)) as db:
        db.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
    template = template_path(python)
    template.parent.mkdir(parents=True, exist_ok=True)
    staging = template.with_name(f".{template.name}.{os.getpid()}.tmp")
    shutil.move(made, staging)
    sha256 = _sha256(staging)
    os.replace(staging, template)
    sidecar = {"sha256": sha256, "revision": revision, "key": template_key(python)}
    write_text_atomic(template.with_suffix(".json"), json.dumps(sidecar, indent=2))
