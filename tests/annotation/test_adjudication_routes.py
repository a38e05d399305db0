"""Adjudication is a function of the current answers (issue 23): each pull re-routes undecided
records when ``--adjudicators`` changes, a dry pull changes nothing on the server, the choice
offers only corrections that exist, and an adjudication that cannot be used goes back with a
message and a to-do for the maintainer. Real embedded server, answers through the endpoints
the web UI calls.
"""

from __future__ import annotations

import httpx
import pandas as pd
import pytest

from biasforge.annotation.client.api import iter_records
from biasforge.annotation.review.adjudication import is_adjudication_of
from biasforge.annotation.review.pull import pull
from tests.annotation.conftest import subset_run
from tests.annotation.helpers import answer, disagreeing_team, queue, visible_datasets

DATASET = "becpro-routes"
TEAM = ("rt-ann1", "rt-ann2")
JUDGES = ("rt-judge", "rt-judge2")


@pytest.fixture(scope="module")
def setup(server, becpro_run, tmp_path_factory):
    base = tmp_path_factory.mktemp("routes")
    run = subset_run(becpro_run, base / "run", 3)
    connection, pushed, apis = disagreeing_team(
        server, run, DATASET, TEAM, JUDGES, workspace="adjudication-routes"
    )
    rows = pd.read_parquet(run / "candidates.parquet")
    return {"connection": connection, "apis": apis, "rows": rows, "base": base,
            "dataset_id": pushed.dataset_id}  # fmt: skip


def offered(api: httpx.Client) -> set[str]:
    """External ids of the adjudication records this user is offered."""
    found = visible_datasets(api)
    ids = [i for name, got in found.items() if is_adjudication_of(name, DATASET) for i in got]
    return {r["external_id"] for d in ids for r in queue(api, d)}


def server_state(connection) -> dict:
    """Every dataset the owner sees with its records and responses, and every workspace."""
    with httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    ) as api:
        spaces = sorted(w["name"] for w in api.get("/api/v1/me/workspaces").json()["items"])
        state = {"workspaces": spaces}
        for dataset in api.get("/api/v1/me/datasets").json()["items"]:
            records = list(iter_records(api, dataset["id"], include="responses"))
            responses = sorted(
                (r["external_id"], s["user_id"], s["status"])
                for r in records
                for s in r.get("responses") or []
            )
            state[dataset["id"]] = (dataset["name"], sorted(r["id"] for r in records), responses)
    return state


def test_records_follow_the_adjudicators_named_on_each_pull(setup):
    connection, apis, base = setup["connection"], setup["apis"], setup["base"]
    ids = set(setup["rows"]["id"])
    first = pull(DATASET, base / "p1", connection)
    assert first["adjudication"]["sent"] == 3
    assert offered(apis["rt-judge"]) == set()  # owners only, so far

    second = pull(DATASET, base / "p2", connection, adjudicators=["rt-judge"])
    assert (second["adjudication"]["moved"], second["adjudication"]["sent"]) == (3, 3)
    assert offered(apis["rt-judge"]) == ids and offered(apis["rt-judge2"]) == set()
    again = pull(DATASET, base / "p3", connection, adjudicators=["rt-judge"])
    assert (again["adjudication"]["moved"], again["adjudication"]["sent"]) == (0, 0)

    third = pull(DATASET, base / "p4", connection, adjudicators=["rt-judge2"])
    assert third["adjudication"]["moved"] == 3
    assert offered(apis["rt-judge2"]) == ids and offered(apis["rt-judge"]) == set()
    owners = [
        d for d in server_state(connection).values()
        if isinstance(d, tuple) and is_adjudication_of(d[0], DATASET) and d[1]
    ]  # fmt: skip
    assert len(owners) == 1  # each record is in one adjudication dataset only


def test_a_dry_pull_changes_nothing_on_the_server(setup):
    connection, base = setup["connection"], setup["base"]
    before = server_state(connection)
    dry = pull(DATASET, base / "dry", connection, adjudicators=["rt-judge"], dry_run=True)
    assert dry["adjudication"]["dry_run"] and dry["adjudication"]["moved"] == 3  # would move
    assert server_state(connection) == before
    assert "Dry run: nothing was changed on the server" in (base / "dry" / "report.md").read_text()
    # the control: the same pull, not dry, does change the server
    pull(DATASET, base / "wet", connection, adjudicators=["rt-judge"])
    assert server_state(connection) != before


def test_a_stale_adjudication_goes_back_with_a_message(setup):
    connection, apis, base = setup["connection"], setup["apis"], setup["base"]
    pull(DATASET, base / "s1", connection, adjudicators=["rt-judge"])
    judge = apis["rt-judge"]
    found = visible_datasets(judge)
    (plain,) = [i for name, got in found.items() if name == f"{DATASET}-adjudication" for i in got]
    labels = next(
        q["settings"]["options"] for q in judge.get(f"/api/v1/datasets/{plain}/questions").json()["items"]
        if q["name"] == "text_choice"
    )  # fmt: skip
    assert [o["value"] for o in labels] == ["original", "own"]  # nobody proposed a correction
    target = queue(judge, plain)[0]
    rid = target["external_id"]
    answer(
        judge, target["id"], {"grammatical": "yes", "agreement": "yes", "text_choice": "original"}
    )
    # meanwhile an annotator changes their answer: they now propose a correction
    ann = apis["rt-ann1"]
    (mine,) = [
        r for r in queue(ann, setup["dataset_id"], status="submitted") if r["external_id"] == rid
    ]
    response = ann.get(f"/api/v1/records/{mine['id']}", params={"include": "responses"}).json()
    me = ann.get("/api/v1/me").json()["id"]
    (own,) = [r for r in response["responses"] if r["user_id"] == me]
    row = setup["rows"].set_index("id").loc[rid]
    fixed = "Corrected: " + row["sentence"]
    values = {"grammatical": {"value": "no"}, "agreement": {"value": "yes"},
              "correction": {"value": fixed}}  # fmt: skip
    assert (
        ann.put(
            f"/api/v1/responses/{own['id']}", json={"values": values, "status": "submitted"}
        ).status_code
        == 200
    )

    out = base / "s2"
    manifest = pull(DATASET, out, connection, adjudicators=["rt-judge"])
    decisions = pd.read_parquet(out / "decisions.parquet").set_index("id")
    assert decisions.loc[rid, "decision"] == "pending" and decisions.loc[rid, "to_adjudication"]
    assert (
        "sent back to adjudication: rt-judge answered while the annotators' corrections"
        in (decisions.loc[rid, "reason"])
    )
    assert manifest["adjudication"]["sent_back"] == 1
    report = (out / "report.md").read_text()
    assert "**To do:**" in report and "were sent back" in report
    # created again, unanswered, where a record with one proposed correction belongs
    after = visible_datasets(judge)
    (one,) = after[f"{DATASET}-adjudication-1"]
    assert [r["external_id"] for r in queue(judge, one)] == [rid]
    assert rid not in {r["external_id"] for r in queue(judge, plain, status="submitted")}
