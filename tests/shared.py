"""What a test run builds once and every test process reads: runs, releases, tiny models.

Under pytest-xdist each worker is its own test session, so a session fixture would build the
same BEC-Pro run or tiny model once per worker. ``build_once`` builds it once per test run
instead: the first process to ask builds it into a folder of the run's common temporary folder
(``getbasetemp().parent`` under xdist, the standard pattern) while holding a file lock; the
others wait on the lock and reuse the folder. Without xdist it is the session's own folder.

The folders are shared read-only: a test that changes one copies it first. ``Shared`` records a
digest of every folder it hands out and checks it at the end of the session, so a test that
writes into a shared folder fails the run instead of quietly changing what the next test reads.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock

DONE = ".built"


def run_root(tmp_path_factory) -> Path:
    """The temporary folder every process of this test run shares."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def digest(folder: Path) -> str:
    """sha256 over every file's relative path and bytes (the build marker left out)."""
    total = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != DONE):
        total.update(path.relative_to(folder).as_posix().encode() + b"\0")
        total.update(hashlib.sha256(path.read_bytes()).digest())
    return total.hexdigest()


class Shared:
    """Hands out folders built once per test run (see the module's docstring)."""

    def __init__(self, tmp_path_factory) -> None:
        self.root = run_root(tmp_path_factory) / "shared"
        self.root.mkdir(exist_ok=True)
        self.handed: dict[Path, str] = {}

    def folder(self, name: str, build: Callable[[Path], object]) -> Path:
        """``build(folder)`` fills ``folder`` the first time anyone asks for ``name``."""
        folder = self.root / name
        with FileLock(str(folder) + ".lock"):
            if not (folder / DONE).is_file():
                shutil.rmtree(folder, ignore_errors=True)  # a build that failed half-way
                folder.mkdir(parents=True)
                build(folder)
                (folder / DONE).write_text("")
            if folder not in self.handed:
                self.handed[folder] = digest(folder)
        return folder

    def changed(self) -> list[str]:
        """Names of the folders handed out whose content is no longer what was built."""
        return [p.name for p, was in self.handed.items() if digest(p) != was]
