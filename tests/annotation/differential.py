"""One sequence of requests through Argilla's REST API, played against a server, and the rows it
leaves in the server's SQLite database: what tests/annotation/test_overrides_differential.py
compares between a stock argilla-server (plus the search engine) and the embedded one.

The requests are the ones the web UI and biasforge's commands send: a workspace, four
annotators, a dataset (a text field, a yes/no question, a metadata property hidden from
annotators, three submitted answers per record), records in bulk, then answers: submitted,
discarded, drafts submitted later, a mind changed, a response deleted, the UI's bulk route, a
duplicate and an invalid answer, four annotators answering one record at the same instant,
and Argilla's record-status job (enqueued by every dataset update) running during the answers
and once more, late, after them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from biasforge.annotation.client.secrets import CREDENTIALS_FILE, read_secret_json
from tests.annotation.helpers import login, queue

ANNOTATORS = ("d-ann1", "d-ann2", "d-ann3", "d-ann4")
PASSWORD = "differential-password-1"
MIN_SUBMITTED = 3
WORKSPACE = "differential"  # and the dataset's name
RECORDS = 10
YES, NO = {"ok": {"value": "yes"}}, {"ok": {"value": "no"}}


@dataclass
class Played:
    """What one server answered, and where its rows are."""

    url: str
    database: Path
    dataset_id: str
    ids: dict[str, str]  # external id -> record id
    owner: httpx.Client
    clients: dict[str, httpx.Client]
    codes: list[tuple[str, int]] = field(default_factory=list)  # (step, HTTP status)
    queues: dict[str, list[str]] = field(default_factory=dict)  # annotator -> external ids

    def call(self, step: str, client: httpx.Client, method: str, path: str, **kw) -> dict:
        response = client.request(method, path, **kw)
        self.codes.append((step, response.status_code))
        return response.json() if response.content else {}

    def answer(self, step: str, who: str, rid: str, status: str, values=YES) -> dict:
        body = {"status": status, **({"values": values} if values is not None else {})}
        return self.call(step, self.clients[who], "POST", f"/api/v1/records/{rid}/responses",
                         json=body)  # fmt: skip


def owner_client(server) -> httpx.Client:
    key = read_secret_json(server.data_dir / CREDENTIALS_FILE)["api_key"]
    return httpx.Client(base_url=server.url, headers={"X-Argilla-Api-Key": key}, timeout=60)


def _team(owner: httpx.Client) -> str:
    """The workspace with the four annotators in it; its id."""
    workspace = owner.post("/api/v1/workspaces", json={"name": WORKSPACE})
    assert workspace.status_code == 201, workspace.text
    for name in ANNOTATORS:
        user = owner.post("/api/v1/users", json={"first_name": name, "username": name,
                                                 "password": PASSWORD, "role": "annotator"})  # fmt: skip
        assert user.status_code == 201, user.text
        added = owner.post(f"/api/v1/workspaces/{workspace.json()['id']}/users",
                           json={"user_id": user.json()["id"]})  # fmt: skip
        assert added.status_code == 201, added.text
    return workspace.json()["id"]


def _dataset(owner: httpx.Client, workspace_id: str) -> tuple[str, dict[str, str]]:
    """The published dataset and its records: (dataset id, external id -> record id)."""
    distribution = {"strategy": "overlap", "min_submitted": MIN_SUBMITTED}
    made = owner.post("/api/v1/datasets", json={"name": WORKSPACE, "workspace_id":
                                                workspace_id, "distribution": distribution})  # fmt: skip
    assert made.status_code == 201, made.text
    did = made.json()["id"]
    options = [{"value": v, "text": v} for v in ("yes", "no")]
    steps = [
        ("fields", {"name": "text", "title": "text", "settings": {"type": "text"}}),
        ("questions", {"name": "ok", "title": "ok", "required": True,
                       "settings": {"type": "label_selection", "options": options}}),
        ("metadata-properties", {"name": "secret", "title": "secret", "visible_for_annotators": False,
                                 "settings": {"type": "terms", "values": ["a", "b"]}}),
    ]  # fmt: skip
    for path, body in steps:
        done = owner.post(f"/api/v1/datasets/{did}/{path}", json=body)
        assert done.status_code == 201, done.text
    assert owner.put(f"/api/v1/datasets/{did}/publish").status_code == 200
    items = [{"external_id": f"r{n}", "fields": {"text": f"record {n}"},
              "metadata": {"secret": "ab"[n % 2]}} for n in range(RECORDS)]  # fmt: skip
    logged = owner.post(f"/api/v1/datasets/{did}/records/bulk", json={"items": items})
    assert logged.status_code == 201, logged.text
    records = owner.get(f"/api/v1/datasets/{did}/records", params={"limit": 100}).json()["items"]
    return did, {r["external_id"]: r["id"] for r in records}


def prepare(server) -> Played:
    """The team, the dataset and its records on ``server``; nobody has answered yet."""
    owner = owner_client(server)
    did, ids = _dataset(owner, _team(owner))
    clients = {name: login(server.url, name, PASSWORD) for name in ANNOTATORS}
    return Played(server.url, server.data_dir / "argilla.db", did, ids, owner, clients)


def together(calls) -> None:
    """Run the calls at the same instant (one thread each, released by one barrier)."""
    barrier = threading.Barrier(len(calls))

    def run(call) -> None:
        barrier.wait()
        call()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _touch(p: Played, step: str) -> None:
    """A dataset update: Argilla enqueues its record-status job for the dataset."""
    p.call(step, p.owner, "PATCH", f"/api/v1/datasets/{p.dataset_id}", json={"guidelines": step})


def answers(p: Played) -> None:
    """Every kind of answer (see the module's docstring), in one fixed order."""
    a1, a2, a3, a4 = ANNOTATORS
    r = p.ids
    for who in (a1, a2, a3):  # r0: completed by three submitted answers
        p.answer("complete", who, r["r0"], "submitted")
    p.answer("discard", a1, r["r1"], "submitted")  # r1: a discard does not count (Argilla)
    p.answer("discard", a2, r["r1"], "discarded", values=None)
    p.answer("discard", a3, r["r1"], "submitted", values=NO)
    p.queues["after a discard"] = _queue(p, a4)
    p.answer("discard", a4, r["r1"], "submitted")
    draft = p.answer("draft", a1, r["r2"], "draft")  # r2: a draft, submitted last
    for who in (a2, a3):
        p.answer("draft", who, r["r2"], "submitted")
    p.call("draft", p.clients[a1], "PUT", f"/api/v1/responses/{draft.get('id')}",
           json={"values": NO, "status": "submitted"})  # fmt: skip
    changed = [p.answer("mind", who, r["r3"], "submitted") for who in (a1, a2, a3)]
    p.call("mind", p.clients[a1], "PUT", f"/api/v1/responses/{changed[0].get('id')}",
           json={"values": YES, "status": "discarded"})  # fmt: skip
    gone = [p.answer("delete", who, r["r4"], "submitted") for who in (a1, a2, a3)]
    p.call("delete", p.clients[a3], "DELETE", f"/api/v1/responses/{gone[2].get('id')}")
    for who in (a1, a2, a3):  # r5: the UI's bulk route
        item = {"record_id": r["r5"], "values": YES, "status": "submitted"}
        p.call("bulk", p.clients[who], "POST", "/api/v1/me/responses/bulk", json={"items": [item]})
    p.answer("duplicate", a1, r["r6"], "submitted")
    p.answer("duplicate", a1, r["r6"], "submitted")  # 409
    p.answer("invalid", a2, r["r6"], "submitted", values={"ok": {"value": "maybe"}})  # 422
    codes: list[int] = []
    together([lambda who=who: codes.append(
        p.clients[who].post(f"/api/v1/records/{r['r8']}/responses",
                            json={"values": YES, "status": "submitted"}).status_code)
        for who in ANNOTATORS])  # fmt: skip
    p.codes.append(("four at once", sorted(codes)))
    together([lambda: _touch(p, "job during answers"),
              *[lambda who=who: p.answer("three at once", who, r["r9"], "submitted")
                for who in (a1, a2, a3)]])  # fmt: skip
    p.codes.sort(key=lambda step: step[0] == "three at once")  # threads' order varies
    for who in ANNOTATORS:
        p.queues[who] = _queue(p, who)


def _queue(p: Played, who: str) -> list[str]:
    """The annotator's pending queue as the web UI asks for it, as external ids."""
    found = queue(p.clients[who], p.dataset_id, record_status="pending")
    return sorted(record["external_id"] for record in found)


def jobs_done(data_dir: Path) -> int:
    """Jobs the server's rq worker has finished so far."""
    return (data_dir / "logs" / "worker.log").read_text(errors="replace").count("Job OK")


def late_status_job(p: Played, data_dir: Path, before: int, jobs: int = 2) -> None:
    """A dataset update after every answer, then wait for the worker to have run the status
    jobs of this scenario (``jobs`` of them since ``before``)."""
    _touch(p, "late job")
    deadline = time.monotonic() + 120
    while jobs_done(data_dir) < before + jobs and time.monotonic() < deadline:
        time.sleep(0.3)
    assert jobs_done(data_dir) >= before + jobs, "the record-status jobs did not all run"


def rows(p: Played) -> dict[str, list]:
    """The rows the scenario left, without ids or times: responses (record, user, status,
    values), records (status, fields, metadata), the search index's status copy, and who
    answered in the dataset (``datasets_users``)."""
    did = p.dataset_id.replace("-", "")
    queries = {
        "responses": 'SELECT rec.external_id, u.username, r.status, r."values" FROM responses r '
        "JOIN users u ON u.id = r.user_id JOIN records rec ON rec.id = r.record_id "
        "WHERE rec.dataset_id = ?",
        "records": "SELECT external_id, status, fields, metadata FROM records WHERE dataset_id = ?",
        "index": "SELECT r.external_id, b.status FROM bf_record b JOIN records r ON r.id = b.rid "
        "WHERE r.dataset_id = ?",
        "datasets_users": "SELECT u.username FROM datasets_users d JOIN users u "
        "ON u.id = d.user_id WHERE d.dataset_id = ?",
    }
    with sqlite3.connect(f"file:{p.database}?mode=ro", uri=True) as db:
        found = {name: db.execute(sql, (did,)).fetchall() for name, sql in queries.items()}
    return {name: sorted(tuple(map(_plain, row)) for row in table) for name, table in found.items()}


def _plain(value):
    """A JSON column as canonical text (key order aside), anything else as it is."""
    if isinstance(value, str) and value[:1] in "{[":
        return json.dumps(json.loads(value), sort_keys=True)
    return value
