"""The team deployment path: the review commands work against any Argilla 2.8 server named by
ARGILLA_API_URL and ARGILLA_API_KEY (README, "Scale-out"). Here that server is stock
argilla-server 2.8 whose only addition is the SQL search engine, registered through Argilla's
own ``SearchEngine.register`` (``BIASFORGE_STOCK_SERVER=1``: none of biasforge's patches), so
nothing in the commands leans on a patched behaviour. The commands run with those two
variables and a BIASFORGE_HOME where no embedded server exists: users, push, three
annotators' answers, pull under both policies, adjudication and the pull that merges it."""

from __future__ import annotations

import os

import httpx
import pandas as pd
import pytest

from biasforge.annotation.admin.serve import EmbeddedServer, free_port
from biasforge.annotation.client.secrets import owner_credentials
from biasforge.annotation.review.adjudication import is_adjudication_of
from tests import cli_runner
from tests.annotation.conftest import ROOT, subset_run
from tests.annotation.helpers import answer, login, queue, visible_datasets

DATASET = "scale-out"
TEAM = ("so-ann1", "so-ann2", "so-ann3")
YES, NO = ("yes", "yes"), ("no", "no")  # (grammatical, agreement)
#: per record, the three annotators' votes -> (majority, unanimous before adjudication)
VOTES = {
    0: ((YES, YES, YES), "accept", "accept"),
    1: ((YES, YES, NO), "accept", "pending"),
    2: ((NO, NO, NO), "reject", "reject"),
    3: ((YES, NO, NO), "reject", "pending"),
}
#: the adjudicator's verdict on the records unanimity could not decide
VERDICT = {1: (YES, "accept"), 3: (NO, "reject")}


@pytest.fixture(scope="module")
def stock_server(biasforge_home, tmp_path_factory):
    server = EmbeddedServer(
        data_dir=tmp_path_factory.mktemp("stock-argilla") / "data", port=free_port(),
        quiet=True, stock=True,
    )  # fmt: skip
    try:
        server.start()
        yield server
    finally:
        server.stop()


def run_cli(env: dict, *args: str) -> str:
    result = cli_runner.run_cli("annotate", *args, check=False, env=cli_runner.whole(env), cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def vote(votes: tuple[str, str]) -> dict:
    return dict(zip(("grammatical", "agreement"), votes, strict=True))


def decisions(out, ids: list[str]) -> list[str]:
    frame = pd.read_parquet(out / "reviewed.parquet").set_index("id")
    return [str(frame.loc[rid, "decision"]) for rid in ids]


def test_the_server_is_stock_argilla_plus_the_engine(stock_server):
    status = httpx.get(f"{stock_server.url}/api/v1/status", timeout=30)  # public in Argilla
    assert status.status_code == 200, status.text
    assert status.json()["search_engine"]["engine"] == "biasforge-sql"


def test_users_push_answers_pull_and_adjudication_through_api_url_and_key(
    stock_server, becpro_run, tmp_path
):
    key = owner_credentials(stock_server.data_dir)["api_key"]
    home = tmp_path / "no-embedded-server-here"
    home.mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ARGILLA_")},
        "BIASFORGE_HOME": str(home),
        "ARGILLA_API_URL": stock_server.url,
        "ARGILLA_API_KEY": key,
    }
    run = subset_run(becpro_run, tmp_path / "run", len(VOTES))
    pushed = run_cli(env, "push", str(run), "--dataset", DATASET, "--min-submitted", "3")
    assert f"{len(VOTES)} records created" in pushed and stock_server.url in pushed

    created = run_cli(env, "users", *TEAM, "so-judge")
    passwords = {line.split("\t")[0]: line.split("\t")[3] for line in created.splitlines()[:4]}
    assert sorted(passwords) == sorted([*TEAM, "so-judge"])
    ids = list(pd.read_parquet(run / "candidates.parquet")["id"])
    for who_index, who in enumerate(TEAM):
        annotator = login(stock_server.url, who, passwords[who])
        (dataset_id,) = visible_datasets(annotator)[DATASET]
        records = queue(annotator, dataset_id)
        assert sorted(r["external_id"] for r in records) == sorted(ids)
        for record in records:
            votes = VOTES[ids.index(record["external_id"])][0][who_index]
            answer(annotator, record["id"], vote(votes))

    def pull(out_name: str, *options: str):
        out = tmp_path / out_name
        run_cli(env, "pull", "--dataset", DATASET, "--out", str(out), "--run", str(run), *options)
        return out

    majority = pull("majority", "--policy", "majority", "--dry-run")
    assert decisions(majority, ids) == [VOTES[i][1] for i in range(len(VOTES))]
    first = pull("unanimous", "--policy", "unanimous", "--adjudicators", "so-judge")
    assert decisions(first, ids) == [VOTES[i][2] for i in range(len(VOTES))]

    judge = login(stock_server.url, "so-judge", passwords["so-judge"])
    offered = [
        record
        for name, found in visible_datasets(judge).items()
        if is_adjudication_of(name, DATASET)
        for dataset_id in found
        for record in queue(judge, dataset_id)
    ]
    assert sorted(ids.index(r["external_id"]) for r in offered) == sorted(VERDICT)
    for record in offered:
        votes, _ = VERDICT[ids.index(record["external_id"])]
        values = vote(votes)
        answer(judge, record["id"], {**values, "text_choice": "original"})
    merged = pull("merged", "--policy", "unanimous", "--adjudicators", "so-judge")
    expected = [VERDICT[i][1] if i in VERDICT else VOTES[i][2] for i in range(len(VOTES))]
    assert decisions(merged, ids) == expected
    frame = pd.read_parquet(merged / "reviewed.parquet").set_index("id")
    assert [frame.loc[ids[i], "adjudicated_by"] for i in sorted(VERDICT)] == ["so-judge"] * 2
    assert not list(home.glob("**/server.json"))  # no embedded server was started for this
