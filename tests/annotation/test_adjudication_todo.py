"""Issue 37, item 8: the pull report says who can adjudicate each waiting record and why a
record stays with the owners, also for records sent by an earlier pull ("ask the adjudicators
listed above" was written when none was listed: the named adjudicator had answered the
record); an adjudication dataset whose records all moved is removed, and only one biasforge
made for adjudication. Real embedded server, answers through the endpoints the web UI calls.
"""

from __future__ import annotations

import httpx
import pytest

from biasforge.annotation.client.api import iter_records
from biasforge.annotation.client.connection import client
from biasforge.annotation.client.workspaces import ensure_workspace
from biasforge.annotation.review.adjudication import is_adjudication_of
from biasforge.annotation.review.pull import pull
from tests.annotation.conftest import subset_run
from tests.annotation.helpers import disagreeing_team

DATASET = "becpro-todo"
ANNOTATOR, JUDGE, OTHER = "td-ann", "td-judge", "td-other"


@pytest.fixture(scope="module")
def setup(server, becpro_run, tmp_path_factory):
    """Two annotators who disagree on every record; one of them is also named adjudicator."""
    base = tmp_path_factory.mktemp("todo")
    run = subset_run(becpro_run, base / "run", 2)
    connection, _, _ = disagreeing_team(
        server, run, DATASET, (ANNOTATOR, JUDGE), (OTHER,), workspace="adjudication-todo"
    )
    return {"connection": connection, "base": base}


def _adjudication_datasets(connection) -> dict[str, int]:
    """``workspace/name`` -> records, for every adjudication dataset of DATASET."""
    with httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    ) as api:
        spaces = {w["id"]: w["name"] for w in api.get("/api/v1/me/workspaces").json()["items"]}
        return {
            f"{spaces[d['workspace_id']]}/{d['name']}": len(list(iter_records(api, d["id"])))
            for d in api.get("/api/v1/me/datasets").json()["items"]
            if is_adjudication_of(d["name"], DATASET)
        }


def _todo(folder) -> list[str]:
    report = (folder / "report.md").read_text(encoding="utf-8")
    return [
        line for line in report.split("**To do:**", 1)[-1].splitlines() if line.startswith("- ")
    ]


def test_the_report_says_who_adjudicates_and_why_records_stay_with_the_owners(setup):
    connection, base = setup["connection"], setup["base"]
    owners_panel = f"{connection.workspace}-adjudication-owners"
    first = pull(DATASET, base / "p1", connection, adjudicators=[JUDGE])
    assert first["adjudication"]["panels"][owners_panel]["sent"] == 2
    again = pull(DATASET, base / "p2", connection, adjudicators=[JUDGE])
    assert again["adjudication"]["panels"] == {}  # nothing sent now: both records stay put
    for folder in (base / "p1", base / "p2"):
        [line] = _todo(folder)
        assert f"2 record(s) wait in the owners' panel `{owners_panel}`: only owners (" in line
        assert f"because every adjudicator ({JUDGE}) answered them as an annotator" in line
        assert "listed above" not in line

    # a stray dataset in the owners' panel named like an adjudication dataset, made by
    # someone else (other fields): it is not biasforge's to remove
    import argilla as rg

    sdk = client(connection)
    space = ensure_workspace(sdk.http_client, owners_panel)
    theirs = rg.Dataset(
        name=f"{DATASET}-adjudication-4",
        workspace=space["name"],
        settings=rg.Settings(
            fields=[rg.TextField(name="text")],
            questions=[rg.LabelQuestion(name="ok", labels=["yes", "no"])],
        ),
        client=sdk,
    ).create()

    moved = pull(DATASET, base / "p3", connection, adjudicators=[OTHER])
    other_panel = next(iter(moved["adjudication"]["panels"]))
    assert moved["adjudication"]["moved"] == 2
    [line] = _todo(base / "p3")
    assert (
        line
        == f"- Ask {OTHER} to adjudicate the 2 record(s) waiting in `{other_panel}`, then pull."
    )
    emptied = f"{owners_panel}/{DATASET}-adjudication"
    assert moved["adjudication"]["removed_datasets"] == [emptied]
    assert f"Adjudication datasets left without records, removed: `{emptied}`" in (
        base / "p3" / "report.md"
    ).read_text(encoding="utf-8")
    assert _adjudication_datasets(connection) == {
        f"{other_panel}/{DATASET}-adjudication": 2,
        f"{owners_panel}/{theirs.name}": 0,
    }

    # issue 47, item 9: the records go back to the owners' panel; the other panel's dataset is
    # emptied and removed, and so is the panel (its workspace), which held nothing else
    back = pull(DATASET, base / "p4", connection, adjudicators=[JUDGE])
    assert back["adjudication"]["removed_datasets"] == [f"{other_panel}/{DATASET}-adjudication"]
    assert back["adjudication"]["removed_panels"] == [other_panel]
    assert f"Adjudication panels (workspaces) left without datasets, removed: `{other_panel}`" in (
        base / "p4" / "report.md"
    ).read_text(encoding="utf-8")
    with httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    ) as api:
        spaces = {w["name"] for w in api.get("/api/v1/me/workspaces").json()["items"]}
    assert other_panel not in spaces and owners_panel in spaces
