"""Every writer of the server's SQLite database queues at the write gate (``write_gate``): rows
of the ``sqlite`` group of ``patches.PATCHES`` wrapping SQLAlchemy's aiosqlite adapter.

A transaction takes the gate before its first write statement and gives it back at its commit
or rollback (or when the statement left no transaction open), so the writers of every web
process and of the rq worker wait in the kernel's queue instead of polling SQLite's lock. Same
statements, same transactions, same connections: see ``write_gate`` for why and what is kept.
"""

from __future__ import annotations

import functools

import write_gate

_gate: write_gate.AsyncGate | None = None


def process_gate() -> write_gate.AsyncGate:
    """This process's gate for the server's SQLite database (from Argilla's settings)."""
    global _gate
    if _gate is None:
        import sql_index
        from argilla_server.settings import settings

        database = sql_index.database_path(settings.database_url)
        _gate = write_gate.AsyncGate(database, float(settings.database_sqlite_timeout))
    return _gate


def entering(execute):
    """An aiosqlite cursor's ``execute``/``executemany`` that takes the gate before the first
    write statement of a transaction (and gives it back when the statement left no
    transaction open)."""
    gate = process_gate()

    @functools.wraps(execute)
    def run(self, operation, *args, **kwargs):
        worker = self._connection  # the aiosqlite connection (a thread) of this cursor
        if not getattr(worker, "bf_gated", False) and write_gate.is_write(operation):
            worker.bf_gated = self.await_(gate.acquire())
        try:
            return execute(self, operation, *args, **kwargs)
        finally:
            raw = getattr(worker, "_connection", None)
            if getattr(worker, "bf_gated", False) and not (raw and raw.in_transaction):
                worker.bf_gated = False
                gate.release()

    return run


def leaving(method):
    """An aiosqlite connection's ``commit``/``rollback``/``close``/``terminate`` that gives
    the gate back."""
    gate = process_gate()

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        finally:
            if getattr(self._connection, "bf_gated", False):
                self._connection.bf_gated = False
                gate.release()

    return run
