"""The SQL search engine behind the embedded server, through Argilla's own search API:
suggestion, response and metadata filters, sorting, text search, metrics, similarity search."""

from __future__ import annotations

import warnings

import httpx
import pytest

from biasforge.annotation.client.connection import client, find_server
from tests.annotation.helpers import create_dataset

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
    settings = lambda: rg.Settings(  # noqa: E731  (built once the client exists)
        fields=[rg.TextField(name="text")],
        questions=[rg.LabelQuestion(name="sentiment", labels=["pos", "neg"])],
        metadata=[rg.TermsMetadataProperty(name="topic"), rg.IntegerMetadataProperty(name="n")],
        vectors=[rg.VectorField(name="emb", dimensions=3)],
    )
    dataset = create_dataset(connection, "engine-check", settings)
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


def text_dataset(server, name: str, metadata: str, records: list) -> tuple[httpx.Client, object]:
    """A dataset of one text field, one label question and one terms property, holding
    ``records`` (built by the caller with ``rg.Record``); returns the owner's API client too."""
    import argilla as rg

    connection = find_server(server.data_dir)
    settings = lambda: rg.Settings(  # noqa: E731  (built once the client exists)
        fields=[rg.TextField(name="text")],
        questions=[rg.LabelQuestion(name="ok", labels=["yes", "no"])],
        metadata=[rg.TermsMetadataProperty(name=metadata)],
    )
    dataset = create_dataset(connection, name, settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dataset.records.log(records)
    api = httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    )
    return api, dataset


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


# -- the index: multilingual text, combined filters, sort keys, updates, queues ----------------
# id: (text, topic, lang)
MULTI = {
    "m1": ("母亲喜欢踢足球", "home", "zh"),
    "m2": ("父亲在医院工作", "work", "zh"),
    "m3": ("足球场很大", "sport", "zh"),
    "m4": ("El Médico llegó tarde", "work", "es"),
    "m5": ("le médecin est là, la mère aussi", "work", "fr"),
    "m6": ("el medico sin tilde", "home", "es"),
    "m7": ("Medikua etxera joan da", "work", "eu"),
    "m8": ("the engineer likes football", "sport", "en"),
}
LOGGED_IN_TURN = ("m1", "m4", "m8")  # logged one call each, in this order, after the others


@pytest.fixture(scope="module")
def multi(server):
    import argilla as rg

    connection = find_server(server.data_dir)
    settings = lambda: rg.Settings(  # noqa: E731  (built once the client exists)
        fields=[rg.TextField(name="text"), rg.TextField(name="note", required=False)],
        questions=[rg.LabelQuestion(name="ok", labels=["yes", "no"])],
        metadata=[rg.TermsMetadataProperty(name="topic"), rg.TermsMetadataProperty(name="lang")],
        distribution=rg.TaskDistribution(min_submitted=1),
    )
    dataset = create_dataset(connection, "engine-multi", settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        def record(rid):
            text, topic, lang = MULTI[rid]
            return rg.Record(
                id=rid,
                fields={"text": text, "note": f"note {rid}"},
                metadata={"topic": topic, "lang": lang},
            )

        dataset.records.log([record(rid) for rid in MULTI if rid not in LOGGED_IN_TURN])
        for rid in LOGGED_IN_TURN:
            dataset.records.log([record(rid)])
    api = httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    )
    ids = {
        r["external_id"]: r["id"]
        for r in api.get(f"/api/v1/datasets/{dataset.id}/records", params={"limit": 100}).json()[
            "items"
        ]
    }
    for rid in ("m2", "m5"):  # the owner answers two
        api.post(
            f"/api/v1/records/{ids[rid]}/responses",
            json={"values": {"ok": {"value": "yes"}}, "status": "submitted"},
        ).raise_for_status()
    return api, str(dataset.id), ids


def text(q: str, field: str | None = None) -> dict:
    return {"query": {"text": {"q": q, **({"field": field} if field else {})}}}


def test_chinese_substrings_of_any_length(multi):
    assert sorted(search(multi, text("足球"))) == ["m1", "m3"]  # 2 chars: no trigram, still found
    assert search(multi, text("踢足球")) == ["m1"]  # 3 chars: through the trigram index
    assert sorted(search(multi, text("球"))) == ["m1", "m3"]
    assert search(multi, text("母亲 足球")) == ["m1"]  # every term
    assert search(multi, text("医院工")) == ["m2"]
    assert search(multi, text("母 球")) == ["m1"]  # one-character terms, both required
    assert sorted(search(multi, text("亲", field="text"))) == ["m1", "m2"]
    assert search(multi, text("亲", field="note")) == []  # the field restriction still holds
    assert sorted(search(multi, text("MÉ*"))) == ["m4", "m5"]  # médico, médecin (not mère)
    assert search(multi, text("MÉ")) == []  # a Latin term is a whole word


def test_accents_are_kept_case_is_not(multi):
    """As Argilla's Elasticsearch mapping (standard analyzer: lower-cased, no ASCII folding):
    an accented query finds the accented word in any case, and only it."""
    assert search(multi, text("médico")) == ["m4"]
    assert search(multi, text("MÉDICO")) == ["m4"]
    assert search(multi, text("medico")) == ["m6"]
    assert search(multi, text("là")) == ["m5"]
    assert search(multi, text("medikua")) == ["m7"]  # Basque, capitalised in the record
    assert search(multi, text("note m7", field="note")) == ["m7"]
    assert search(multi, text("note", field="text")) == []


def test_text_metadata_and_status_filters_combine(multi):
    doctors = "médico | medico | medikua | médecin"

    def body(q, topics, statuses):
        return {
            **text(q, field="text"),
            "filters": {
                "and": [
                    {
                        "type": "terms",
                        "scope": {"entity": "metadata", "metadata_property": "topic"},
                        "values": topics,
                    },
                    {
                        "type": "terms",
                        "scope": {"entity": "response", "property": "status"},
                        "values": statuses,
                    },
                ]
            },
        }

    assert sorted(search(multi, body(doctors, ["work"], ["pending"]))) == ["m4", "m7"]
    assert search(multi, body(doctors, ["work"], ["submitted"])) == ["m5"]
    assert sorted(search(multi, body(doctors, ["work", "home"], ["submitted", "pending"]))) == [
        "m4",
        "m5",
        "m6",
        "m7",
    ]
    assert search(multi, body("足球", ["sport"], ["pending"])) == ["m3"]
    # the annotator queue (/me): the same filters, per-user order
    api, dataset_id, ids = multi
    back = {v: k for k, v in ids.items()}
    result = api.post(
        f"/api/v1/me/datasets/{dataset_id}/records/search",
        json=body(doctors, ["work"], ["pending"]),
    )
    assert result.status_code == 200, result.text
    assert sorted(back[i["record"]["id"]] for i in result.json()["items"]) == ["m4", "m7"]


def test_sort_by_inserted_at_and_text_relevance(multi):
    def by(order):
        return {
            "sort": [{"scope": {"entity": "record", "property": "inserted_at"}, "order": order}]
        }

    ascending = search(multi, by("asc"))
    assert ascending[-3:] == list(LOGGED_IN_TURN)
    assert search(multi, by("desc"))[:3] == list(reversed(LOGGED_IN_TURN))
    assert search(multi, {}) == ascending  # no sort: insertion order
    # relevance (bm25): m5 holds two of the words asked for (médecin, mère), m4 one (médico)
    ranked = search(multi, text("médecin | mère | médico", field="text"))
    assert ranked == ["m5", "m4"]


def test_queue_pages_are_stable_disjoint_and_complete(multi):
    api, dataset_id, ids = multi
    back = {v: k for k, v in ids.items()}
    body = terms({"entity": "response", "property": "status"}, ["pending"])

    def page(offset):
        result = api.post(
            f"/api/v1/me/datasets/{dataset_id}/records/search",
            json=body,
            params={"offset": offset, "limit": 3},
        )
        assert result.status_code == 200, result.text
        assert result.json()["total"] == 6
        return [back[i["record"]["id"]] for i in result.json()["items"]]

    pages = [page(0), page(3), page(6)]
    assert pages == [page(0), page(3), page(6)]  # stable
    flat = [rid for p in pages for rid in p]
    assert sorted(flat) == sorted(set(MULTI) - {"m2", "m5"})
    assert flat != sorted(flat, key=lambda rid: list(MULTI).index(rid))  # not insertion order


def test_the_index_follows_updates_and_deletions(server):
    import argilla as rg

    api, dataset = text_dataset(server, "engine-updates", "topic", [
        rg.Record(id="u1", fields={"text": "alpha beta"}, metadata={"topic": "a"}),
        rg.Record(id="u2", fields={"text": "gamma delta"}, metadata={"topic": "a"}),
    ])  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # upsert: new text and metadata for u1
        dataset.records.log(
            [rg.Record(id="u1", fields={"text": "epsilon zeta"}, metadata={"topic": "b"})]
        )
    engine = (api, str(dataset.id), {
        r["external_id"]: r["id"]
        for r in api.get(f"/api/v1/datasets/{dataset.id}/records").json()["items"]
    })  # fmt: skip
    topic = {"entity": "metadata", "metadata_property": "topic"}
    assert search(engine, text("alpha")) == []
    assert search(engine, text("epsilon")) == ["u1"]
    assert search(engine, text("al*")) == []  # the word index follows upserts too
    assert search(engine, text("ze*")) == ["u1"]
    assert search(engine, text("zeta")) == ["u1"]
    assert search(engine, terms(topic, ["b"])) == ["u1"]
    # PATCH one record's metadata
    api.patch(
        f"/api/v1/records/{engine[2]['u2']}", json={"metadata": {"topic": "b"}}
    ).raise_for_status()
    assert sorted(search(engine, terms(topic, ["b"]))) == ["u1", "u2"]
    # delete one record
    api.delete(
        f"/api/v1/datasets/{dataset.id}/records", params={"ids": engine[2]["u1"]}
    ).raise_for_status()
    assert search(engine, text("epsilon")) == []
    assert search(engine, text("ze*")) == []
    assert search(engine, terms(topic, ["b"])) == ["u2"]


def test_totals_count_each_record_once_whatever_the_plan(server):
    """A list-valued metadata property matches a record through several values: the total
    (counted from the metadata index when the filter stands alone, from the records when it is
    combined) still counts the record once, and pages hold what the total says."""
    import argilla as rg

    tags = {"t1": ["a", "b"], "t2": ["a"], "t3": ["c"], "t4": ["b", "c"], "t5": ["a", "b", "c"]}
    api, dataset = text_dataset(server, "engine-totals", "tags", [
        rg.Record(id=rid, fields={"text": f"record {rid} 母亲"}, metadata={"tags": value})
        for rid, value in tags.items()
    ])  # fmt: skip
    scope = {"entity": "metadata", "metadata_property": "tags"}

    def total_and_ids(body: dict, **params) -> tuple[int, list[str]]:
        result = api.post(f"/api/v1/datasets/{dataset.id}/records/search", json=body,
                          params=params)  # fmt: skip
        assert result.status_code == 200, result.text
        data = result.json()
        return data["total"], sorted(item["record"]["external_id"] for item in data["items"])

    alone = terms(scope, ["a", "b"])
    assert total_and_ids(alone) == (4, ["t1", "t2", "t4", "t5"])
    assert total_and_ids(alone, limit=2)[0] == 4
    assert total_and_ids({**alone, **text("母亲")}) == (4, ["t1", "t2", "t4", "t5"])
    assert total_and_ids({**terms(scope, ["c"]), **text("t3")}) == (1, ["t3"])


# -- the search box's syntax, as Elasticsearch's simple_query_string answers it ----------------
# Expected results are what Argilla on Elasticsearch returns (standard analyzer: UAX #29 words,
# lower-cased; default operator AND; fuzzy edits without transpositions), worked out by hand.
SYNTAX = {
    "s1": "The red apple fell",
    "s2": "A green apple",
    "s3": "a category of cats",
    "s4": "the cat sat on the mat",
    "s5": "l'ingénieur est là",
    "s6": "母亲喜欢踢足球",
}
EXPECTED = {
    "cat": ["s4"],  # a whole word: not "category", not "cats"
    "cat*": ["s3", "s4"],  # a prefix: cat, category, cats
    "APPLE": ["s1", "s2"],
    "apple -red": ["s2"],
    "red | green": ["s1", "s2"],
    "apple red | cat": ["s1", "s4"],  # (apple and red) or cat
    "apple (red | cat)": ["s1"],
    '"green apple"': ["s2"],
    '"apple green"': [],
    '"red fell"~1': ["s1"],
    "aple~1": ["s1", "s2"],  # one edit
    "aple": [],
    "appel~1": [],  # a transposition is two edits here (fuzzy_transpositions: false)
    "appel~": ["s1", "s2"],  # "~" alone: two edits
    "-apple": ["s3", "s4", "s5", "s6"],
    "ingénieur": [],  # "l'ingénieur" is one word for the standard tokenizer
    "l'ingénieur": ["s5"],
    "\\-red": ["s1"],  # an escaped "-" is no exclusion
    "足球": ["s6"],  # CJK: a substring
    "球足": [],
    "母亲 -足球": [],
    "母亲 | cat": ["s4", "s6"],
    "*": ["s1", "s2", "s3", "s4", "s5", "s6"],
    "!!!": [],  # no word at all: nothing matches
}


@pytest.fixture(scope="module")
def syntax(server):
    import argilla as rg

    client(find_server(server.data_dir))  # the SDK's default client, which rg.Record needs
    api, dataset = text_dataset(server, "engine-syntax", "topic", [
        rg.Record(id=rid, fields={"text": sentence}, metadata={"topic": "t"})
        for rid, sentence in SYNTAX.items()
    ])  # fmt: skip
    ids = {
        r["external_id"]: r["id"]
        for r in api.get(f"/api/v1/datasets/{dataset.id}/records").json()["items"]
    }
    return api, str(dataset.id), ids


@pytest.mark.parametrize("query", list(EXPECTED))
def test_search_box_syntax_as_argilla_on_elasticsearch(syntax, query):
    assert sorted(search(syntax, text(query))) == EXPECTED[query]


def test_date_ranges_on_inserted_at_and_updated_at(multi):
    """As Argilla's Elasticsearch ``date_nanos`` fields: ISO 8601 bounds (or epoch
    milliseconds), inclusive, to the microsecond stored."""
    from datetime import UTC, datetime, timedelta

    api, dataset_id, _ = multi
    records = api.get(f"/api/v1/datasets/{dataset_id}/records", params={"limit": 100}).json()
    when = {r["external_id"]: r["inserted_at"] for r in records["items"]}
    middle = when["m4"]  # logged alone, after the others and before m8
    later = sorted(rid for rid in MULTI if when[rid] >= middle)
    assert later == ["m4", "m8"]

    def dated(prop: str, **bounds) -> list[str]:
        scope = {"entity": "record", "property": prop}
        body = {"filters": {"and": [{"type": "range", "scope": scope, **bounds}]}}
        return sorted(search(multi, body))

    assert dated("inserted_at", ge=middle) == later
    assert dated("inserted_at", le=middle) == sorted(set(MULTI) - {"m8"})
    assert dated("inserted_at", ge=middle, le=middle) == ["m4"]
    millis = datetime.fromisoformat(middle).replace(tzinfo=UTC).timestamp() * 1000  # naive UTC
    assert dated("inserted_at", ge=int(millis)) == later  # the millisecond it began
    after = (datetime.fromisoformat(middle) + timedelta(microseconds=1)).isoformat()
    assert dated("inserted_at", ge=after) == ["m8"]
    assert dated("updated_at", le="2000-01-01T00:00:00") == []
    assert dated("updated_at", ge="2000-01-01T00:00:00Z") == sorted(MULTI)


def test_a_filter_the_engine_cannot_answer_is_refused_loudly(multi):
    api, dataset_id, _ = multi
    for scope, bounds in (
        ({"entity": "record", "property": "status"}, {"ge": 1}),
        ({"entity": "record", "property": "inserted_at"}, {"ge": "yesterday"}),
    ):
        body = {"filters": {"and": [{"type": "range", "scope": scope, **bounds}]}}
        result = api.post(f"/api/v1/datasets/{dataset_id}/records/search", json=body)
        assert result.status_code == 422, result.text
        assert "biasforge search engine refuses" in result.text
