"""Scale-out: the review commands work against any Argilla server named by ARGILLA_API_URL and
ARGILLA_API_KEY (README, "Scale-out"). Here that server is a second embedded one, started with
its own data folder; the commands run with those two variables and a BIASFORGE_HOME where no
embedded server exists, so nothing can reach the embedded one by another way."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from biasforge.annotation.serve import CREDENTIALS_FILE, free_port, read_secret_json
from tests.annotation.conftest import ROOT, ServerProcess, subset_run
from tests.annotation.helpers import answer, login, queue, visible_datasets

DATASET = "scale-out"


@pytest.fixture(scope="module")
def other_server(biasforge_home, tmp_path_factory):
    proc = ServerProcess(tmp_path_factory.mktemp("team-cluster") / "data", free_port())
    proc.data_dir.mkdir(parents=True)
    proc.start()
    yield proc
    if proc.proc is not None and proc.proc.poll() is None:
        proc.stop()


def run_cli(env: dict, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "biasforge.cli", "annotate", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_push_answer_pull_through_api_url_and_key_only(other_server, becpro_run, tmp_path):
    key = read_secret_json(other_server.data_dir / CREDENTIALS_FILE)["api_key"]
    home = tmp_path / "no-embedded-server-here"
    home.mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ARGILLA_")},
        "BIASFORGE_HOME": str(home),
        "ARGILLA_API_URL": other_server.url,
        "ARGILLA_API_KEY": key,
    }
    run = subset_run(becpro_run, tmp_path / "run", 4)
    pushed = run_cli(env, "push", str(run), "--dataset", DATASET, "--min-submitted", "1")
    assert "4 records created" in pushed and other_server.url in pushed

    users = run_cli(env, "users", "scale-ann")
    username, _, _, password = users.splitlines()[0].split("\t")[:4]
    assert username == "scale-ann"
    annotator = login(other_server.url, username, password)
    sentences = pd.read_parquet(run / "candidates.parquet").set_index("id")["sentence"]
    (dataset_id,) = visible_datasets(annotator)[DATASET]
    records = queue(annotator, dataset_id)
    assert len(records) == 4
    for record in records:
        values = {
            "grammatical": "yes",
            "agreement": "yes",
            "correction": str(sentences[record["external_id"]]),
        }
        answer(annotator, record["id"], values)

    out = tmp_path / "reviewed"
    pulled = run_cli(env, "pull", "--dataset", DATASET, "--out", str(out), "--run", str(run))
    assert "accept" in pulled
    reviewed = pd.read_parquet(out / "reviewed.parquet")
    assert sorted(reviewed["id"]) == sorted(sentences.index)
    decisions = pd.read_parquet(out / "decisions.parquet")
    assert len(decisions) == 4
    assert not list(home.glob("**/server.json"))  # no embedded server was started for this
