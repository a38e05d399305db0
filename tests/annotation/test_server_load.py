"""The embedded server under several annotators at once, its login and its private status route.

Correctness only (no timings: speed is measured by benchmarks/bench_annotators.py). This
module's own server runs with the default settings (the session's shared one runs a single web
process): several web processes sharing the SQLite database in WAL mode, passwords checked off
the event loop at biasforge's bcrypt cost.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import psutil
import pytest

from biasforge.annotation.admin.serve import WEB_WORKERS, WEB_WORKERS_VARIABLE, free_port
from biasforge.annotation.admin.server_env import ensure_server_venv
from biasforge.annotation.admin.users import add_users
from biasforge.annotation.client.api import http, iter_records, users
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.client.secrets import owner_credentials
from biasforge.annotation.review.push import push_run
from tests.annotation.conftest import subset_run
from tests.annotation.helpers import queue
from tests.server import ServerProcess

ANNOTATORS, RECORDS = 5, 20


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """This module's own server, with the default number of web processes."""
    env = {k: v for k, v in os.environ.items() if k != WEB_WORKERS_VARIABLE}
    proc = ServerProcess(tmp_path_factory.mktemp("load-server") / "argilla", free_port(), env)
    proc.start()
    yield proc
    if proc.running():
        proc.stop()


def test_status_needs_a_login_version_does_not(server):
    assert httpx.get(f"{server.url}/api/v1/status").status_code == 401
    assert (
        httpx.get(f"{server.url}/api/v1/status", headers={"X-Argilla-Api-Key": "x"}).status_code
        == 401
    )
    key = owner_credentials(server.data_dir)["api_key"]
    status = httpx.get(f"{server.url}/api/v1/status", headers={"X-Argilla-Api-Key": key})
    assert status.status_code == 200 and status.json()["version"] == "2.8.0"
    version = httpx.get(f"{server.url}/api/v1/version")  # the readiness check's route
    assert version.status_code == 200 and version.json() == {"version": "2.8.0"}


def test_the_database_runs_in_wal_mode(server):
    with sqlite3.connect(server.data_dir / "argilla.db") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_web_server_runs_its_worker_processes(server):
    children = psutil.Process(server.state["server_pid"]).children()
    web = [c for c in children if "spawn_main" in " ".join(c.cmdline())]  # uvicorn's workers
    assert WEB_WORKERS > 1 and len(web) == WEB_WORKERS


def _answer_all(url: str, username: str, password: str, dataset_id: str) -> list[int]:
    """One annotator: log in as the web UI does, answer every queued record one by one;
    returns the status code of each submission."""
    token = httpx.post(f"{url}/api/v1/token", data={"username": username, "password": password})
    assert token.status_code == 201, token.text
    headers = {"Authorization": f"Bearer {token.json()['access_token']}"}
    codes = []
    with httpx.Client(base_url=url, headers=headers, timeout=120) as api:
        values = {"grammatical": {"value": "yes"}, "agreement": {"value": "yes"}}
        for record in queue(api, dataset_id, limit=RECORDS):
            sent = api.post(
                f"/api/v1/records/{record['id']}/responses",
                json={"values": values, "status": "submitted"},
            )
            codes.append(sent.status_code)
    return codes


def test_concurrent_annotators_store_every_response_exactly_once(server, becpro_run, tmp_path):
    connection = find_server(server.data_dir)
    run = subset_run(becpro_run, tmp_path / "run", RECORDS)
    push_run(run, "load-5x20", connection, min_submitted=ANNOTATORS, progress=False)
    made = add_users(connection, [(f"load-ann-{i}", "annotator") for i in range(ANNOTATORS)])
    with http(connection) as api:
        (dataset,) = [
            d for d in api.get("/api/v1/me/datasets").json()["items"] if d["name"] == "load-5x20"
        ]
        with ThreadPoolExecutor(ANNOTATORS) as pool:
            runs = pool.map(
                lambda u: _answer_all(server.url, u.username, u.password, dataset["id"]), made
            )
            codes = [code for run_codes in runs for code in run_codes]
        names = {u["id"]: u["username"] for u in users(api)}
        records = list(iter_records(api, dataset["id"], include="responses"))
    assert codes == [201] * (ANNOTATORS * RECORDS)
    pairs = Counter(
        (record["id"], names[response["user_id"]])
        for record in records
        for response in record["responses"]
    )
    assert len(records) == RECORDS and len(pairs) == ANNOTATORS * RECORDS
    assert set(pairs.values()) == {1}
    # every record got its min_submitted answers: the status updates raced and none was lost
    assert {record["status"] for record in records} == {"completed"}


def _bcrypt_hash(password: str, rounds: int) -> str:
    python = ensure_server_venv(quiet=True)
    code = (
        "import bcrypt, sys; "
        "print(bcrypt.hashpw(sys.argv[1].encode(), bcrypt.gensalt(int(sys.argv[2]))).decode())"
    )
    done = subprocess.run(
        [str(python), "-c", code, password, str(rounds)], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_costlier_password_hash_is_rehashed_at_login(server):
    connection = find_server(server.data_dir)
    (user,) = add_users(connection, [("rehash-ann", "annotator")])
    database = server.data_dir / "argilla.db"

    def stored() -> str:
        with sqlite3.connect(database) as db:
            query = "SELECT password_hash FROM users WHERE username = ?"
            return db.execute(query, (user.username,)).fetchone()[0]

    assert stored().startswith("$2b$08$")  # new passwords: biasforge's cost
    with sqlite3.connect(database) as db:  # as a password set before the tuning (Argilla's 12)
        db.execute(
            "UPDATE users SET password_hash = ? WHERE username = ?",
            (_bcrypt_hash(user.password, 12), user.username),
        )
    token = f"{server.url}/api/v1/token"
    wrong = httpx.post(token, data={"username": user.username, "password": "wrong-password"})
    assert wrong.status_code == 401 and stored().startswith("$2b$12$")  # no rehash on failure
    right = httpx.post(token, data={"username": user.username, "password": user.password})
    assert right.status_code == 201 and stored().startswith("$2b$08$")
    again = httpx.post(token, data={"username": user.username, "password": user.password})
    assert again.status_code == 201
    unknown = httpx.post(token, data={"username": "no-such-user", "password": user.password})
    assert unknown.status_code == 401


def test_an_answer_writes_what_argillas_own_path_writes(server, becpro_run, tmp_path):
    """The answer's transaction runs apart from the event loop (server/overrides/answer_write.py): it
    must still store the response once, touch the dataset's last activity, record the
    annotator on the dataset, refuse a second answer and an invalid one without writing, and
    complete the record (table and search index) at its ``min_submitted``-th answer."""
    from tests.annotation.helpers import login

    connection = find_server(server.data_dir)
    run = subset_run(becpro_run, tmp_path / "run", 1)
    push_run(run, "answer-path", connection, min_submitted=2, progress=False)
    made = add_users(connection, [(f"answer-ann-{i}", "annotator") for i in range(2)])
    database = server.data_dir / "argilla.db"
    with http(connection) as api:
        (dataset,) = [
            d for d in api.get("/api/v1/me/datasets").json()["items"] if d["name"] == "answer-path"
        ]
        (record,) = iter_records(api, dataset["id"])
    dataset_id, record_id = dataset["id"].replace("-", ""), record["id"].replace("-", "")

    def stored() -> dict:
        with sqlite3.connect(database) as db:
            one = lambda sql, *args: db.execute(sql, args).fetchall()  # noqa: E731
            return {
                "responses": one(
                    'SELECT id, user_id, status, "values" FROM responses WHERE record_id = ?',
                    record_id,
                ),
                "annotators": one(
                    "SELECT user_id FROM datasets_users WHERE dataset_id = ?", dataset_id
                ),
                "activity": one("SELECT last_activity_at FROM datasets WHERE id = ?", dataset_id),
                "status": one("SELECT status FROM records WHERE id = ?", record_id),
                "indexed": one("SELECT status FROM bf_record WHERE rid = ?", record_id),
            }

    before = stored()
    values = {"grammatical": {"value": "yes"}, "agreement": {"value": "yes"}}
    first = login(server.url, made[0].username, made[0].password)
    sent = first.post(
        f"/api/v1/records/{record['id']}/responses", json={"values": values, "status": "submitted"}
    )
    assert sent.status_code == 201, sent.text
    after = stored()
    user_id = sent.json()["user_id"].replace("-", "")
    assert [(r[0], r[1], r[2]) for r in after["responses"]] == [
        (sent.json()["id"].replace("-", ""), user_id, "submitted")
    ]
    assert json.loads(after["responses"][0][3]) == values == sent.json()["values"]
    assert after["annotators"] == [(user_id,)]
    assert after["activity"][0][0] > before["activity"][0][0]
    assert after["status"] == after["indexed"] == [("pending",)]
    again = first.post(
        f"/api/v1/records/{record['id']}/responses", json={"values": values, "status": "submitted"}
    )
    wrong = login(server.url, made[1].username, made[1].password).post(
        f"/api/v1/records/{record['id']}/responses",
        json={"values": {"no-such-question": {"value": "yes"}}, "status": "submitted"},
    )
    assert (again.status_code, wrong.status_code) == (409, 422)
    assert stored()["responses"] == after["responses"]
    second = login(server.url, made[1].username, made[1].password).post(
        f"/api/v1/records/{record['id']}/responses", json={"values": values, "status": "submitted"}
    )
    assert second.status_code == 201, second.text
    done = stored()
    assert len(done["responses"]) == 2 and len(done["annotators"]) == 2
    assert done["status"] == done["indexed"] == [("completed",)]
