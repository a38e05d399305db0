"""A server process that must not outlive its parent asks the kernel for SIGTERM when the
parent dies (``PR_SET_PDEATHSIG``): a web process under uvicorn's supervisor, a job worker
forked by its web process. Linux only, as the embedded server is.

Only the standard library is imported here.
"""

from __future__ import annotations

import ctypes
import signal

PR_SET_PDEATHSIG = 1


def sigterm_when_parent_dies() -> None:
    """SIGTERM to this process when the thread that created it exits."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
