"""A user's own language pack through the whole pipeline, with no change to the code: the
Portuguese folder of test_your_pack.py curates StereoSet and CrowS-Pairs (fake DeepL), both
runs are reviewed on the real embedded server (two annotators answer every record through the
API, as the web UI does), pulled, released and scored with tiny masked and causal models."""

from __future__ import annotations

import pandas as pd
import pytest

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review.pull import pull
from biasforge.contract.rundir import read_run
from biasforge.exports.release import make_release
from biasforge.families.stereoset import known_answers
from tests.annotation.helpers import answer, login, pushed_run, queue
from tests.annotation.keyed import pushed_key
from tests.cli_runner import run_cli
from tests.fake_deepl import FakeDeepL
from tests.helpers import server_biasforge_home as biasforge_home  # noqa: F401
from tests.languages.test_your_pack import write_pack

TEAM = ("pt-pack-ann1", "pt-pack-ann2")
FAMILIES = ("stereoset", "crowspairs")


def accepting(family: str, row: dict, key) -> dict:
    """The answers that accept a record as it stands (StereoSet: each option's own label, in
    the order the dataset's key shows the options)."""
    if family == "crowspairs":
        return {"minimal_pair": "yes", "stereotype": "yes"}
    return {"validity": "valid", **known_answers(row, key=key)}


@pytest.fixture(scope="module")
def released(server, tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("pt-pack")
    pack = write_pack(base / "pt")
    connection = find_server(server.data_dir)
    users = {u.username: u.password for u in add_users(connection, [(n, None) for n in TEAM])}
    fake = FakeDeepL().start()
    env = {"DEEPL_AUTH_KEY": fake.auth_key, "DEEPL_SERVER_URL": fake.url}
    found = {}
    try:
        for family in FAMILIES:
            run, dataset = base / f"run-{family}", f"{family}-pt-br-pack"
            run_cli("curate", family, "--lang", "pt-br", "--language-pack", pack, "--limit", "6",
                    "--memory", base / "tm.sqlite", "--out", run, env=env)  # fmt: skip
            pushed = pushed_run(connection, run, dataset, min_submitted=2)
            rows = {r["id"]: r for r in read_run(run).candidates.to_dict("records")}
            key = pushed_key(connection, dataset)
            for name in TEAM:
                api = login(connection.url, name, users[name])
                for record in queue(api, pushed.dataset_id):
                    row = rows[record["external_id"]]
                    answer(api, record["id"], accepting(family, row, key))
            pull(dataset, base / f"pulled-{family}", connection)
            release = make_release([base / f"pulled-{family}"], name=f"{family}-pt-br",
                                   version="1.0.0", out=base / "releases")  # fmt: skip
            found[family] = (rows, release.path)
    finally:
        fake.stop()
    return found


@pytest.mark.parametrize("family", FAMILIES)
def test_every_reviewed_record_is_released(released, family):
    rows, release = released[family]
    files = sorted(release.rglob("*.parquet"))
    table = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    assert sorted(table["id"]) == sorted(rows) and set(table["language"]) == {"pt-br"}
    text = " ".join(map(str, table.to_dict("records"))).lower()
    assert "mulher" in text or "pessoas" in text  # the fake's Portuguese


@pytest.mark.parametrize("family", FAMILIES)
def test_the_release_scores_with_a_masked_and_a_causal_model(
    released, family, tiny_models, tmp_path
):
    release = released[family][1]
    run_cli("score", family, "--dataset", release, "--model", tiny_models["masked"], "--model",
            tiny_models["causal"], "--out", tmp_path / "scores", "--bootstrap", "20",
            "--no-progress")  # fmt: skip
    results = pd.read_csv(tmp_path / "scores" / "results.csv")
    assert set(results["model"]) == {"tiny-bert", "tiny-gpt2"}
