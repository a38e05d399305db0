"""What a killed run leaves behind: no process, no visible folder, no stale hidden one.

A run killed with SIGKILL runs no more code, so everything is arranged beforehand:

* **Processes** — :mod:`biasforge.processes`: the local executor's manager and pool workers
  are forks (:data:`START_METHOD`) made inside ``forks_die_with_parent`` and
  ``group_dies_with_parent``, so the kernel kills them with the run; a local Ray head lives in a process group killed with the run
  (:mod:`biasforge.curation.slguset.ray_head`). Forking is safe here: the only other thread of
  the process is fsspec's IO loop, which fsspec resets in a forked child.
* **Folders** — :func:`work_folder`: the tasks' rows and logs go to a hidden folder beside
  ``--out`` (``.NAME.work-XXXX``, marked as biasforge's by
  :data:`MARKER`) that the run holds an ``flock`` on (inherited by its children) and removes
  at the end. A marked folder whose lock nobody holds was left by a killed run: the next run
  with any ``--out`` in the same folder removes it before it starts. The multiprocess
  manager's socket folder (:func:`manager_temp_folder`) is removed by the keeper of the
  run's process group the moment the run dies.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

LINUX = sys.platform.startswith("linux")
START_METHOD = "fork" if LINUX else "forkserver"  # datatrove's default elsewhere
MARKER = ".biasforge-slguset-work"  # in every work folder: only those are ever removed


def _locked(fd: int) -> bool:
    """Take the folder's lock without waiting; False when another process holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def remove_stale(out: Path) -> list[Path]:
    """Remove the work folders that killed runs left beside ``out`` — for any ``--out`` in
    that folder: a marked folder whose lock is free; a live run's (locked) stays."""
    removed = []
    for folder in out.parent.glob(".*.work-*"):
        if folder.is_symlink() or not (folder / MARKER).is_file():
            continue
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError:
            continue
        try:
            if _locked(fd):
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
        finally:
            os.close(fd)
    return removed


@contextlib.contextmanager
def work_folder(out: Path) -> Iterator[Path]:
    """A hidden folder beside ``out``, locked while the run (and its children) live, removed
    afterwards; stale folders of killed runs in the same place are removed first."""
    remove_stale(out)
    while True:
        work = Path(tempfile.mkdtemp(prefix=f".{out.name}.work-", dir=out.parent))
        fd = os.open(work, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits only while another run's cleaner holds it
        with contextlib.suppress(OSError):
            if os.path.samestat(os.fstat(fd), os.stat(work)):
                break
        os.close(fd)  # removed as stale between mkdtemp and the lock: make another
    try:
        (work / MARKER).touch()  # marked once locked: a cleaner never sees it unlocked
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)
        os.close(fd)


@contextlib.contextmanager
def manager_temp_folder() -> Iterator[Path]:
    """The multiprocess manager's temporary folder (its socket lives there), made here in the
    system's temporary folder (a socket path has at most 107 bytes) and removed afterwards;
    the caller also hands it to the keeper of the run's process group, which removes it if
    the run is killed (:func:`biasforge.processes.group_dies_with_parent`). The manager's
    per-process record of the folder is dropped afterwards, or a later run in this process
    would look for it."""
    import multiprocess.process

    folder = Path(tempfile.mkdtemp(prefix="pymp-biasforge-"))
    config = multiprocess.process.current_process()._config
    before = config.get("tempdir")
    config["tempdir"] = str(folder)
    try:
        yield folder
    finally:
        if before is None:
            config.pop("tempdir", None)
        else:
            config["tempdir"] = before
        shutil.rmtree(folder, ignore_errors=True)
