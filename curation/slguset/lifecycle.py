"""What a killed run leaves behind: no process, no visible folder.

A run's tasks go to datatrove's ``LocalPipelineExecutor``, which forks a multiprocess manager
and a pool of workers. If the run is killed with SIGKILL nothing in it runs any more, so:

* **Processes** — :func:`children_die_with_parent`: while it is active, every process this one
  forks asks the kernel for SIGKILL when its parent dies (Linux ``prctl(PR_SET_PDEATHSIG)``,
  set by an ``os.register_at_fork`` hook), and exits at once if the parent is already gone. The
  executor uses the ``fork`` start method (:data:`START_METHOD`), so the manager and every pool
  worker are such forks, and they die with the run the moment it is killed — before they can
  write anything more. Forking is safe here: the only other thread of the process is fsspec's
  IO loop, which fsspec resets in a forked child. Elsewhere than Linux the hook does nothing.
* **Folders** — :func:`work_folder`: the tasks' rows and logs go to a hidden folder beside
  ``--out`` (``.NAME.work-XXXX``) that the run holds an ``flock`` on (inherited by its
  children) and removes at the end. A folder whose lock nobody holds was left by a killed run:
  the next run to the same ``--out`` removes it before it starts.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import glob
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

LINUX = sys.platform.startswith("linux")
START_METHOD = "fork" if LINUX else "forkserver"  # datatrove's default elsewhere
PR_SET_PDEATHSIG = 1

_watching = 0  # > 0 while children_die_with_parent is active in this process
_forking_pid = 0  # the pid that is forking (set just before each fork)
_libc: ctypes.CDLL | None = None


def _before_fork() -> None:
    global _forking_pid
    _forking_pid = os.getpid()


def _after_fork_in_child() -> None:
    if not _watching or _libc is None:
        return
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != _forking_pid:  # the parent died before the request took effect
        os._exit(1)


if LINUX:
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)


@contextlib.contextmanager
def children_die_with_parent() -> Iterator[None]:
    """Processes forked from here while the context is active die when this one dies."""
    global _watching, _libc
    if LINUX and _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    _watching += 1
    try:
        yield
    finally:
        _watching -= 1


def _locked(fd: int) -> bool:
    """Take the folder's lock without waiting; False when another process holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def remove_stale(out: Path) -> list[Path]:
    """Remove the hidden work folders of killed runs to ``out`` (their lock is free)."""
    removed = []
    for folder in out.parent.glob(f".{glob.escape(out.name)}.work-*"):
        if folder.is_symlink() or not folder.is_dir():
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
    afterwards; stale folders of killed runs to ``out`` are removed first."""
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
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)
        os.close(fd)


def _watch(parent_pid: int, pipe: int, interval: float) -> None:
    """The watchdog's loop (in its own process): note the parent's descendants every
    ``interval`` s; when the pipe closes and the parent is gone, kill what was noted."""
    import select

    import psutil

    me = os.getpid()
    seen: dict[int, psutil.Process] = {}
    try:
        parent = psutil.Process(parent_pid)
    except psutil.NoSuchProcess:
        return
    while True:
        ready, _, _ = select.select([pipe], [], [], interval)
        if ready and not os.read(pipe, 1):
            break  # closed: the parent is done with it, or dead
        try:
            for child in parent.children(recursive=True):
                if child.pid != me:
                    seen.setdefault(child.pid, child)
        except psutil.NoSuchProcess:
            break
    if parent.is_running() and parent.status() != psutil.STATUS_ZOMBIE:
        return  # a normal exit: the parent cleaned up after itself
    _freeze_then_kill(seen, me)


def _freeze_then_kill(seen: dict, me: int, rounds: int = 5) -> None:
    """Stop (SIGSTOP) what was noted and whatever those processes started since the last look
    (a raylet's agents can appear less than ``interval`` before the parent dies), again until
    nothing new turns up — a stopped process starts nothing — then kill them all. Collecting
    first matters: a process whose parent is killed first is re-parented out of reach."""
    import psutil

    found, frontier = dict(seen), list(seen.values())
    for _ in range(rounds):  # each round stops and walks only what the last one found
        new = {}
        for process in frontier:
            with contextlib.suppress(psutil.Error):
                if process.is_running():  # same pid *and* start time: not a reused pid
                    process.suspend()
                    for child in process.children(recursive=True):
                        if child.pid != me and child.pid not in found:
                            new[child.pid] = child
        if not new:
            break
        found.update(new)
        frontier = list(new.values())
    for process in found.values():
        with contextlib.suppress(psutil.Error):
            if process.is_running():
                process.kill()


@contextlib.contextmanager
def descendants_die_with_parent(interval: float = 0.5) -> Iterator[None]:
    """For processes this one starts by ``fork``+``exec`` (a local Ray cluster: its GCS server
    and raylet, and what *they* start: agents, workers), which the at-fork hook of
    :func:`children_die_with_parent` cannot reach: a watchdog process notes every descendant
    twice a second, and if this process dies while the context is active, kills them all."""
    if not LINUX:
        yield
        return
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the watchdog: nothing of the parent's but the pipe
        try:
            os.close(write_end)
            os.closerange(3, read_end)
            os.closerange(read_end + 1, 1 << 16)
            _watch(os.getppid(), read_end, interval)
        finally:
            os._exit(0)
    os.close(read_end)
    try:
        yield
    finally:
        os.close(write_end)
        os.waitpid(pid, 0)
