"""The write gate of the embedded server's SQLite database (annotation/server/write_gate.py):
writers queue on a file lock beside the database instead of polling SQLite's lock, one at a
time across threads and processes, and one that waits past the timeout goes on without it."""

from __future__ import annotations

import asyncio
import threading
import time

from biasforge.annotation.server import write_gate


def test_write_statements_are_told_from_reads():
    for sql in (
        "INSERT INTO t VALUES (1)",
        "  update t SET a = 1",
        "DELETE FROM t",
        "REPLACE INTO t",
    ):
        assert write_gate.is_write(sql), sql
    for sql in (
        "SELECT 1",
        "PRAGMA journal_mode",
        "",
        "  ",
        "WITH x AS (SELECT 1) SELECT * FROM x",
    ):
        assert not write_gate.is_write(sql), sql


def test_one_holder_at_a_time_the_next_enters_when_it_leaves(tmp_path):
    database = str(tmp_path / "argilla.db")
    entered = threading.Event()
    leave = threading.Event()
    order = []

    def first():
        with write_gate.held(database):
            order.append("first in")
            entered.set()
            leave.wait(10)
            order.append("first out")

    def second():
        with write_gate.held(database):
            order.append("second in")

    one = threading.Thread(target=first)
    one.start()
    assert entered.wait(10)
    two = threading.Thread(target=second)
    two.start()
    time.sleep(0.3)
    assert order == ["first in"]  # the second waits for the first
    leave.set()
    one.join(10)
    two.join(10)
    assert order == ["first in", "first out", "second in"]


def test_coroutines_queue_and_a_long_wait_goes_on_without_the_gate(tmp_path):
    database = str(tmp_path / "argilla.db")

    async def scenario() -> list:
        gate = write_gate.AsyncGate(database, timeout=0.3)
        seen = []

        async def writer(name: str) -> None:
            assert await gate.acquire()
            seen.append(f"{name} in")
            await asyncio.sleep(0.05)
            seen.append(f"{name} out")
            gate.release()

        await asyncio.gather(writer("a"), writer("b"), writer("c"))
        # another process (here: another descriptor) holds the file lock past the timeout
        holding, leave = threading.Event(), threading.Event()

        def other():
            with write_gate.held(database):
                holding.set()
                leave.wait(10)

        thread = threading.Thread(target=other)
        thread.start()
        holding.wait(10)
        seen.append(await gate.acquire())  # False: timed out, go on without the gate
        leave.set()
        thread.join(10)
        for _ in range(1000):  # the abandoned wait gets the lock, then gives it back
            if not gate._queue.locked():
                break
            await asyncio.sleep(0.01)
        gate.timeout = 10  # a loaded machine may take a while to schedule the thread
        seen.append(await gate.acquire())  # the gate works again
        gate.release()
        return seen

    seen = run_alone(scenario)
    assert seen[:6] == ["a in", "a out", "b in", "b out", "c in", "c out"]
    assert seen[6:] == [False, True]


def run_alone(scenario):
    """``asyncio.run(scenario())`` in a thread of its own: an earlier test of the session (the
    browser's sync API) may leave this thread marked as running an event loop."""
    out: dict = {}

    def main() -> None:
        try:
            out["value"] = asyncio.run(scenario())
        except BaseException as error:  # re-raised in the test's thread
            out["error"] = error

    thread = threading.Thread(target=main)
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the scenario did not finish in 120 s"
    if "error" in out:
        raise out["error"]
    return out["value"]
