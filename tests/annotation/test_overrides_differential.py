"""Every override of Argilla's internals (annotation/server/overrides/) proven against a stock
argilla-server 2.8: the same sequence of requests (tests/annotation/differential.py: answers,
discards, drafts, a mind changed, a deleted response, the bulk route, concurrent submissions,
the record-status job during and after the answers) is sent to a stock server (the search
engine's row only, ``EmbeddedServer(stock=True)``) and to the embedded one, then the rows each
database holds are compared. Where docs/embedded-server.md documents a difference (blind reads,
own progress, login-only status, no Push to Hub, the password hash's cost) the test asserts that
difference; everything else must be equal. Both servers start once for the module, side by
side.
"""

from __future__ import annotations

import sqlite3
import threading

import httpx
import pytest

from biasforge.annotation.admin.serve import EmbeddedServer, free_port
from tests.annotation import differential as d

#: each record's status on the stock server once the scenario is over (Argilla's overlap rule:
#: submitted answers only, a discard leaves the record to another annotator)
STOCK = {
    "r0": "completed",  # three submitted
    "r1": "completed",  # two submitted and a discard, then a fourth annotator's answer
    "r2": "completed",  # a draft submitted last
    "r3": "pending",  # three submitted, then one changed to discarded
    "r4": "pending",  # one of three deleted
    "r5": "completed",  # the bulk route
    "r6": "pending",  # one answer (a duplicate refused, an invalid one refused)
    "r7": "pending",  # nobody answered
    "r8": "completed",  # four at the same instant
    "r9": "completed",  # three at the same instant, a status job running
}
#: on the embedded server a discard is an answer (overrides/completion.py): the record with
#: two submitted answers and a discard is complete, and leaves the others' queues at once
EMBEDDED = {**STOCK, "r3": "completed"}
SIDES = ("stock", "embedded")


class Side(threading.Thread):
    """One server, started and played in a thread of its own that lives until the module
    ends: a server's processes are told to stop when the thread that started them exits
    (``PR_SET_PDEATHSIG`` belongs to that thread), and the two servers start side by side."""

    def __init__(self, kind: str, folder) -> None:
        super().__init__(name=f"differential-{kind}", daemon=True)
        self.kind, self.folder = kind, folder
        self.played: d.Played | None = None
        self.error: BaseException | None = None
        self.ready, self.done = threading.Event(), threading.Event()

    def run(self) -> None:
        self.server = EmbeddedServer(data_dir=self.folder / self.kind, port=free_port(),
                                     quiet=True, stock=self.kind == "stock")  # fmt: skip
        try:
            self.server.start()
            self.played = d.prepare(self.server)
            before = d.jobs_done(self.server.data_dir)
            d.answers(self.played)
            d.late_status_job(self.played, self.server.data_dir, before)
        except BaseException as error:  # reported by the fixture, in the test's thread
            self.error = error
        self.ready.set()
        self.done.wait()
        if self.played:
            for client in (self.played.owner, *self.played.clients.values()):
                client.close()
        self.server.stop()


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    """``{"stock": (server, played), "embedded": (server, played)}``, the scenario played on
    both at the same time (each start and scenario is mostly waiting)."""
    folder = tmp_path_factory.mktemp("differential")
    threads = [Side(kind, folder) for kind in SIDES]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.ready.wait()
            if thread.error:
                raise thread.error
        yield {thread.kind: (thread.server, thread.played) for thread in threads}
    finally:
        for thread in threads:
            thread.done.set()
        for thread in threads:
            thread.join(60)


def test_the_answers_leave_the_same_rows_and_queues(sides):
    """answer_write, write_queue, load_tuning (one trip per statement, the user once per
    request, WAL) and speedups change how fast, never what: same rows, codes and queues, but
    for completion's documented difference (a discard counts towards ``min_submitted``)."""
    (_, stock), (_, embedded) = sides["stock"], sides["embedded"]
    found = {kind: d.rows(played) for kind, (_, played) in sides.items()}
    for table in ("responses", "datasets_users"):
        assert found["embedded"][table] == found["stock"][table], table
    for kind, expected in (("stock", STOCK), ("embedded", EMBEDDED)):
        statuses = {external: status for external, status, *_ in found[kind]["records"]}
        assert statuses == expected, kind
        assert dict(found[kind]["index"]) == expected, kind  # the queues' copy follows
    fields = {kind: [row[2:] for row in found[kind]["records"]] for kind in SIDES}
    assert fields["embedded"] == fields["stock"]  # fields and metadata as logged
    assert embedded.codes == stock.codes
    assert ("four at once", [201] * 4) in embedded.codes
    assert [code for step, code in embedded.codes if step == "duplicate"] == [201, 409]


def test_completion_a_discarded_record_leaves_the_queues_at_min_submitted_answers(sides):
    """overrides/completion.py (issue 46, the over-full record): with two submitted answers
    and a discard, Argilla keeps offering the record to the workspace's other members (an
    adjudicator among them) and takes a fourth answer; the embedded server does not offer it.
    The record-status job (run late, after every answer) applies the same rule."""
    (_, stock), (_, embedded) = sides["stock"], sides["embedded"]
    everything = [f"r{n}" for n in range(d.RECORDS)]
    assert stock.queues["after a discard"] == everything[1:]
    assert embedded.queues["after a discard"] == everything[2:]  # r1 is complete
    others = {who: q for who, q in stock.queues.items() if who != "after a discard"}
    assert others.pop("d-ann4") == ["r3", "r4", "r6", "r7"]
    assert embedded.queues == {**others, "after a discard": everything[2:],
                               "d-ann4": ["r4", "r6", "r7"]}  # fmt: skip


def test_blind_reads_an_annotator_reads_no_hidden_metadata_nor_other_answers(sides):
    """overrides/blind_reads.py: ``GET /records/{id}`` and a search on hidden metadata."""
    seen = {}
    for kind, (_, played) in sides.items():
        reader = played.clients["d-ann4"]  # answered r1 and r8 only
        record = reader.get(f"/api/v1/records/{played.ids['r0']}").json()
        search = reader.post(
            f"/api/v1/me/datasets/{played.dataset_id}/records/search",
            json={"filters": {"and": [{"type": "terms", "values": ["a"],
                                       "scope": {"entity": "metadata", "metadata_property":
                                                 "secret"}}]}},
        )  # fmt: skip
        seen[kind] = (record["metadata"], len(record["responses"]), search.status_code)
    assert seen["stock"] == ({"secret": "a"}, 3, 200)  # Argilla: everything, to anyone
    assert seen["embedded"] == ({}, 0, 422)


def test_own_progress_an_annotator_sees_their_own_figure(sides):
    """overrides/own_progress.py: annotators see their own answers; owners the team's."""
    seen = {}
    for kind, (_, played) in sides.items():
        path = f"/api/v1/datasets/{played.dataset_id}/progress"
        seen[kind] = (played.clients["d-ann4"].get(path).json(), played.owner.get(path).json())
    for kind, expected in (("stock", STOCK), ("embedded", EMBEDDED)):
        team = sum(status == "completed" for status in expected.values())
        assert seen[kind][1]["completed"] == team, kind  # the owner: the team's figure
    assert seen["stock"][0] == seen["stock"][1]  # Argilla: the team's, to anyone
    assert seen["embedded"][0]["completed"] == 2  # d-ann4 answered two records


def test_private_status_needs_a_login(sides):
    """overrides/private_status.py: ``GET /api/v1/status`` for signed-in users only."""
    codes = {}
    for kind, (server, played) in sides.items():
        anonymous = httpx.get(f"{server.url}/api/v1/status", timeout=30).status_code
        codes[kind] = (anonymous, played.owner.get("/api/v1/status").status_code)
    assert codes == {"stock": (200, 200), "embedded": (401, 200)}


def test_releases_only_push_to_hub_is_refused(sides):
    """overrides/releases_only.py: the Push to Hub job is refused, naming the release command.
    (The stock job, enqueued, then fails offline in the worker: no token, no network.)"""
    answered = {}
    for kind, (_, played) in sides.items():
        export = played.owner.post(f"/api/v1/datasets/{played.dataset_id}/export",
                                   json={"name": "x/y", "subset": "default", "split": "train",
                                         "private": True, "token": "hf_none"})  # fmt: skip
        answered[kind] = (export.status_code, "biasforge export release" in export.text)
    assert answered == {"stock": (202, False), "embedded": (422, True)}


def test_load_tuning_hashes_passwords_at_a_lower_cost(sides):
    """overrides/load_tuning.py: bcrypt cost 8 instead of 12; sign-ins work on both."""
    costs = {}
    for kind, (_, played) in sides.items():
        with sqlite3.connect(f"file:{played.database}?mode=ro", uri=True) as db:
            hashes = db.execute(
                "SELECT password_hash FROM users WHERE username LIKE 'd-ann%'"
            ).fetchall()
        costs[kind] = {h[:7] for (h,) in hashes}
    assert costs == {"stock": {"$2b$12$"}, "embedded": {"$2b$08$"}}


def test_sessions_end_when_the_password_changes(sides):
    """overrides/sessions.py: a session token issued before a password change is refused at
    once (Argilla: valid until it expires or the server restarts)."""
    from tests.annotation.helpers import login

    codes = {}
    for kind, (server, played) in sides.items():
        made = played.owner.post("/api/v1/users", json={"first_name": "d-sess", "username":
                                 "d-sess", "password": d.PASSWORD, "role": "annotator"})  # fmt: skip
        session = login(server.url, "d-sess", d.PASSWORD)
        changed = played.owner.patch(
            f"/api/v1/users/{made.json()['id']}", json={"password": "another-password-2"}
        )
        codes[kind] = (changed.status_code, session.get("/api/v1/me").status_code)
    assert codes == {"stock": (200, 200), "embedded": (200, 401)}
