"""What an annotator can read through Argilla's API gives away no answer (issue 33; the rule
"annotators judge blind").

A StereoSet dataset keeps a keyed check of the shown order of its options in hidden record
metadata (``order_check``, ``visible_for_annotators=False``; before keyed orders it was the order
itself, ``option_order``, and whoever read it knew which option is the stereotype): hidden
metadata must stay hidden. One annotator answers every record; another one then calls every route of
argilla-server 2.8 an annotator may call that returns records, responses, suggestions, metadata
or dataset-level figures, on the real embedded server, and must get neither the hidden key (nor
its values) nor the first annotator's answers. Owner and admin still get everything.
"""

from __future__ import annotations

import json

import httpx
import pytest

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review.push import push_run
from biasforge.families.stereoset import CHECK_KEY, LABELS, option_order
from tests.annotation.helpers import answer, login, queue
from tests.annotation.keyed import pushed_key
from tests.annotation.test_blind_labels import flagged_row
from tests.annotation.test_families import make_run

DATASET = "ss-api-blind"
HIDDEN = CHECK_KEY
ROWS = 6


@pytest.fixture(scope="module")
def setup(server, tmp_path_factory):
    connection = find_server(server.data_dir)
    rows = [{**flagged_row(f"api-blind-{n}"), "source_id": f"api-blind-{n}"} for n in range(ROWS)]
    run = make_run(tmp_path_factory.mktemp("api-blind") / "run", rows, "stereoset")
    pushed = push_run(run, DATASET, connection, min_submitted=2, progress=False)
    made = add_users(connection, [("apib-ann1", None), ("apib-ann2", None), ("apib-adm", "admin")])
    apis = {u.username: login(connection.url, u.username, u.password) for u in made}
    first = apis["apib-ann1"]
    key = pushed_key(connection, DATASET)
    for record in queue(first, pushed.dataset_id):
        row = next(r for r in rows if r["id"] == record["external_id"])
        order = option_order(row, key=key)
        labels = {f"label_{'ABC'[j]}": LABELS[i] for j, i in enumerate(order)}
        answer(first, record["id"], {"validity": "valid", **labels})
    owner = httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    )
    records = owner.get(
        f"/api/v1/datasets/{pushed.dataset_id}/records", params={"include": "responses"}
    ).json()["items"]
    assert len(records) == ROWS and all(HIDDEN in r["metadata"] for r in records)
    first_id = first.get("/api/v1/me").json()["id"]
    yield {
        "dataset_id": pushed.dataset_id,
        "owner": owner,
        "apis": apis,
        "records": records,
        "first_id": first_id,
        "answers": [resp["id"] for r in records for resp in r["responses"]],
    }
    for api in apis.values():
        api.close()
    owner.close()


def assert_blind(payload, setup) -> None:
    """Nothing in ``payload`` names the hidden key, or is the first annotator's answer."""
    text = json.dumps(payload)
    assert HIDDEN not in text, text[:2000]
    assert setup["first_id"] not in text, text[:2000]
    assert not any(response_id in text for response_id in setup["answers"]), text[:2000]


def search(api, dataset_id: str, body: dict, include: str = "responses,suggestions"):
    return api.post(
        f"/api/v1/me/datasets/{dataset_id}/records/search",
        params={"include": include.split(","), "limit": 50},
        json=body,
    )


def metadata_scope(name: str) -> dict:
    return {"entity": "metadata", "metadata_property": name}


def test_the_record_route_gives_an_annotator_neither_hidden_metadata_nor_others_answers(setup):
    api = setup["apis"]["apib-ann2"]
    for record in setup["records"]:
        got = api.get(f"/api/v1/records/{record['id']}")
        assert got.status_code == 200, got.text
        seen = got.json()
        assert_blind(seen, setup)
        visible = {k: v for k, v in record["metadata"].items() if k != HIDDEN}
        assert seen["metadata"] == visible  # the visible metadata all there
        assert seen["responses"] == []
        assert seen["fields"] == record["fields"]
    # their own answer they do get back, and only theirs
    record = setup["records"][0]
    answer(api, record["id"], {"validity": "reject", **dict.fromkeys(("label_A", "label_B",
           "label_C"), "unrelated")})  # fmt: skip
    (own,) = api.get(f"/api/v1/records/{record['id']}").json()["responses"]
    assert own["user_id"] == api.get("/api/v1/me").json()["id"]
    assert own["values"]["validity"]["value"] == "reject"
    api.delete(f"/api/v1/responses/{own['id']}").raise_for_status()


def test_owner_and_admin_still_read_every_key_and_answer(setup):
    admin = setup["apis"]["apib-adm"]
    for reader in (setup["owner"], admin):
        for record in setup["records"]:
            seen = reader.get(f"/api/v1/records/{record['id']}").json()
            assert seen["metadata"] == record["metadata"] and HIDDEN in seen["metadata"]
            assert [r["user_id"] for r in seen["responses"]] == [setup["first_id"]]
    found = search(admin, setup["dataset_id"], {"filters": {"and": [
        {"type": "terms", "scope": metadata_scope(HIDDEN),
         "values": [setup["records"][0]["metadata"][HIDDEN]]}]}})  # fmt: skip
    assert found.status_code == 200 and found.json()["total"] >= 1


def test_the_annotators_search_route_shows_no_hidden_key_nor_others_answers(setup):
    api = setup["apis"]["apib-ann2"]
    found = search(api, setup["dataset_id"], {})
    assert found.status_code == 200, found.text
    assert found.json()["total"] == ROWS
    assert_blind(found.json(), setup)
    for item in found.json()["items"]:
        assert item["record"]["responses"] == []
    submitted = {"filters": {"and": [{"type": "terms", "values": ["submitted"],
                 "scope": {"entity": "response", "property": "status"}}]}}  # fmt: skip
    mine = search(api, setup["dataset_id"], submitted).json()
    assert mine["total"] == 0  # their own submitted records, not the team's


def test_hidden_metadata_cannot_be_probed_by_filter_or_sort(setup):
    """A filter or sort on a hidden property answers as on a property that does not exist."""
    api, dataset_id = setup["apis"]["apib-ann2"], setup["dataset_id"]
    value = setup["records"][0]["metadata"][HIDDEN]

    def refused(name: str, how: str) -> httpx.Response:
        if how == "terms":
            body = {"filters": {"and": [
                {"type": "terms", "scope": metadata_scope(name), "values": [value]}]}}  # fmt: skip
        elif how == "range":
            body = {"filters": {"and": [
                {"type": "range", "scope": metadata_scope(name), "ge": "0", "le": "3"}]}}  # fmt: skip
        else:
            body = {"sort": [{"scope": metadata_scope(name), "order": "asc"}]}
        return search(api, dataset_id, body, include="responses")

    for how in ("terms", "range", "sort"):
        hidden, missing = refused(HIDDEN, how), refused("no_such_key", how)
        assert hidden.status_code == missing.status_code == 422, (how, hidden.text)
        assert hidden.text.replace(HIDDEN, "NAME") == missing.text.replace("no_such_key", "NAME")
    visible = search(api, dataset_id, {"sort": [{"scope": metadata_scope("language"),
                     "order": "asc"}]})  # fmt: skip
    assert visible.status_code == 200 and visible.json()["total"] == ROWS  # visible ones work


def test_metadata_properties_and_their_figures_hide_the_hidden_one(setup):
    api, owner, dataset_id = setup["apis"]["apib-ann2"], setup["owner"], setup["dataset_id"]
    listed = api.get(f"/api/v1/me/datasets/{dataset_id}/metadata-properties")
    assert listed.status_code == 200
    assert_blind(listed.json(), setup)
    everything = owner.get(f"/api/v1/me/datasets/{dataset_id}/metadata-properties").json()["items"]
    (hidden,) = [p for p in everything if p["name"] == HIDDEN]
    assert api.get(f"/api/v1/metadata-properties/{hidden['id']}/metrics").status_code == 403
    assert owner.get(f"/api/v1/metadata-properties/{hidden['id']}/metrics").status_code == 200
    for prop in listed.json()["items"]:
        metrics = api.get(f"/api/v1/metadata-properties/{prop['id']}/metrics")
        assert metrics.status_code == 200
        assert_blind(metrics.json(), setup)


def test_every_other_route_an_annotator_may_call_gives_nothing_away(setup):
    api, dataset_id = setup["apis"]["apib-ann2"], setup["dataset_id"]
    record_id = setup["records"][0]["id"]
    readable = [
        f"/api/v1/records/{record_id}/suggestions",
        f"/api/v1/datasets/{dataset_id}",
        f"/api/v1/datasets/{dataset_id}/fields",
        f"/api/v1/datasets/{dataset_id}/questions",
        f"/api/v1/datasets/{dataset_id}/vectors-settings",
        f"/api/v1/datasets/{dataset_id}/progress",
        f"/api/v1/datasets/{dataset_id}/users/progress",
        f"/api/v1/datasets/{dataset_id}/records/search/suggestions/options",
        f"/api/v1/me/datasets/{dataset_id}/metrics",
        "/api/v1/me/datasets",
    ]
    for path in readable:
        got = api.get(path)
        assert got.status_code == 200, (path, got.text)
        assert_blind(got.json(), setup)
    # suggestions: only the correction box's text, which annotators see in the form anyway
    questions = api.get(f"/api/v1/datasets/{dataset_id}/questions").json()["items"]
    names = {q["id"]: q["name"] for q in questions}
    suggested = api.get(f"/api/v1/records/{record_id}/suggestions").json()["items"]
    assert [names[s["question_id"]] for s in suggested] == ["correction"]
    # the owner's and admin's routes refuse an annotator
    closed = [
        ("GET", f"/api/v1/datasets/{dataset_id}/records", None),
        ("POST", f"/api/v1/datasets/{dataset_id}/records/search", {}),
        ("PUT", f"/api/v1/responses/{setup['answers'][0]}",
         {"values": {"validity": {"value": "reject"}}, "status": "submitted"}),
        ("DELETE", f"/api/v1/responses/{setup['answers'][0]}", None),
        ("GET", "/api/v1/webhooks", None),
    ]  # fmt: skip
    for method, path, body in closed:
        got = api.request(method, path, json=body)
        assert got.status_code == 403, (method, path, got.status_code)
    own = api.post("/api/v1/me/responses/bulk", json={"items": [
        {"record_id": record_id, "status": "draft", "values": {"validity": {"value": "valid"}}}]})  # fmt: skip
    assert own.status_code == 200, own.text
    assert_blind(own.json(), setup)
    (item,) = own.json()["items"]
    api.delete(f"/api/v1/responses/{item['item']['id']}").raise_for_status()
