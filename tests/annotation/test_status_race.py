"""The record status on the answer write path (``annotation/server/overrides/answer_write.py``) under
concurrency: answers to one record submitted at the same instant, and Argilla's
``update_dataset_records_status_job`` (enqueued by every dataset update) running while
annotators answer and again after them, late. Each record must end ``completed`` in Argilla's
``records`` table and in the search index's copy (``bf_record``, which the web UI's pending
queue filters on) exactly when ``min_submitted`` answers are submitted, and leave every
annotator's queue. Real embedded server, answers through the endpoints the web UI calls, in a
workspace of this module's own (its annotators are nobody else's "who can answer").
"""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
import time

import httpx
import pytest

from tests.annotation.helpers import create_dataset, login, queue

WORKSPACE = "status-race"
MIN_SUBMITTED = 3
YES = {"values": {"ok": {"value": "yes"}}, "status": "submitted"}


@pytest.fixture(scope="module")
def team(server):
    """(connection to this module's workspace, owner client, four signed-in annotators)."""
    from biasforge.annotation.admin.users import add_users
    from biasforge.annotation.client.connection import find_server

    connection = dataclasses.replace(find_server(server.data_dir), workspace=WORKSPACE)
    made = add_users(connection, [(f"sr-ann{i}", None) for i in range(4)])
    apis = [login(connection.url, u.username, u.password) for u in made]
    owner = httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    )
    yield connection, owner, apis
    owner.close()
    for api in apis:
        api.close()


def _dataset(connection, name: str, records: int) -> tuple[str, list[str]]:
    """A dataset of ``records`` records answered by MIN_SUBMITTED annotators each (overlap)."""
    import argilla as rg

    def settings():
        return rg.Settings(
            fields=[rg.TextField(name="text")],
            questions=[rg.LabelQuestion(name="ok", labels=["yes", "no"])],
            distribution=rg.TaskDistribution(min_submitted=MIN_SUBMITTED),
        )

    dataset = create_dataset(connection, name, settings)
    dataset.records.log([{"text": f"{name} {n}"} for n in range(records)])
    return str(dataset.id), [str(record._server_id) for record in dataset.records]


def _states(server, dataset_id: str) -> dict[str, tuple[str, str, int]]:
    """record id -> (status in ``records``, status in the index, submitted answers)."""
    uri = f"file:{server.data_dir / 'argilla.db'}?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        rows = db.execute(
            "SELECT r.id, r.status, b.status, (SELECT count(*) FROM responses x "
            "WHERE x.record_id = r.id AND x.status = 'submitted') "
            "FROM records r JOIN bf_record b ON b.rid = r.id WHERE r.dataset_id = ?",
            (dataset_id.replace("-", ""),),
        ).fetchall()
    return {rid: (status, copy, submitted) for rid, status, copy, submitted in rows}


def _ui_queue(api: httpx.Client, dataset_id: str) -> list[str]:
    """The pending queue exactly as the web UI asks for it: no answer of mine, record not
    completed."""
    return [r["id"] for r in queue(api, dataset_id, record_status="pending")]


def _jobs_done(server) -> int:
    """Jobs the server's rq worker has finished so far."""
    return (server.data_dir / "logs" / "worker.log").read_text(errors="replace").count("Job OK")


def test_simultaneous_answers_and_status_jobs_leave_exact_statuses(server, team):
    connection, owner, apis = team
    dataset_id, rids = _dataset(connection, "status-race-together", 8)
    jobs_before = _jobs_done(server)
    updates = 0

    def update_dataset() -> None:  # every dataset update enqueues the status job
        nonlocal updates
        updates += 1
        changed = owner.patch(f"/api/v1/datasets/{dataset_id}", json={"guidelines": f"v{updates}"})
        assert changed.status_code == 200, changed.text

    def submit(api: httpx.Client, rid: str, barrier: threading.Barrier, codes: list) -> None:
        barrier.wait()  # the answers leave together
        codes.append(api.post(f"/api/v1/records/{rid}/responses", json=YES).status_code)

    for n, rid in enumerate(rids):
        barrier = threading.Barrier(MIN_SUBMITTED)
        codes: list[int] = []
        threads = [
            threading.Thread(target=submit, args=(api, rid, barrier, codes))
            for api in apis[:MIN_SUBMITTED]
        ]
        for thread in threads:
            thread.start()
        if n % 3 == 0:
            update_dataset()  # a status job runs while records are being answered
        for thread in threads:
            thread.join()
        assert codes == [201] * MIN_SUBMITTED
    update_dataset()  # and one that runs late, after every answer
    deadline = time.monotonic() + 120
    while _jobs_done(server) < jobs_before + updates and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _jobs_done(server) >= jobs_before + updates, "the status jobs did not all run"

    done = ("completed", "completed", MIN_SUBMITTED)
    assert _states(server, dataset_id) == {rid.replace("-", ""): done for rid in rids}
    assert _ui_queue(apis[MIN_SUBMITTED], dataset_id) == []  # nothing left for a 4th annotator
