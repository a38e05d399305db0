"""Writers of the SQLite database wait for each other in a queue, not by polling.

SQLite lets one connection write at a time. A writer that finds the write lock taken retries
after 1, 2, 5, 10 … 100 ms (its busy handler) until the busy timeout: under 20 annotators a
transaction that had waited a while slept 100 ms at a time while newer writers of the other
web process took the lock in between, and an answer waited up to 4 s for it (the p99 of the
annotator benchmark). Here a writer first takes an exclusive ``flock`` on a file beside the
database (``<database>.writers``), which the kernel hands to the next waiter the moment it is
released, and keeps it from its first write statement to its commit or rollback; inside a web
process an ``asyncio.Lock`` queues its coroutines first, so only one of them waits on the file,
in a thread, off the event loop. SQLite's own lock and busy timeout stay as they were: a writer
that does not take the gate (another program, ``sqlite3`` in a shell) is still waited for as
before, and one that waits for the gate longer than the busy timeout goes on without it.

The gate changes who waits and how, never what is written: the same statements run in the
same transactions on the same connections.

Only the standard library here. The gate is taken by the search index's own writes
(``sql_index``, an extension point, stock server included) and, on the embedded server, by
every writer of SQLAlchemy's aiosqlite adapter (``overrides/write_queue.py``: rows of the
``sqlite`` group of ``patches.PATCHES``).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from collections.abc import Iterator

#: statements that take SQLite's write lock (the first word, upper-cased)
WRITES = frozenset({"INSERT", "UPDATE", "DELETE", "REPLACE"})
#: seconds a writer waits for the gate before going on without it (SQLite's busy timeout)
DEFAULT_TIMEOUT = 30.0


def gate_path(database: str) -> str:
    return f"{database}.writers"


def _open(database: str) -> int:
    return os.open(gate_path(database), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)


@contextlib.contextmanager
def held(database: str) -> Iterator[None]:
    """The gate for one synchronous write (the search index's own connections, in a worker
    thread): blocks until the file lock is free, releases it on the way out."""
    fd = _open(database)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the only descriptor of this open file releases its lock


def is_write(operation: str) -> bool:
    words = operation.lstrip().split(None, 1)
    return bool(words) and words[0].upper() in WRITES


class AsyncGate:
    """The gate as the coroutines of one process see it: an ``asyncio.Lock`` in front of one
    shared descriptor of the lock file (two holders in one process must never share the file
    lock, which belongs to the descriptor)."""

    def __init__(self, database: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.database = database
        self.timeout = timeout
        self._fd: int | None = None
        self._queue: asyncio.Lock | None = None

    async def acquire(self) -> bool:
        """Wait for the gate; False when it took longer than the timeout (go on without)."""
        if self._queue is None:
            self._queue = asyncio.Lock()
            self._fd = _open(self.database)
        queue, fd = self._queue, self._fd
        try:
            await asyncio.wait_for(queue.acquire(), self.timeout)
        except TimeoutError:
            return False
        locking = asyncio.get_running_loop().run_in_executor(None, fcntl.flock, fd, fcntl.LOCK_EX)
        try:
            await asyncio.wait_for(asyncio.shield(locking), self.timeout)
        except TimeoutError:  # give the file lock back once the thread has it
            locking.add_done_callback(self._abandon)
            return False
        except BaseException:  # cancelled: the same, then let the cancellation through
            locking.add_done_callback(self._abandon)
            raise
        return True

    def _abandon(self, locking: asyncio.Future) -> None:
        if not locking.cancelled() and locking.exception() is None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._queue.release()

    def release(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._queue.release()
