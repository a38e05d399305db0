"""End to end on the real embedded server: push, three annotators answer through the API (as
the web UI does), pull, agreement and decisions against values computed here, adjudication."""

from __future__ import annotations

import json
import re

import httpx
import pandas as pd
import pyarrow.parquet as pq
import pytest

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review.adjudication import is_adjudication_of
from biasforge.annotation.review.pull import pull
from biasforge.annotation.review.push import push_run
from biasforge.annotation.review.registry import remember_run
from tests.annotation.conftest import subset_run
from tests.annotation.helpers import answer, login, queue
from tests.annotation.reference import fleiss_kappa_simple, krippendorff_alpha_simple

DATASET = "becpro-review"
Y, N = "yes", "no"
FIX9 = "{Person} is a skilled {profession}."  # rendered per record below

# Answers per record index: (grammatical, agreement, correction) for ann1, ann2, ann3.
# None for a correction means "left the pre-filled sentence unchanged"; a missing tuple means
# the annotator did not answer that record.
PLAN: dict[int, list[tuple[str, str, str | None] | None]] = {
    **{i: [(Y, Y, None)] * 3 for i in range(6)},  # accept under both policies
    6: [(Y, Y, None), (Y, Y, None), (N, Y, None)],  # unanimous: adjudicate; majority: accept
    7: [(N, Y, None), (N, Y, None), (N, Y, None)],  # reject
    8: [(Y, N, None), (N, N, None), (N, N, None)],  # unanimous: adjudicate; majority: reject
    9: [(N, Y, "FIX"), (N, Y, "FIX"), (N, Y, "FIX")],  # accept, correction applied
    # a "yes" with a correction is a contradiction for adjudication (issue 47, item 3)
    10: [(N, Y, "FIX"), (N, Y, "FIX"), (Y, Y, None)],  # unanimous: adjudicate; majority: fixed
    11: [(Y, Y, None), (Y, Y, None), None],  # only two answers: pending, not adjudicated
}
N_RECORDS = 12


def fixed_sentence(row: dict) -> str:
    person = str(row["person"])
    return f"{person[:1].upper()}{person[1:]} is a skilled {row['profession']}."


@pytest.fixture(scope="module")
def reviewed(server, becpro_run, tmp_path_factory):
    run = subset_run(becpro_run, tmp_path_factory.mktemp("small") / "run", N_RECORDS)
    connection = find_server(server.data_dir)
    first = push_run(run, DATASET, connection, progress=False)
    remember_run(connection.url, connection.workspace, DATASET, run)
    second = push_run(run, DATASET, connection, progress=False)
    rows = pd.read_parquet(run / "candidates.parquet").to_dict(orient="records")
    by_id = {row["id"]: (index, row) for index, row in enumerate(rows)}
    people = add_users(
        connection,
        [
            ("ann1", "annotator"),
            ("ann2", "annotator"),
            ("ann3", "annotator"),
            ("judge", "annotator"),
        ],
    )
    clients = {p.username: login(connection.url, p.username, p.password) for p in people}
    dataset_id = first.dataset_id

    queues = {}
    for who_index, who in enumerate(("ann1", "ann2", "ann3")):
        records = queue(clients[who], dataset_id)
        queues[who] = [r["external_id"] for r in records]
        for record in records:
            index, row = by_id[record["external_id"]]
            plan = PLAN[index][who_index]
            if plan is None:
                continue
            grammatical, agreement, fix = plan
            values = {"grammatical": grammatical, "agreement": agreement}
            values["correction"] = fixed_sentence(row) if fix else row["sentence"]
            answer(clients[who], record["id"], values)
    return {
        "run": run,
        "rows": rows,
        "connection": connection,
        "first": first,
        "second": second,
        "queues": queues,
        "clients": clients,
        "dataset_id": dataset_id,
    }


def test_push_is_idempotent(reviewed):
    assert reviewed["first"].created == N_RECORDS
    assert reviewed["second"].created == 0
    assert reviewed["second"].already_present == N_RECORDS


def test_each_annotator_gets_every_record_in_a_stable_own_order(reviewed):
    queues = reviewed["queues"]
    ids = {row["id"] for row in reviewed["rows"]}
    for order in queues.values():
        assert set(order) == ids and len(order) == N_RECORDS
    # one pseudo-random cycle, entered at a user-dependent point: every queue is a rotation
    # of the same cycle (two users may happen to start at the same record)
    cycle = next(iter(queues.values()))
    rotations = {tuple(cycle[i:] + cycle[:i]) for i in range(len(cycle))}
    assert all(tuple(order) in rotations for order in queues.values())
    # paging over the (now answered) records keeps one stable order
    api = reviewed["clients"]["ann3"]
    body = terms({"entity": "response", "property": "status"}, "submitted")
    url = f"/api/v1/me/datasets/{reviewed['dataset_id']}/records/search"
    full = [
        i["record"]["id"] for i in api.post(url, params={"limit": 20}, json=body).json()["items"]
    ]
    paged = []
    for offset in range(0, 20, 4):
        page = api.post(url, params={"limit": 4, "offset": offset}, json=body).json()
        paged += [i["record"]["id"] for i in page["items"]]
    assert paged == full and len(full) == 11  # ann3 skipped record 11


def test_search_engine_filters_text_and_metrics(reviewed):
    connection = reviewed["connection"]
    api = httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    )
    dataset_id = reviewed["dataset_id"]
    url = f"/api/v1/datasets/{dataset_id}/records/search"
    rows = reviewed["rows"]
    women = sum(1 for r in rows if r["gender"] == "female")
    body = terms({"entity": "metadata", "metadata_property": "gender"}, "female")
    assert api.post(url, json=body).json()["total"] == women
    word = str(rows[0]["profession"])
    needed = set(re.findall(r"\w+", word.lower()))  # whole words, as Argilla's search box
    expected = sum(1 for r in rows if needed <= set(re.findall(r"\w+", r["sentence"].lower())))
    body = {"query": {"text": {"q": word, "field": "sentence"}}}
    assert api.post(url, json=body).json()["total"] == expected
    body = terms({"entity": "record", "property": "status"}, "completed")
    assert api.post(url, json=body).json()["total"] == N_RECORDS - 1
    progress = api.get(f"/api/v1/datasets/{dataset_id}/progress").json()
    assert (progress["total"], progress["completed"], progress["pending"]) == (
        N_RECORDS,
        N_RECORDS - 1,
        1,
    )
    metrics = reviewed["clients"]["ann3"].get(f"/api/v1/me/datasets/{dataset_id}/metrics").json()
    assert metrics["responses"]["submitted"] == N_RECORDS - 1


def terms(scope: dict, *values: str) -> dict:
    """A search body that keeps the records whose ``scope`` holds one of ``values``."""
    return {"filters": {"and": [{"type": "terms", "scope": scope, "values": list(values)}]}}


def expected_agreement(question_index: int) -> tuple[float, float, float]:
    units = []
    for index in range(N_RECORDS):
        units.append([a[question_index] for a in PLAN[index] if a is not None])
    full = [u for u in units if len(u) == 3]
    unanimous = 100 * sum(len(set(u)) == 1 for u in units) / len(units)
    return krippendorff_alpha_simple(units), fleiss_kappa_simple(full), unanimous


def test_pull_agreement_and_unanimous_decisions(reviewed, tmp_path):
    out = tmp_path / "reviewed"
    manifest = pull(
        DATASET, out, reviewed["connection"], policy="unanimous", adjudicators=["judge"]
    )
    agreement = json.loads((out / "agreement.json").read_text())
    for q_index, question in enumerate(("grammatical", "agreement")):
        alpha, kappa, unanimous = expected_agreement(q_index)
        figures = agreement["questions"][question]
        assert figures["krippendorff_alpha"] == pytest.approx(alpha, abs=1e-9)
        assert figures["fleiss_kappa"] == pytest.approx(kappa, abs=1e-9)
        assert figures["fleiss_items"] == N_RECORDS - 1
        assert figures["percent_unanimous"] == pytest.approx(unanimous)
        assert set(figures["per_annotator"]) == {"ann1", "ann2", "ann3"}
    table = pq.read_table(out / "reviewed.parquet")
    source_schema = pq.read_schema(reviewed["run"] / "candidates.parquet")
    review_columns = ["original_text", "corrected_by", "adjudicated_by", "decision"]
    assert table.schema.names == [*source_schema.names, *review_columns]
    assert table.schema.field("person_span").type == source_schema.field("person_span").type
    decisions = dict(
        zip(table.column("id").to_pylist(), table.column("decision").to_pylist(), strict=True)
    )
    ids = [row["id"] for row in reviewed["rows"]]
    expected = {
        **{i: "accept" for i in range(6)},
        6: "pending",
        7: "reject",
        8: "pending",
        9: "accept",
        10: "pending",
        11: "pending",
    }
    assert {i: decisions[ids[i]] for i in range(N_RECORDS)} == expected
    frame = table.to_pandas().set_index("id")
    row9 = reviewed["rows"][9]
    assert frame.loc[ids[9], "sentence"] == fixed_sentence(row9)
    assert frame.loc[ids[9], "original_text"] == row9["sentence"]
    assert sorted(frame.loc[ids[9], "corrected_by"]) == ["ann1", "ann2", "ann3"]
    span = frame.loc[ids[9], "profession_span"]
    assert fixed_sentence(row9)[span["start"] : span["end"]] == row9["profession"]
    assert frame.loc[ids[0], "sentence"] == reviewed["rows"][0]["sentence"]
    assert manifest["adjudication"]["sent"] == 3
    report = (out / "report.md").read_text()
    assert (
        "| pending | 4 |" in report and "`grammatical`: each annotator against the others" in report
    )
    assert json.loads((out / "manifest.json").read_text())["files"]["reviewed.parquet"]


def test_majority_policy(reviewed, tmp_path):
    out = tmp_path / "majority"
    pull(DATASET, out, reviewed["connection"], policy="majority", adjudicate=False)
    frame = pd.read_parquet(out / "reviewed.parquet").set_index("id")
    ids = [row["id"] for row in reviewed["rows"]]
    assert [frame.loc[ids[i], "decision"] for i in (6, 7, 8, 10, 11)] == [
        "accept",
        "reject",
        "reject",
        "accept",
        "pending",
    ]
    assert frame.loc[ids[10], "sentence"] == fixed_sentence(reviewed["rows"][10])


def test_adjudication_is_merged_on_next_pull(reviewed, tmp_path):
    connection = reviewed["connection"]
    again = pull(
        DATASET, tmp_path / "first", connection, policy="unanimous", adjudicators=["judge"]
    )
    assert again["adjudication"]["sent"] == 0  # idempotent: already sent
    api = httpx.Client(base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key})
    datasets = api.get("/api/v1/me/datasets").json()["items"]
    judge = reviewed["clients"]["judge"]
    records = [
        r for d in datasets if is_adjudication_of(d["name"], DATASET) for r in queue(judge, d["id"])
    ]
    rows = {row["id"]: (i, row) for i, row in enumerate(reviewed["rows"])}
    assert sorted(rows[r["external_id"]][0] for r in records) == [6, 8, 10]
    verdict = {6: (Y, Y), 8: (N, N), 10: (Y, Y)}
    for record in records:
        index, row = rows[record["external_id"]]
        assert "ann1" in record["fields"]["answers"]
        # record 10: the one proposed correction is shown as A; the others had none
        assert (fixed_sentence(row) in record["fields"]["corrections"]) == (index == 10)
        letters = record["fields"]["answers"].count(">A</td>")
        assert letters == (2 if index == 10 else 0)  # ann1 and ann2 proposed correction A
        assert record["fields"]["answers"].count(">unchanged</td>") == (1 if index == 10 else 3)
        choice = "A" if index == 10 else "original"
        answer(
            judge,
            record["id"],
            {
                "grammatical": verdict[index][0],
                "agreement": verdict[index][1],
                "text_choice": choice,
            },
        )
    for who in ("ann1", "ann2", "ann3"):  # annotators do not see adjudication at all
        names = [
            d["name"] for d in reviewed["clients"][who].get("/api/v1/me/datasets").json()["items"]
        ]
        assert not [n for n in names if is_adjudication_of(n, DATASET)]
    out = tmp_path / "merged"
    manifest = pull(DATASET, out, connection, policy="unanimous", adjudicators=["judge"])
    assert manifest["adjudication"]["merged"] == 3 and manifest["adjudication"]["sent"] == 0
    frame = pd.read_parquet(out / "reviewed.parquet").set_index("id")
    ids = [row["id"] for row in reviewed["rows"]]
    assert [frame.loc[ids[i], "decision"] for i in (6, 8, 10, 11)] == [
        "accept",
        "reject",
        "accept",
        "pending",
    ]
    assert frame.loc[ids[10], "sentence"] == fixed_sentence(reviewed["rows"][10])
    assert frame.loc[ids[10], "adjudicated_by"] == "judge"
    assert list(frame.loc[ids[10], "corrected_by"]) == ["ann1", "ann2"]
    assert pd.isna(frame.loc[ids[9], "adjudicated_by"])


def test_agreement_command_prints_the_same_alpha(reviewed):
    from tests.annotation.conftest import ROOT
    from tests.cli_runner import run_cli

    result = run_cli("annotate", "agreement", "--dataset", DATASET, check=False, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(": ", 1) for line in result.stdout.strip().splitlines())
    assert set(lines) == {"grammatical", "agreement"}
    alpha = float(lines["grammatical"].split()[0].split("=")[1])
    assert alpha == pytest.approx(expected_agreement(0)[0], abs=5e-4)  # printed to 3 decimals
    assert len(lines["grammatical"].split()[0].split("=")[1].split(".")[1]) == 3
