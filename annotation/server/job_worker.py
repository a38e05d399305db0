"""Argilla's job worker forked from the web process of a one-process server.

A job worker started as a process of its own imports argilla_server again: about 4 s of CPU
at every server start, as much as the web process's own import. A web process that serves
alone (``launcher.py start --prepare``) has imported and patched argilla_server already; it
forks the worker right after the patches, before it touches the database or Redis or starts
a thread of its own, so the worker holds the same code as a worker process would.

The two stay tied as a supervisor's two children would be: the worker gets SIGTERM when the
web process dies (``PR_SET_PDEATHSIG``), and the web process stops (SIGTERM to itself, as
``annotate stop`` would) when the worker dies, naming it in its log; the supervisor then stops
the rest, as for any child that exits. Both are in the web process's process group, so a stop
reaches and waits for both, before Redis. The worker writes to its own log, as before.

Only the standard library and argilla_server are imported here.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from pathlib import Path

import parent_death


def fork(log: str, pid_file: str) -> int:
    """Fork the job worker (its output appended to ``log``); writes its pid to ``pid_file``
    and returns it. The caller is the web process, with argilla_server imported and patched."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid == 0:
        _run(log)  # never returns
    Path(pid_file).write_text(str(pid), encoding="utf-8")
    signal.signal(signal.SIGCHLD, lambda *_: _reap(pid))
    return pid


def _run(log: str) -> None:
    """The child: Argilla's own ``worker`` command (one rq worker), then exit without running
    what the web process registered to run at its own exit."""
    code = 1
    try:
        parent_death.sigterm_when_parent_dies()
        if os.getppid() == 1:  # the web process died before the line above
            os._exit(1)
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        from argilla_server.cli import app

        sys.argv = ["argilla_server", "worker", "--num-workers", "1"]
        app()
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else int(done.code is not None)
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os._exit(code)


def _reap(pid: int) -> None:
    """SIGCHLD in the web process: when the worker has exited, say so and stop serving."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return
    if done != pid:
        return
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    code = os.waitstatus_to_exitcode(status)
    said = f"the job worker (pid {pid}) exited (code {code}): the web server stops\n"
    os.write(2, said.encode())  # not print: the handler may run inside a write to sys.stderr
    os.kill(os.getpid(), signal.SIGTERM)  # uvicorn: a second SIGTERM during a stop is a no-op
