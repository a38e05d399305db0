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
import secrets
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

LINUX = sys.platform.startswith("linux")
START_METHOD = "fork" if LINUX else "forkserver"  # datatrove's default elsewhere
PR_SET_PDEATHSIG = 1
RUN_MARK = "BIASFORGE_RUN_MARK"  # environment variable every process of a watched run inherits
DONE = b"."  # what a watched process writes to its watchdog when it leaves the context alive

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


def _watch(parent, pipe: int, interval: float, mark: str) -> None:
    """The watchdog's loop (in its own process): note the descendants of ``parent`` every
    ``interval`` s until the pipe says how the parent left it. :data:`DONE` is a normal exit
    (the parent cleaned up after itself); the pipe closing without it means the parent died:
    then kill what was noted and every process that carries the run's ``mark``. The pipe
    decides, not the parent's state: it closes while the dying parent is not yet a zombie."""
    import select

    import psutil

    me = os.getpid()
    seen: dict[int, psutil.Process] = {}
    while True:
        ready, _, _ = select.select([pipe], [], [], interval)
        if ready:
            if os.read(pipe, 1) == DONE:
                return
            break  # closed without a word: the parent died
        with contextlib.suppress(psutil.NoSuchProcess):  # dying: the pipe will say so
            for child in parent.children(recursive=True):
                if child.pid != me:
                    seen.setdefault(child.pid, child)
    _freeze_then_kill(seen, {me, parent.pid}, mark)


def _marked(mark: str, spare: set[int]) -> dict:
    """Every process (but those in ``spare``) whose environment holds ``RUN_MARK=mark``: the
    run's, even those re-parented out of its tree before the watchdog looked (a raylet that
    dies with the run leaves the agents it started just before to init)."""
    import psutil

    found = {}
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if process.pid not in spare and process.environ().get(RUN_MARK) == mark:
                found[process.pid] = process
    return found


def _freeze_then_kill(seen: dict, spare: set[int], mark: str, rounds: int = 5) -> None:
    """Stop (SIGSTOP) what was noted, what carries the run's mark, and whatever those processes
    started since, again until nothing new turns up — a stopped process starts nothing — then
    kill them all. Collecting first matters: a process whose parent is killed first is
    re-parented out of reach of a walk down the tree."""
    import psutil

    found: dict = {}
    new = dict(seen)  # the marked ones join at the end of each round
    for _ in range(rounds):  # each round stops and walks only what the last one found
        found.update(new)
        frontier, new = list(new.values()), {}
        for process in frontier:
            with contextlib.suppress(psutil.Error):
                if process.is_running():  # same pid *and* start time: not a reused pid
                    process.suspend()
                    for child in process.children(recursive=True):
                        if child.pid not in spare and child.pid not in found:
                            new[child.pid] = child
        new.update({pid: p for pid, p in _marked(mark, spare).items() if pid not in found})
        if not new:
            break
    for process in found.values():
        with contextlib.suppress(psutil.Error):
            if process.is_running():
                process.kill()


@contextlib.contextmanager
def descendants_die_with_parent(interval: float = 0.5) -> Iterator[None]:
    """For processes this one starts by ``fork``+``exec`` (a local Ray cluster: its GCS server
    and raylet, and what *they* start: agents, workers), which the at-fork hook of
    :func:`children_die_with_parent` cannot reach: a watchdog process notes every descendant
    twice a second, and if this process dies while the context is active, kills them all —
    and every process that inherited the run's mark (:data:`RUN_MARK`, set in the environment
    while the context is active), wherever it was re-parented to. Leaving the context alive
    tells the watchdog so (:data:`DONE`) before closing its pipe; the watchdog lives in a
    session of its own, so signals meant for this process's group do not reach it."""
    if not LINUX:
        yield
        return
    import psutil

    parent = psutil.Process()  # known by pid and start time before the watchdog exists
    mark = secrets.token_hex(16)
    before = os.environ.get(RUN_MARK)
    os.environ[RUN_MARK] = mark
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the watchdog: nothing of the parent's but the pipe
        try:
            os.setsid()  # out of the parent's group: a Ctrl-C or SIGHUP for it is not for us
            os.close(write_end)
            os.closerange(3, read_end)
            os.closerange(read_end + 1, 1 << 16)
            _watch(parent, read_end, interval, mark)
        finally:
            os._exit(0)
    os.close(read_end)
    try:
        yield
    finally:
        with contextlib.suppress(BrokenPipeError):  # the watchdog is gone (killed by someone)
            os.write(write_end, DONE)
        os.close(write_end)
        with contextlib.suppress(ChildProcessError):  # … and reaped by someone
            os.waitpid(pid, 0)
        if before is None:
            os.environ.pop(RUN_MARK, None)
        else:
            os.environ[RUN_MARK] = before
