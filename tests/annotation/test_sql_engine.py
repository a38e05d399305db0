"""The SQL search engine behind the embedded server, through Argilla's own search API:
suggestion, response and metadata filters, sorting, text search, metrics, similarity search."""

from __future__ import annotations

import warnings

import httpx
import pytest

from annotation.connection import client, find_server

# id: (text, topic, n, vector, suggested label, suggestion score, owner's answer)
RECORDS = {
    "r1": ("the nurse helped the patient", "care", 5, [1.0, 0.0, 0.0], "pos", 0.9, "pos"),
    "r2": ("the engineer fixed the bridge", "work", 2, [0.9, 0.1, 0.0], "neg", 0.4, "neg"),
    "r3": ("the nurse was late again", "care", 9, [0.0, 1.0, 0.0], "neg", 0.7, None),
    "r4": ("a teacher and a nurse talked", "school", 1, [0.0, 0.0, 1.0], None, None, "neg"),
    "r5": ("the pilot flew the plane", "work", 7, [0.7, 0.7, 0.0], "pos", 0.2, None),
}


@pytest.fixture(scope="module")
def engine_dataset(server):
    import argilla as rg

    connection = find_server(server.data_dir)
    rg_client = client(connection)
    settings = rg.Settings(
        fields=[rg.TextField(name="text")],
        questions=[rg.LabelQuestion(name="sentiment", labels=["pos", "neg"])],
        metadata=[rg.TermsMetadataProperty(name="topic"), rg.IntegerMetadataProperty(name="n")],
        vectors=[rg.VectorField(name="emb", dimensions=3)],
    )
    from annotation.push import ensure_workspace

    ensure_workspace(rg_client, connection.workspace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dataset = rg.Dataset(
            name="engine-check", workspace=connection.workspace, settings=settings, client=rg_client
        ).create()
    records = []
    for rid, (text, topic, n, vector, label, score, _) in RECORDS.items():
        suggestions = (
            [rg.Suggestion(question_name="sentiment", value=label, score=score)] if label else []
        )
        records.append(
            rg.Record(
                id=rid,
                fields={"text": text},
                metadata={"topic": topic, "n": n},
                vectors={"emb": vector},
                suggestions=suggestions,
            )
        )
    dataset.records.log(records)
    api = httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    )
    server_ids = {}
    for record in api.get(f"/api/v1/datasets/{dataset.id}/records").json()["items"]:
        server_ids[record["external_id"]] = record["id"]
        answer = RECORDS[record["external_id"]][6]
        if answer:
            api.post(
                f"/api/v1/records/{record['id']}/responses",
                json={"values": {"sentiment": {"value": answer}}, "status": "submitted"},
            ).raise_for_status()
    return api, str(dataset.id), server_ids


def search(engine_dataset, body: dict, **params) -> list[str]:
    api, dataset_id, ids = engine_dataset
    back = {v: k for k, v in ids.items()}
    result = api.post(f"/api/v1/datasets/{dataset_id}/records/search", json=body, params=params)
    assert result.status_code == 200, result.text
    return [back[item["record"]["id"]] for item in result.json()["items"]]


def terms(entity: dict, values: list[str]) -> dict:
    return {"filters": {"and": [{"type": "terms", "scope": entity, "values": values}]}}


def test_suggestion_filters(engine_dataset):
    got = search(
        engine_dataset,
        terms({"entity": "suggestion", "question": "sentiment", "property": "value"}, ["pos"]),
    )
    assert sorted(got) == ["r1", "r5"]
    body = {
        "filters": {
            "and": [
                {
                    "type": "range",
                    "scope": {"entity": "suggestion", "question": "sentiment", "property": "score"},
                    "ge": 0.5,
                }
            ]
        }
    }
    assert sorted(search(engine_dataset, body)) == ["r1", "r3"]


def test_response_filters_and_pending(engine_dataset):
    assert sorted(
        search(engine_dataset, terms({"entity": "response", "question": "sentiment"}, ["neg"]))
    ) == ["r2", "r4"]
    assert sorted(
        search(engine_dataset, terms({"entity": "response", "property": "status"}, ["pending"]))
    ) == ["r3", "r5"]
    both = terms({"entity": "response", "property": "status"}, ["pending", "submitted"])
    assert sorted(search(engine_dataset, both)) == sorted(RECORDS)


def test_metadata_filter_sort_and_text(engine_dataset):
    assert sorted(
        search(
            engine_dataset,
            terms({"entity": "metadata", "metadata_property": "topic"}, ["care", "school"]),
        )
    ) == ["r1", "r3", "r4"]
    body = {
        "filters": {
            "and": [
                {
                    "type": "range",
                    "scope": {"entity": "metadata", "metadata_property": "n"},
                    "ge": 2,
                    "le": 7,
                }
            ]
        }
    }
    assert sorted(search(engine_dataset, body)) == ["r1", "r2", "r5"]
    body = {"sort": [{"scope": {"entity": "metadata", "metadata_property": "n"}, "order": "desc"}]}
    assert search(engine_dataset, body) == ["r3", "r5", "r1", "r2", "r4"]
    assert sorted(search(engine_dataset, {"query": {"text": {"q": "nurse"}}})) == ["r1", "r3", "r4"]
    assert search(engine_dataset, {"query": {"text": {"q": "nurse late"}}}) == ["r3"]  # every term
    assert search(engine_dataset, {"query": {"text": {"q": "bridge", "field": "text"}}}) == ["r2"]


def test_metadata_metrics(engine_dataset):
    api, dataset_id, _ = engine_dataset
    props = {
        p["name"]: p["id"]
        for p in api.get(f"/api/v1/me/datasets/{dataset_id}/metadata-properties").json()["items"]
    }
    topic = api.get(f"/api/v1/metadata-properties/{props['topic']}/metrics").json()
    assert topic["total"] == 5
    assert {v["term"]: v["count"] for v in topic["values"]} == {"care": 2, "work": 2, "school": 1}
    n = api.get(f"/api/v1/metadata-properties/{props['n']}/metrics").json()
    assert (n["min"], n["max"]) == (1, 9)


def test_similarity_search(engine_dataset):
    _, _, ids = engine_dataset
    by_value = search(
        engine_dataset, {"query": {"vector": {"name": "emb", "value": [1.0, 0.0, 0.0]}}}
    )
    assert by_value[:3] == ["r1", "r2", "r5"]
    by_record = search(
        engine_dataset, {"query": {"vector": {"name": "emb", "record_id": ids["r1"]}}}
    )
    assert by_record[0] == "r2" and "r1" not in by_record
    least = search(
        engine_dataset,
        {"query": {"vector": {"name": "emb", "value": [1.0, 0.0, 0.0], "order": "least_similar"}}},
    )
    # cosines with [1, 0, 0]: r1 1, r2 0.994, r5 0.707, r3 0, r4 0 → reversed
    assert set(least[:2]) == {"r3", "r4"} and least[2:] == ["r5", "r2", "r1"]
