"""The SQL engine's index on servers of their own: a data folder made before the index existed
is indexed when the server starts (migration), and paging goes past Elasticsearch's 10,000."""

from __future__ import annotations

import sqlite3

import httpx
import pytest

from biasforge.annotation.admin.serve import free_port
from biasforge.annotation.client.connection import find_server
from tests.annotation.helpers import create_dataset
from tests.server import ServerProcess

N_PAGING = 10_050


def owner_api(data_dir) -> tuple[httpx.Client, object]:
    connection = find_server(data_dir)
    api = httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=300
    )
    return api, connection


def new_dataset(connection, name: str):
    import argilla as rg

    def settings():
        return rg.Settings(
            fields=[rg.TextField(name="text")],
            questions=[rg.LabelQuestion(name="ok", labels=["yes", "no"])],
            metadata=[rg.TermsMetadataProperty(name="topic"), rg.IntegerMetadataProperty(name="n")],
        )

    return create_dataset(connection, name, settings)


@pytest.fixture(scope="module")
def own_server(biasforge_home, tmp_path_factory):
    proc = ServerProcess(tmp_path_factory.mktemp("index-server") / "data", free_port())
    proc.data_dir.mkdir(parents=True)
    proc.start()
    yield proc
    if proc.proc is not None and proc.proc.poll() is None:
        proc.stop()


def test_paging_beyond_ten_thousand(own_server):
    api, connection = owner_api(own_server.data_dir)
    dataset = new_dataset(connection, "paging")
    for start in range(0, N_PAGING, 500):
        items = [
            {
                "external_id": f"p{i:05d}",
                "fields": {"text": f"item number {i:05d}"},
                "metadata": {"topic": "even" if i % 2 == 0 else "odd", "n": i},
            }
            for i in range(start, min(start + 500, N_PAGING))
        ]
        api.post(
            f"/api/v1/datasets/{dataset.id}/records/bulk", json={"items": items}
        ).raise_for_status()

    def page(body, offset, limit=50):
        result = api.post(
            f"/api/v1/datasets/{dataset.id}/records/search",
            json=body,
            params={"offset": offset, "limit": limit},
        )
        assert result.status_code == 200, result.text
        data = result.json()
        return data["total"], [item["record"]["external_id"] for item in data["items"]]

    total, ids = page({}, 10_000)
    assert total == N_PAGING
    assert ids == [f"p{i:05d}" for i in range(10_000, N_PAGING)]
    even = {
        "filters": {
            "and": [
                {
                    "type": "terms",
                    "scope": {"entity": "metadata", "metadata_property": "topic"},
                    "values": ["even"],
                }
            ]
        },
        "sort": [{"scope": {"entity": "metadata", "metadata_property": "n"}, "order": "desc"}],
    }
    total, ids = page(even, 5_000, limit=10)
    assert total == (N_PAGING + 1) // 2
    evens = sorted((i for i in range(N_PAGING) if i % 2 == 0), reverse=True)
    assert ids == [f"p{i:05d}" for i in evens[5_000:5_010]]
    total, ids = page({"query": {"text": {"q": "number 1004*"}}}, 0)
    assert total == 10 and sorted(ids) == [f"p1004{d}" for d in range(10)]
    props = {
        p["name"]: p["id"]
        for p in api.get(f"/api/v1/me/datasets/{dataset.id}/metadata-properties").json()["items"]
    }
    n = api.get(f"/api/v1/metadata-properties/{props['n']}/metrics").json()
    assert (n["min"], n["max"]) == (0, N_PAGING - 1)


def test_a_data_folder_without_index_is_indexed_at_start(own_server):
    api, connection = owner_api(own_server.data_dir)
    dataset = new_dataset(connection, "before-index")
    items = [
        {"external_id": f"b{i}", "fields": {"text": text}, "metadata": {"topic": topic, "n": i}}
        for i, (text, topic) in enumerate(
            [("la mère et l'enfant", "fr"), ("母亲喜欢足球", "zh"), ("aita etxean", "eu")]
        )
    ]
    api.post(
        f"/api/v1/datasets/{dataset.id}/records/bulk", json={"items": items}
    ).raise_for_status()
    own_server.stop()
    # what a data folder from before the index looks like: Argilla's tables only
    db = sqlite3.connect(own_server.data_dir / "argilla.db")
    for (name,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'bf_%'"
    ).fetchall():
        db.execute(f'DROP INDEX IF EXISTS "{name}"')
    from biasforge.annotation.server import sql_index

    for table in (*sql_index.INDEX_TABLES, "bf_index_info"):
        db.execute(f"DROP TABLE IF EXISTS {table}")
    db.commit()
    assert not db.execute("SELECT name FROM sqlite_master WHERE name LIKE 'bf_%'").fetchall()
    db.close()

    own_server.start()
    api, connection = owner_api(own_server.data_dir)

    def found(q):
        result = api.post(
            f"/api/v1/datasets/{dataset.id}/records/search",
            json={"query": {"text": {"q": q}}},
        )
        assert result.status_code == 200, result.text
        return [item["record"]["external_id"] for item in result.json()["items"]]

    assert found("mère") == ["b0"]
    assert found("足球") == ["b1"]
    assert found("etxe*") == ["b2"]
    assert found("亲") == ["b1"]  # the gram index is rebuilt too
    db = sqlite3.connect(own_server.data_dir / "argilla.db")
    assert db.execute("SELECT count(*) FROM bf_record").fetchone()[0] >= 3
    db.close()


def test_planner_statistics_follow_the_index_as_it_grows(tmp_path):
    """Without statistics SQLite guesses ten rows per dataset and counts a metadata filter by
    probing every record; the index refreshes them (sampled ANALYZE) each time it doubles."""
    from biasforge.annotation.server import sql_index

    conn = sql_index.connect(str(tmp_path / "index.sqlite"))
    conn.execute("CREATE TABLE records (id TEXT, dataset_id TEXT, status TEXT)")
    sql_index.ensure_schema(conn)

    def add(start: int, stop: int) -> None:
        sql_index.write_records(conn, "ds", [
            (f"{i:032x}", {"text": f"母亲 {i}"}, {"topic": f"t{i % 20}"},
             f"2026-01-01 00:00:{i // 1000:02d}.{i % 1000:06d}", "pending")
            for i in range(start, stop)
        ])  # fmt: skip

    def analyzed() -> int | None:
        row = conn.execute("SELECT value FROM bf_index_info WHERE key = 'analyzed_at'").fetchone()
        return int(row[0]) if row else None

    add(0, 900)
    assert analyzed() is None  # too small to matter
    add(900, 1500)
    assert analyzed() == 1500
    assert conn.execute("SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'bf_meta'").fetchone()[0]
    add(1500, 2500)
    assert analyzed() == 1500  # not doubled yet
    add(2500, 3100)
    assert analyzed() == 3100
    grams = conn.execute(
        "SELECT count(*) FROM bf_gram WHERE bf_gram MATCH ?", sql_index.gram_tokens("母亲")
    ).fetchone()[0]
    assert grams == 3100


def test_the_gram_index_forgets_replaced_and_deleted_text(tmp_path):
    """``bf_gram`` keeps no text of its own: an upsert or a deletion must remove exactly the
    grams the old text gave (a stale entry would not show in results, which instr re-checks,
    but would make every later lookup read more)."""
    from biasforge.annotation.server import sql_index

    conn = sql_index.connect(str(tmp_path / "index.sqlite"))
    conn.execute("CREATE TABLE records (id TEXT, dataset_id TEXT, status TEXT)")
    sql_index.ensure_schema(conn)
    when = "2026-01-01 00:00:00.000000"

    def write(rid: str, fields: dict) -> None:
        sql_index.write_records(conn, "ds", [(rid, fields, {}, when, "pending")])

    def rows_with(term: str) -> int:
        (token,) = sql_index.gram_tokens(term)
        return conn.execute(
            "SELECT count(*) FROM bf_gram WHERE bf_gram MATCH ?", (token,)
        ).fetchone()[0]

    write("a" * 32, {"text": "母亲 喜欢", "note": "她"})  # joined row + one row per field
    write("b" * 32, {"text": "母亲"})
    assert (rows_with("母亲"), rows_with("她"), rows_with("亲")) == (3, 2, 3)
    write("a" * 32, {"text": "父亲", "note": "他"})  # upsert: new text
    assert (rows_with("母亲"), rows_with("她"), rows_with("父亲"), rows_with("亲")) == (1, 0, 2, 3)
    sql_index.delete_records(conn, ["b" * 32])
    assert (rows_with("母亲"), rows_with("亲")) == (0, 2)
    sql_index.delete_records(conn, ["a" * 32])
    assert (
        conn.execute("SELECT count(*) FROM bf_gram WHERE bf_gram MATCH 'u' || '*'").fetchone()[0]
        == 0
    )


def test_a_status_copy_that_would_not_change_takes_no_write_lock(tmp_path):
    """After every answer Argilla asks the index to copy the record's status; only the answer
    that completes a record changes it. An unchanged copy must not write (it would wait for
    the other writers of the database), and a changed one must follow ``records``."""
    import sqlite3

    from biasforge.annotation.server import sql_index

    path = str(tmp_path / "index.sqlite")
    conn = sql_index.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE records (id TEXT, dataset_id TEXT, status TEXT)")
    sql_index.ensure_schema(conn)
    rid = "c" * 32
    conn.execute("INSERT INTO records VALUES (?, 'ds', 'pending')", (rid,))
    sql_index.write_records(
        conn, "ds", [(rid, {"text": "x"}, {}, "2026-01-01 00:00:00.0", "pending")]
    )
    hook = sqlite3.connect(path, timeout=0, isolation_level=None)  # a locked write fails at once

    def indexed() -> str:
        return conn.execute("SELECT status FROM bf_record WHERE rid = ?", (rid,)).fetchone()[0]

    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    sql_index.update_status(hook, rid)  # unchanged: returns without waiting for it
    writer.execute("UPDATE records SET status = 'completed' WHERE id = ?", (rid,))
    writer.execute("COMMIT")
    assert indexed() == "pending"
    sql_index.update_status(hook, rid)
    assert indexed() == "completed"
    writer.execute("BEGIN IMMEDIATE")
    sql_index.update_status(hook, rid)  # in step again: no write
    writer.execute("ROLLBACK")
    sql_index.update_status(hook, "d" * 32)  # a record the index does not hold: nothing to do
    assert indexed() == "completed"


def test_an_upsert_indexed_after_an_answer_keeps_the_stored_status(tmp_path):
    """An upsert indexes its records after its commit, with the status its record objects had
    then. An answer that completes a record in between (its status copy made first) must not
    be undone: the index takes the status ``records`` holds, the caller's only for a record the
    table does not hold."""
    from biasforge.annotation.server import sql_index

    conn = sql_index.connect(str(tmp_path / "index.sqlite"))
    conn.execute("CREATE TABLE records (id TEXT, dataset_id TEXT, status TEXT)")
    sql_index.ensure_schema(conn)
    rid, new, when = "e" * 32, "f" * 32, "2026-01-01 00:00:00.000000"
    conn.execute("INSERT INTO records VALUES (?, 'ds', 'pending')", (rid,))
    sql_index.write_records(conn, "ds", [(rid, {"text": "x"}, {}, when, "pending")])
    conn.execute("UPDATE records SET status = 'completed' WHERE id = ?", (rid,))  # the answer
    sql_index.update_status(conn, rid)  # its hook
    # the upsert's late index call, with the status it read before the answer
    sql_index.write_records(conn, "ds", [
        (rid, {"text": "x y"}, {}, when, "pending"), (new, {"text": "z"}, {}, when, "pending"),
    ])  # fmt: skip
    indexed = dict(conn.execute("SELECT rid, status FROM bf_record").fetchall())
    assert indexed == {rid: "completed", new: "pending"}


def test_text_search_reads_the_text_not_its_highlight_markup(server):
    """Issue 47, item 10: fields hold the family's highlights (``<mark data-role=…
    style=…>``); the markup was indexed, so ``style`` found every highlighted record and a
    phrase across a highlighted word found none. Indexed as read, entities decoded."""
    from biasforge.families.base import mark

    api, connection = owner_api(server.data_dir)
    dataset = new_dataset(connection, "markup-search")
    texts = {
        "m0": f"{mark('Él', 'person')} es un {mark('recepcionista', 'profession')}.",
        "m1": f"Ella es {mark('mecánica', 'profession')} &amp; piloto.",
        "m2": "Un texto sin marcas, style aparte.",
    }
    items = [{"external_id": rid, "fields": {"text": text}} for rid, text in texts.items()]
    logged = api.post(f"/api/v1/datasets/{dataset.id}/records/bulk", json={"items": items})
    assert logged.status_code == 201, logged.text

    def found(q: str) -> list[str]:
        answer = api.post(f"/api/v1/me/datasets/{dataset.id}/records/search",
                          json={"query": {"text": {"q": q}}})  # fmt: skip
        assert answer.status_code == 200, answer.text
        return sorted(item["record"]["external_id"] for item in answer.json()["items"])

    assert found("style") == ["m2"]  # the word of the one text that says it
    assert found("data-role") == found("background") == found("mark") == []
    assert found('"un recepcionista"') == found('"Él es un"') == ["m0"]
    assert found('"mecánica & piloto"') == ["m1"]  # &amp; read as &
    assert found("recep*") == ["m0"]
