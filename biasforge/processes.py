"""Child processes end with the biasforge process that started them — by the kernel's rules.

A command killed with SIGKILL runs no more code, so nothing it started may depend on it
cleaning up. Each way a child comes to exist gets the kernel mechanism that fits it; nothing
here searches the process table or reads other processes' environments.

* :func:`spawn` — a command we start ourselves (Redis, the Argilla server and worker): it
  leads a session of its own, so :func:`stop` reaches it *and its children* with ``killpg``,
  and it asks the kernel for a signal when we die (``PR_SET_PDEATHSIG``, set between fork
  and exec).
* :func:`forks_die_with_parent` — processes a library forks from this one without exec
  (datatrove's local executor: the multiprocess manager and pool workers): an at-fork hook
  sets ``PR_SET_PDEATHSIG``/SIGKILL in each of them, and one whose parent is already gone
  exits at once.
* :func:`group_dies_with_parent` — processes a library starts by fork+exec that start
  processes of their own (a local Ray head: GCS server and raylet, whose agents and workers
  no hook of ours reaches): every process forked while it is active joins one process group,
  led by a *keeper*, a tiny shell that waits on a pipe only we hold. The kernel closes that
  pipe when we end, however we end, and the keeper then removes the temporary folders it was
  given and kills the whole group at once (``kill -KILL 0``); descendants inherit the group,
  so none is missed.

Elsewhere than Linux the prctl calls do nothing; the groups and the keeper are POSIX.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

LINUX = sys.platform.startswith("linux")
PR_SET_PDEATHSIG = 1

_libc: ctypes.CDLL | None = None


def _prctl_pdeathsig(signum: int) -> None:
    global _libc
    if not LINUX:
        return
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    _libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0)


def death_signal(signum: int = signal.SIGTERM) -> Callable[[], None]:
    """A ``preexec_fn`` for Popen: the child gets ``signum`` when its parent dies, and exits
    at once if the parent died before the request took effect."""
    parent = os.getpid()

    def preexec() -> None:
        _prctl_pdeathsig(signum)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


def spawn(
    argv: Sequence[str], *, on_parent_death: int = signal.SIGTERM, **popen: Any
) -> subprocess.Popen:
    """Start ``argv`` in a session of its own that gets ``on_parent_death`` when this process
    dies (even by SIGKILL); stop it and everything it started with :func:`stop`."""
    return subprocess.Popen(
        list(argv), start_new_session=True, preexec_fn=death_signal(on_parent_death), **popen
    )


def _signal_group(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)


def stop(processes: Sequence[subprocess.Popen], timeout: float = 10) -> None:
    """Stop processes started by :func:`spawn`, last started first: SIGTERM to each one's
    group, SIGKILL to the groups still alive after ``timeout`` s, then SIGKILL to every group
    anyway (a worker pool's own children share its group and may outlive their leader)."""
    for proc in reversed(processes):
        if proc.poll() is None:
            _signal_group(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for proc in processes:
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
    for proc in processes:
        _signal_group(proc.pid, signal.SIGKILL)
    _wait_groups_gone([proc.pid for proc in processes], timeout=5)


def _wait_groups_gone(groups: list[int], timeout: float) -> None:
    """Return once no process of these groups is left (or after ``timeout`` s): a group's
    members outlive its leader for a moment after SIGKILL (uvicorn's web workers, re-parented
    and reaped by init), and callers count on ``stop`` leaving nothing behind."""
    deadline = time.monotonic() + timeout
    for group in groups:
        while time.monotonic() < deadline:
            try:
                os.killpg(group, 0)
            except (ProcessLookupError, PermissionError):
                break
            time.sleep(0.05)


# ------------------------------------------------------------------- at-fork hook


@dataclass
class _ForkRules:
    """What the at-fork hook does in a child forked while a context below is active."""

    die_with_parent: int = 0  # > 0 while forks_die_with_parent is active
    group: int = 0  # the keeper's group every fork joins (group_dies_with_parent), or 0
    keeper_pipe: int = -1  # our end of the keeper's pipe: closed in every fork
    forking_pid: int = 0  # the pid that is forking (set just before each fork)


_rules = _ForkRules()


def _before_fork() -> None:
    _rules.forking_pid = os.getpid()


def _after_fork_in_child() -> None:
    if _rules.group:
        if _rules.keeper_pipe >= 0:  # only the parent may hold the keeper's pipe open
            with contextlib.suppress(OSError):
                os.close(_rules.keeper_pipe)
        try:
            os.setpgid(0, _rules.group)
        except OSError:  # the keeper is gone: so is the process that started us
            os._exit(1)
        _rules.group, _rules.keeper_pipe = 0, -1
    if _rules.die_with_parent:
        _prctl_pdeathsig(signal.SIGKILL)
        _rules.die_with_parent = 0
        if os.getppid() != _rules.forking_pid:  # the parent died before the request
            os._exit(1)


os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)


@contextlib.contextmanager
def forks_die_with_parent() -> Iterator[None]:
    """Processes forked from here while the context is active get SIGKILL when this process
    dies (Linux; elsewhere nothing changes). Python runs at-fork hooks in ``os.fork`` and
    multiprocessing children, and in Popen children that have a ``preexec_fn``."""
    _rules.die_with_parent += 1
    try:
        yield
    finally:
        _rules.die_with_parent -= 1


# Ignores hang-ups and Ctrl-C (those are for us to handle), waits until the pipe on its stdin
# reaches end-of-file — when we close it, or the kernel does because we died — then removes
# the folders it was given and kills its own process group: every process that joined it,
# itself last.
KEEPER = "trap '' HUP INT; while read -r _; do :; done; rm -rf -- \"$@\"; kill -s KILL 0"


@contextlib.contextmanager
def group_dies_with_parent(remove: Sequence[str | os.PathLike] = ()) -> Iterator[int]:
    """Every process forked while the context is active (and everything those start, which
    inherits the group) joins a process group that is killed when this process leaves the
    context or dies, even by SIGKILL; the folders in ``remove`` are removed then too (a
    killed process cannot remove its temporary folders). Yields the group id.

    For a library that starts processes by fork+exec from a ``preexec_fn`` Popen (Ray's
    local head) and whose own children we cannot reach. This process stays in its own group,
    so a terminal's Ctrl-C still comes here first; leaving the context kills what is left of
    the group."""
    if _rules.group:
        raise RuntimeError("group_dies_with_parent is already active in this process")
    read_end, write_end = os.pipe()
    keeper = subprocess.Popen(
        ["/bin/sh", "-c", KEEPER, "biasforge-keeper", *map(os.fspath, remove)],
        stdin=read_end,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        process_group=0,  # leads a new group, in our session (a group may only be joined there)
    )
    os.close(read_end)
    _rules.group, _rules.keeper_pipe = keeper.pid, write_end
    try:
        yield keeper.pid
    finally:
        _rules.group, _rules.keeper_pipe = 0, -1
        os.close(write_end)  # the keeper kills the group, itself last
        with contextlib.suppress(subprocess.TimeoutExpired):
            keeper.wait(10)
