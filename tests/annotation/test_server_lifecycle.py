"""The embedded server as a process: credentials, binding, crash mid-push, restart, shutdown."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time

import httpx
import pandas as pd
import psutil

from biasforge.annotation.admin.serve import free_port, pid_alive
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review.push import push_candidates
from tests.annotation.helpers import listening

DATASET = "crash-push"
N = 1000


def test_credentials_are_private_and_strong(server):
    path = server.data_dir / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    creds = __import__("json").loads(path.read_text())
    assert creds["password"] not in {"1234", "12345678", "argilla"} and len(creds["password"]) >= 20
    assert len(creds["api_key"]) >= 40
    assert "argilla.apikey" not in creds["api_key"]
    # the stock default account does not exist
    token = httpx.post(
        f"{server.url}/api/v1/token", data={"username": "argilla", "password": "12345678"}
    )
    assert token.status_code == 401
    # unauthenticated API calls are refused
    assert httpx.get(f"{server.url}/api/v1/me").status_code == 401


def test_everything_listens_on_loopback_only(server):
    sockets = listening(server.children())
    assert sockets, "expected the web server and redis to listen"
    assert {ip for ip, _ in sockets} == {"127.0.0.1"}
    assert server.port in {port for _, port in sockets}


def test_the_number_of_web_processes_is_chosen_by_the_environment(server, tmp_path):
    assert os.environ["BIASFORGE_WEB_WORKERS"] == "1"  # tests/conftest.py, for this server
    web = psutil.Process(server.state["server_pid"])
    assert [c for c in web.children() if "spawn_main" in " ".join(c.cmdline())] == []
    assert httpx.get(f"{server.url}/api/v1/version").status_code == 200  # it serves itself
    data_dir = tmp_path / "argilla"
    for bad in ("0", "three", "33"):
        refused = subprocess.run(
            [sys.executable, "-m", "biasforge.cli", "annotate", "serve", "--port", "0",
             "--data-dir", str(data_dir)],
            env={**os.environ, "BIASFORGE_WEB_WORKERS": bad},
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert refused.returncode == 2 and refused.stderr.splitlines() == [
            f"error: BIASFORGE_WEB_WORKERS={bad!r}: expected a number of web processes, 1 to 32"
        ]
        assert not (data_dir / "server.json").exists() and not (data_dir / "logs").exists()


def test_second_start_is_refused_and_leaves_the_running_server_alone(server):
    tmp = server.data_dir / "tmp"  # where the running server's web UI was unpacked
    assert tmp.is_dir()
    serve = [sys.executable, "-m", "biasforge.cli", "annotate", "serve"]
    for port in (free_port(), server.port):  # same data dir, on a free port and on its own
        refused = subprocess.run(
            [*serve, "--data-dir", str(server.data_dir), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert refused.returncode == 2
        assert refused.stderr.count("\n") == 1 and "already runs" in refused.stderr
    assert tmp.is_dir() and (server.data_dir / "server.json").is_file()
    assert all(pid_alive(pid) for pid in server.children())
    assert httpx.get(f"{server.url}/api/v1/version").status_code == 200


def record_count(db_path) -> int:
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30) as db:
        return db.execute(
            "SELECT COUNT(*) FROM records r JOIN datasets d ON d.id = r.dataset_id WHERE d.name = ?",
            (DATASET,),
        ).fetchone()[0]


def test_crash_mid_push_then_restart_loses_and_duplicates_nothing(server, becpro_run):
    candidates = pd.read_parquet(becpro_run / "candidates.parquet").head(N)
    connection = find_server(server.data_dir)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            push_candidates(candidates, DATASET, connection, batch_size=50, progress=False)
        except BaseException as exc:  # the server goes away under it
            errors.append(exc)

    pusher = threading.Thread(target=run)
    pusher.start()
    db = server.data_dir / "argilla.db"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if record_count(db) >= 150:
                break
        except sqlite3.OperationalError:
            pass
        time.sleep(0.05)
    os.kill(server.state["server_pid"], signal.SIGKILL)  # a crash, mid-transaction
    pusher.join(120)
    assert errors, "the push should have failed when the server died"
    code = server.proc.wait(30)  # the supervisor notices, stops the other children, exits 1
    assert code == 1
    for pid in server.children():
        deadline = time.monotonic() + 15
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not pid_alive(pid)
    assert not (server.data_dir / "server.json").exists()
    before = record_count(db)
    assert 0 < before < N

    server.start()
    connection = find_server(server.data_dir)
    result = push_candidates(candidates, DATASET, connection, progress=False)
    assert result.already_present == before and result.created == N - before
    assert record_count(db) == N
    with sqlite3.connect(db) as conn:
        ids = [
            r[0]
            for r in conn.execute(
                "SELECT r.external_id FROM records r JOIN datasets d ON d.id = r.dataset_id WHERE d.name = ?",
                (DATASET,),
            )
        ]
    assert sorted(ids) == sorted(candidates["id"])
    # data from before the crash survived the restart (earlier tests' datasets too)
    again = push_candidates(candidates, DATASET, connection, progress=False)
    assert again.created == 0


def _descendants_once_forked(pids: list[int]) -> list[int]:
    """The processes below ``pids``, once there are any: the rq worker pool forks its worker
    only when it has loaded (up to 60 s)."""
    deadline = time.monotonic() + 60
    while True:
        below = [c.pid for p in pids for c in psutil.Process(p).children(recursive=True)]
        if below or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert below, f"nothing was forked below {pids} within 60 s"
    return below


def test_a_dying_job_worker_stops_the_server_and_is_named(server):
    """The job worker of a one-process server is forked by the web process
    (annotation/server/job_worker.py); when it dies, the whole server stops, as for any child
    of the supervisor, and the web process's log names it."""
    worker = server.state["children"]["worker"]
    assert psutil.Process(worker).ppid() == server.state["server_pid"]  # forked, not spawned
    rq_workers = _descendants_once_forked([worker])
    children = server.children() + rq_workers  # the pool's own worker, orphaned by the kill
    server_log = server.data_dir / "logs" / "server.log"
    logged = server_log.stat().st_size
    try:
        os.kill(worker, signal.SIGKILL)
        assert server.proc.wait(60) == 1
        deadline = time.monotonic() + 30
        while any(pid_alive(p) for p in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(pid_alive(p) for p in children)
        assert not (server.data_dir / "server.json").exists()
        with server_log.open("rb") as log:
            log.seek(logged)
            said = log.read().decode(errors="replace")
        assert f"the job worker (pid {worker}) exited (code -9): the web server stops" in said
    finally:
        server.log.close()
        server.start()  # leave it running for any later test, even after a failure here


def test_sigterm_stops_every_child(server):
    children = server.children()
    assert set(server.state["children"]) == {"redis", "server", "worker"}
    assert children and all(pid_alive(p) for p in children)
    descendants = _descendants_once_forked(children)
    worker_log = server.data_dir / "logs" / "worker.log"
    logged = worker_log.stat().st_size
    try:
        assert server.stop(signal.SIGTERM) == 0
        with worker_log.open("rb") as log:  # what the worker wrote while stopping
            log.seek(logged)
            stopping = log.read().decode(errors="replace")
        assert "Traceback" not in stopping and "ConnectionError" not in stopping, stopping
        assert not any(pid_alive(p) for p in children + descendants)
        assert not (server.data_dir / "server.json").exists()
        assert not (server.data_dir / "tmp").exists()
    finally:
        server.start()  # leave it running for any later test, even after a failure here


def _serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "biasforge.cli", "annotate", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_background_start_on_a_busy_port_says_so_on_the_console(tmp_path):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        data_dir = tmp_path / "argilla"
        result = _serve("serve", "--background", "--port", str(port), "--data-dir", str(data_dir))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        f"error: port {port} on 127.0.0.1 is in use; choose another with --port"
    ]
    assert not (data_dir / "server.json").exists()


def test_a_detached_server_s_start_error_comes_back_to_the_console(server, tmp_path):
    data_dir = tmp_path / "argilla"
    data_dir.mkdir()
    credentials = data_dir / "credentials.json"
    credentials.write_text("{}")
    credentials.chmod(0o644)  # the detached server refuses credentials others can read
    result = _serve("serve", "--background", "--port", "0", "--data-dir", str(data_dir))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: the server exited (code 2): ")
    assert "permissions 0o644 are too open" in line and line.endswith("serve.log")


def test_port_zero_picks_a_free_port(server, tmp_path):
    data_dir = tmp_path / "argilla"
    started = _serve("serve", "--background", "--port", "0", "--data-dir", str(data_dir))
    try:
        assert started.returncode == 0, started.stderr
        state = json.loads((data_dir / "server.json").read_text())
        assert state["port"] > 0 and f"http://127.0.0.1:{state['port']}" in started.stdout
        assert httpx.get(f"{state['url']}/api/v1/version").status_code == 200
    finally:
        assert _serve("stop", "--data-dir", str(data_dir)).stdout.strip() == "stopped"
