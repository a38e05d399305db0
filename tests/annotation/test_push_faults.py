"""kill -9 of the pushing client mid-push: the re-run sends only what is missing, no duplicate."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

DATASET = "client-killed"


def _external_ids(db) -> list[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
        query = (
            "SELECT r.external_id FROM records r JOIN datasets d ON d.id = r.dataset_id "
            "WHERE d.name = ?"
        )
        return [row[0] for row in conn.execute(query, (DATASET,))]


def _push(run, server) -> list[str]:
    exe = os.path.join(os.path.dirname(sys.executable), "biasforge")
    return [exe, "annotate", "push", str(run), "--dataset", DATASET, "--min-submitted", "1",
            "--data-dir", str(server.data_dir)]  # fmt: skip


def test_killed_push_resumes_without_duplicates(server, becpro_run):
    db = server.data_dir / "argilla.db"
    proc = subprocess.Popen(
        _push(becpro_run, server), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 180
    sent = 0
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            sent = len(_external_ids(db))
        except sqlite3.OperationalError:
            sent = 0
        if sent >= 500:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the push finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    partial = len(_external_ids(db))
    assert 0 < partial < 5400
    done = subprocess.run(_push(becpro_run, server), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    ids = _external_ids(db)
    assert len(ids) == len(set(ids)) == 5400  # every candidate once


def test_two_first_pushes_at_once_make_one_dataset_with_each_record_once(server, becpro_run):
    from tests.annotation.conftest import subset_run

    run = subset_run(becpro_run, server.data_dir.parent / "subset-300", 300)
    exe = os.path.join(os.path.dirname(sys.executable), "biasforge")
    args = [exe, "annotate", "push", str(run), "--dataset", "raced", "--min-submitted", "1",
            "--data-dir", str(server.data_dir)]  # fmt: skip
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]  # fmt: skip
    results = [(p.wait(300), p.stderr.read()) for p in procs]
    assert [code for code, _ in results] == [0, 0], results
    db = server.data_dir / "argilla.db"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
        ids = [row[0] for row in conn.execute(
            "SELECT r.external_id FROM records r JOIN datasets d ON d.id = r.dataset_id "
            "WHERE d.name = 'raced'")]  # fmt: skip
        datasets = conn.execute("SELECT COUNT(*) FROM datasets WHERE name = 'raced'").fetchone()[0]
    assert datasets == 1
    assert len(ids) == len(set(ids)) == 300


def test_an_unreachable_server_is_one_line(becpro_run, tmp_path):
    from biasforge.annotation.admin.serve import free_port
    from tests.conftest import one_error_line, run_cli

    env = {"ARGILLA_API_URL": f"http://127.0.0.1:{free_port()}", "ARGILLA_API_KEY": "k" * 40}
    result = run_cli("annotate", "push", becpro_run, "--dataset", "x", env=env, check=False)
    line = one_error_line(result)
    assert "Argilla server" in line and "127.0.0.1" in line
