"""Native items are reviewed and released like the others (issue 44): a French CrowS-Pairs run
with native pairs is pushed to the real server, answered, pulled; the reviewed records keep
``origin=native``, the release keeps it, and its card names who reviewed the native pairs."""

from __future__ import annotations

import pyarrow.parquet as pq

from biasforge.annotation.review.pull import pull
from biasforge.annotation.review.push import push_run
from biasforge.annotation.review.registry import remember_run
from biasforge.contract.rundir import read_run
from tests.annotation.test_families import answer_as_owner
from tests.cli_runner import run_cli
from tests.languages.test_native import NATIVE_CSV


def test_native_pairs_go_through_review_and_release(server, connection, fake_deepl, tmp_path):
    (tmp_path / "native.csv").write_text(NATIVE_CSV, encoding="utf-8")
    env = {"DEEPL_AUTH_KEY": fake_deepl.auth_key, "DEEPL_SERVER_URL": fake_deepl.url}
    run_cli("curate", "crowspairs", "--lang", "fr", "--limit", "2", "--native",
            tmp_path / "native.csv", "--memory", tmp_path / "tm.sqlite",
            "--out", tmp_path / "run", env=env)  # fmt: skip
    run = read_run(tmp_path / "run")
    rows = run.table.to_pylist()
    natives = {r["id"] for r in rows if r["origin"] == "native"}
    assert len(natives) == 2
    pushed = push_run(tmp_path / "run", "crows-native", connection, min_submitted=1,
                      progress=False)  # fmt: skip
    remember_run(connection.url, connection.workspace, "crows-native", tmp_path / "run")
    answers = {r["id"]: {"minimal_pair": "yes", "stereotype": "yes"} for r in rows}
    answers[sorted(natives)[0]]["stereotype"] = "no"  # one native pair is not held: rejected
    answer_as_owner(connection, pushed.dataset_id, answers)
    pull("crows-native", tmp_path / "reviewed", connection)
    reviewed = pq.read_table(tmp_path / "reviewed" / "reviewed.parquet").to_pylist()
    decided = {r["id"]: (r["decision"], r["origin"], r["adaptation"]) for r in reviewed}
    assert sorted(v for k, v in decided.items() if k in natives) == [
        ("accept", "native", "native"),
        ("reject", "native", "native"),
    ]
    run_cli("export", "release", tmp_path / "reviewed", "--name", "crows-native",
            "--version", "1.0.0", "--out", tmp_path / "releases")  # fmt: skip
    release = tmp_path / "releases" / "crows-native" / "1.0.0"
    released = pq.read_table(release / "fr" / "test.parquet").to_pylist()
    assert sum(r["origin"] == "native" for r in released) == 1
    card = (release / "README.md").read_text()
    assert "**Native items**: 1 item was written in their language" in card
    assert "`reviewed`: 1 native item, reviewed by " in card
