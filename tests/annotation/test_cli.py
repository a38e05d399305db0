"""The ``biasforge annotate`` commands as a user runs them (subprocesses, embedded server)."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx

from tests.annotation.conftest import ROOT, subset_run


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "biasforge.cli", "annotate", *args],
        cwd=ROOT, capture_output=True, text=True, env=env or os.environ.copy(), timeout=300,
    )  # fmt: skip


def test_users_from_csv_get_working_passwords_shown_once(server, tmp_path):
    table = tmp_path / "team.csv"
    table.write_text("username,role\ncsv-ann1,annotator\ncsv-ann2,annotator\n", encoding="utf-8")
    first = cli("users", "--csv", str(table))
    assert first.returncode == 0, first.stderr
    lines = [line.split("\t") for line in first.stdout.strip().splitlines()]
    assert [line[0] for line in lines] == ["csv-ann1", "csv-ann2"]
    for username, role, workspace, password in lines:
        assert role == "annotator" and workspace == "biasforge" and len(password) >= 16
        token = httpx.post(
            f"{server.url}/api/v1/token", data={"username": username, "password": password}
        )
        assert token.status_code == 201
    again = cli("users", "csv-ann1")
    assert again.returncode == 0 and "already existed" in again.stdout
    assert lines[0][3] not in again.stdout


def test_bad_csv_and_missing_server_are_one_line_errors(server, becpro_run, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("name\nx\n", encoding="utf-8")
    result = cli("users", "--csv", str(bad))
    assert result.returncode == 2 and str(bad) in result.stderr and "username" in result.stderr
    env = {**os.environ, "BIASFORGE_HOME": str(tmp_path / "elsewhere")}
    result = cli("push", str(becpro_run), "--dataset", "x", env=env)
    assert result.returncode == 2 and "no Argilla server is running" in result.stderr


def test_push_twice_then_pull(server, becpro_run, tmp_path):
    run = subset_run(becpro_run, tmp_path / "run", 4)
    first = cli("push", str(run), "--dataset", "cli-ds", "--min-submitted", "1")
    assert first.returncode == 0, first.stderr
    assert "4 records created, 0 already there" in first.stdout
    second = cli("push", str(run), "--dataset", "cli-ds")
    assert "0 records created, 4 already there" in second.stdout
    out = tmp_path / "reviewed"
    pulled = cli("pull", "--dataset", "cli-ds", "--out", str(out), "--policy", "majority")
    assert pulled.returncode == 0, pulled.stderr
    assert "pending: 4" in pulled.stdout
    for name in (
        "reviewed.parquet",
        "agreement.json",
        "manifest.json",
        "report.md",
        "decisions.parquet",
    ):
        assert (out / name).is_file()
    agreement = cli("agreement", "--dataset", "cli-ds")
    assert agreement.returncode == 0, agreement.stderr
    assert agreement.stdout == ""  # nobody answered yet: no figures


def test_serve_in_background_then_stop(server, tmp_path):
    from annotation.serve import free_port, pid_alive, read_state

    data_dir = tmp_path / "bg"
    started = cli(
        "serve",
        "--background",
        "--no-worker",
        "--data-dir",
        str(data_dir),
        "--port",
        str(free_port()),
    )
    assert started.returncode == 0, started.stderr
    state = read_state(data_dir)
    assert state and state["url"] in started.stdout and "biasforge-owner" in started.stdout
    assert httpx.get(f"{state['url']}/api/v1/status").status_code == 200
    pids = [state["pid"], *state["children"].values()]
    stopped = cli("stop", "--data-dir", str(data_dir))
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    assert not any(pid_alive(pid) for pid in pids)
    assert (
        cli("stop", "--data-dir", str(data_dir)).stdout.strip() == "no embedded server was running"
    )
