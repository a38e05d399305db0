"""The search index kept beside argilla-server's tables, in the same SQLite database.

Argilla's own tables already hold records, responses and suggestions as rows with indexes on
``record_id``/``user_id``/``question_id``; what they cannot answer quickly is text inside the
``fields`` JSON and values inside the ``metadata`` JSON. This module keeps, per record:

``bf_record``  ``n`` (integer key), the record id, its dataset, ``inserted_at`` and ``status``
               (copied: the queue and the insertion order are read without touching the wide
               ``records`` rows) and ``rk``, a random 31-bit key: an annotator's queue is the
               records in ``rk`` order, the same order for every annotator, so pages are
               stable and read from an index.
``bf_text``    FTS5 with the trigram tokenizer: one row (rowid ``n << 8``) with all fields
               joined, plus one row per field (``n << 8 | k``) when a record has several. Text is
               stored as read, without HTML markup (``plain_text``), lower-cased by Python; a CJK query term is a case-insensitive substring
               of it (see ``words``); accents are kept: ``medico`` does not find ``médico``,
               as with Argilla's Elasticsearch mapping (standard analyzer, no ASCII folding).
               Terms of 3+ characters use the trigram index.
``bf_words``   FTS5 (same rowids as ``bf_text``): the words of each text row, one token per
               word as Elasticsearch's standard analyzer cuts them, with marker tokens for
               the row's kind (all fields, or one field) and between fields (``words``);
               whole-word, prefix, phrase and boolean searches run here.
``bf_vocab``   the distinct words of each dataset by length, where a fuzzy term (``aple~1``)
               looks for its neighbours; a word stays after its records are gone (as in an
               Elasticsearch index until its segments merge) and only costs a look.
``bf_gram``    FTS5 (same rowids as ``bf_text``) over the 1- and 2-character grams of each
               whitespace-separated word, each written as an ASCII token (``u``/``g`` + the
               UTF-8 hex; contentless), which the trigram index cannot answer: a 1–2 character term
               (母亲, 她) is looked up here, then checked exactly with ``instr``, instead of
               reading every text row (1M records: 0.32 s → 0.10 s for 母亲).
``bf_meta``    one row per metadata value (``pos`` 0 for a scalar, 1.. for list items) with its
               ``str()`` (terms), its ``float()`` (ranges, never for booleans) and its number
               for sorting, indexed by (dataset, property, value).

It also adds an index (dataset, status) to Argilla's ``records`` table, for progress counts,
and keeps SQLite's planner statistics fresh (``ANALYZE`` with a sampling limit each time the
index has doubled): without them the planner guesses that a dataset holds ten records and, at
1M records, counts a metadata filter by probing every record (0.86 s instead of 0.1 s).

Only the standard library is used: the launcher, the engine (inside the server's event loop,
through worker threads) and the benchmark all open the database with ``sqlite3`` directly.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import re
import sqlite3
from collections.abc import Iterable
from html.parser import HTMLParser
from typing import Any

try:  # a module of biasforge.annotation.server (tests), or top-level in the server's venv
    from . import words, write_gate
except ImportError:
    import words
    import write_gate

SCHEMA_VERSION = 6  # 6: fields indexed as plain text, without their HTML
SHIFT = 8  # bf_text rowid = n << SHIFT | field slot (0 = all fields joined)
MAX_FIELD_SLOTS = (1 << SHIFT) - 1
INDEX_TABLES = ("bf_text", "bf_words", "bf_vocab", "bf_gram", "bf_meta", "bf_record")

SCHEMA = """
CREATE TABLE IF NOT EXISTS bf_index_info (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS bf_record (
    n INTEGER PRIMARY KEY,
    rid TEXT NOT NULL UNIQUE,
    dataset_id TEXT NOT NULL,
    rk INTEGER NOT NULL,
    inserted_at TEXT NOT NULL,
    status TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS bf_record_order ON bf_record (dataset_id, inserted_at, rid);
CREATE INDEX IF NOT EXISTS bf_record_queue ON bf_record (dataset_id, rk, rid);
CREATE INDEX IF NOT EXISTS bf_record_status ON bf_record (dataset_id, status, rk, rid);
CREATE VIRTUAL TABLE IF NOT EXISTS bf_text USING fts5(
    body, field UNINDEXED, tokenize = 'trigram case_sensitive 1'
);
CREATE VIRTUAL TABLE IF NOT EXISTS bf_words USING fts5(words, tokenize = 'ascii');
CREATE TABLE IF NOT EXISTS bf_vocab (
    dataset_id TEXT NOT NULL,
    len INTEGER NOT NULL,
    word TEXT NOT NULL,
    PRIMARY KEY (dataset_id, len, word)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS bf_gram USING fts5(
    grams, content = '', detail = none, tokenize = 'ascii'
);
CREATE TABLE IF NOT EXISTS bf_meta (
    rid TEXT NOT NULL,
    dataset_id TEXT NOT NULL,
    name TEXT NOT NULL,
    pos INTEGER NOT NULL,
    sval TEXT,
    nval REAL,
    snum REAL
);
CREATE INDEX IF NOT EXISTS bf_meta_terms ON bf_meta (dataset_id, name, sval, rid);
CREATE INDEX IF NOT EXISTS bf_meta_range ON bf_meta (dataset_id, name, nval, rid);
CREATE INDEX IF NOT EXISTS bf_meta_record ON bf_meta (rid, name, pos);
CREATE INDEX IF NOT EXISTS bf_records_status ON records (dataset_id, status);
DROP INDEX IF EXISTS bf_records_order;
DROP INDEX IF EXISTS bf_responses_user_record;
"""


def database_path(url: str | None = None) -> str:
    """The SQLite file behind ``ARGILLA_DATABASE_URL`` (``sqlite+aiosqlite:///PATH?...``)."""
    url = url or os.environ.get("ARGILLA_DATABASE_URL", "")
    if not url:
        from argilla_server.settings import settings

        url = settings.database_url
    if not url.startswith("sqlite"):
        raise RuntimeError(f"the biasforge SQL engine needs a SQLite database, not {url!r}")
    path = url.split(":///", 1)[1].split("?", 1)[0]
    return path


def connect(path: str | None = None) -> sqlite3.Connection:
    conn = sqlite3.connect(path or database_path(), timeout=60, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 60000")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB page cache per connection
    return conn


def ensure_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA)
    conn.execute(
        "INSERT OR REPLACE INTO bf_index_info (key, value) VALUES ('schema', ?)",
        (str(SCHEMA_VERSION),),
    )


# -- what is stored for a record -------------------------------------------------------------
class _PlainText(HTMLParser):
    """The text a reader sees of a field's HTML: tags and their attributes left out, entities
    decoded, a block-level tag read as a space (an inline one, ``<mark>``, joins nothing)."""

    BLOCK = frozenset({"br", "p", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "hr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.handle_endtag(tag)

    def handle_endtag(self, tag) -> None:
        if tag in self.BLOCK:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


#: something that looks like an HTML tag or entity: only such text goes through the parser
MARKUP = re.compile(r"<[A-Za-z/!]|&#?\w+;")


def plain_text(text: str) -> str:
    """``text`` as read, without its HTML markup (issue 47, item 10: the highlight markup of
    a field was indexed, so ``style`` matched every highlighted record and a phrase across a
    highlighted word matched none; Argilla's own Elasticsearch mapping does the same)."""
    if not MARKUP.search(text):
        return text
    parser = _PlainText()
    parser.feed(text)
    parser.close()
    return "".join(parser.parts)


def text_of(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):  # chat fields: list of {role, content}
        return " ".join(
            text_of(item.get("content") if isinstance(item, dict) else item) for item in value
        )
    if isinstance(value, dict):
        return " ".join(text_of(item) for item in value.values())
    return plain_text(str(value))


def _range_number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _sort_number(value: Any) -> float | None:
    if isinstance(value, bool | int | float) and not (
        isinstance(value, float) and math.isnan(value)
    ):
        return float(value)
    return None


def text_rows(n: int, fields: dict) -> list[tuple[int, str, str, str, list[str]]]:
    """(rowid, lower-cased text, field name, ``bf_words`` text, words) rows of one record:
    one row of all fields joined, and one per field when there are several."""
    fields = fields or {}
    texts = {name: text_of(value) for name, value in fields.items()}
    base = n << SHIFT
    markers = [words.ALL_FIELDS]
    if len(texts) == 1:
        markers.append(words.field_marker(next(iter(texts))))
    joined = " ".join(texts.values()).lower()
    name = next(iter(texts)) if len(texts) == 1 else ""
    rows = [(base, joined, name, *words.row_tokens(list(texts.values()), markers))]
    if len(texts) == 1:
        return rows
    for slot, (name, text) in enumerate(texts.items(), start=1):
        if slot > MAX_FIELD_SLOTS:
            break
        tokens, seen = words.row_tokens([text], [words.field_marker(name)])
        rows.append((base | slot, text.lower(), name, tokens, seen))
    return rows


def gram_tokens(term: str) -> list[str]:
    """The ``bf_gram`` tokens a one- or two-character term must match (itself, as a token)."""
    return [("u" if len(term) == 1 else "g") + term.encode("utf-8").hex()]


def grams_of(text: str) -> str:
    """Every 1- and 2-character gram inside the words of ``text``, as ``bf_gram`` tokens."""
    tokens = set()
    for word in text.split():
        for i, char in enumerate(word):
            tokens.add("u" + char.encode("utf-8").hex())
            if i + 1 < len(word):
                tokens.add("g" + word[i : i + 2].encode("utf-8").hex())
    return " ".join(tokens)


def _delete_text(conn: sqlite3.Connection, n: int) -> None:
    """Remove a record's rows from the text and gram indexes.

    ``bf_gram`` stores no text (contentless: 222 MB less at 1M records), so its entries are
    removed with FTS5's ``delete`` command and the grams recomputed from the text row."""
    bounds = (n << SHIFT, (n << SHIFT) | MAX_FIELD_SLOTS)
    rows = conn.execute("SELECT rowid, body FROM bf_text WHERE rowid BETWEEN ? AND ?", bounds)
    conn.executemany(
        "INSERT INTO bf_gram (bf_gram, rowid, grams) VALUES ('delete', ?, ?)",
        [(rowid, grams_of(body)) for rowid, body in rows.fetchall()],
    )
    conn.execute("DELETE FROM bf_text WHERE rowid BETWEEN ? AND ?", bounds)
    conn.execute("DELETE FROM bf_words WHERE rowid BETWEEN ? AND ?", bounds)


def meta_rows(rid: str, dataset_id: str, metadata: dict) -> list[tuple]:
    rows = []
    for name, value in (metadata or {}).items():
        if value is None:
            continue
        items = [(0, value)] if not isinstance(value, list) else list(enumerate(value, start=1))
        for pos, item in items:
            rows.append(
                (rid, dataset_id, name, pos, str(item), _range_number(item), _sort_number(item))
            )
    return rows


def write_records(
    conn: sqlite3.Connection, dataset_id: str, records: Iterable[tuple[str, dict, dict, str, str]]
) -> None:
    """(Re)index records given as (id hex, fields, metadata, inserted_at, status), in one
    transaction (``inserted_at`` as SQLAlchemy stores it in SQLite: ``%Y-%m-%d %H:%M:%S.%f``).
    The status indexed is the one the ``records`` table holds when the write runs (``status``
    only stands in for a record it does not hold), as :func:`update_status` copies it."""
    records = list(records)
    if not records:
        return
    with _writing(conn):
        with _transaction(conn):
            _write(conn, dataset_id, records)
        refresh_statistics(conn)


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection):
    """One write transaction, taken at once (``BEGIN IMMEDIATE``); rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _writing(conn: sqlite3.Connection) -> contextlib.AbstractContextManager:
    """The database's write gate (``write_gate``) for a write on this connection."""
    database = next(row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main")
    return write_gate.held(database) if database else contextlib.nullcontext()


def refresh_statistics(conn: sqlite3.Connection, force: bool = False) -> None:
    """``ANALYZE`` (sampled, milliseconds) when the index has doubled since the last time.

    ``max(n)`` stands for the index size: it is read from the primary key at no cost, where a
    ``count(*)`` would cost a scan on every push.
    """
    size = conn.execute("SELECT coalesce(max(n), 0) FROM bf_record").fetchone()[0]
    row = conn.execute("SELECT value FROM bf_index_info WHERE key = 'analyzed_at'").fetchone()
    last = int(row[0]) if row else 0
    if not force and (size < 1000 or size < 2 * last):
        return
    conn.execute("PRAGMA analysis_limit = 1000")
    conn.execute("ANALYZE")
    conn.execute(
        "INSERT OR REPLACE INTO bf_index_info (key, value) VALUES ('analyzed_at', ?)", (str(size),)
    )


def _write(conn, dataset_id, records) -> None:
    rng = random.Random()
    # the status is the one ``records`` holds now, the caller's only for a record not there:
    # an upsert indexes after its commit, and an answer that completed the record in between
    # (its own status copy already made) must not be undone by the upsert's older copy
    conn.executemany(
        "INSERT INTO bf_record (rid, dataset_id, rk, inserted_at, status) VALUES (?, ?, ?, ?, "
        "coalesce((SELECT status FROM records WHERE id = ?), ?)) "
        "ON CONFLICT (rid) DO UPDATE SET status = excluded.status",
        [
            (rid, dataset_id, rng.getrandbits(31), inserted_at, rid, status)
            for rid, _, _, inserted_at, status in records
        ],
    )
    numbers = {}
    rids = [record[0] for record in records]
    for start in range(0, len(rids), 500):
        chunk = rids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        numbers.update(
            conn.execute(f"SELECT rid, n FROM bf_record WHERE rid IN ({marks})", chunk).fetchall()
        )
    texts, metas, vocabulary = [], [], set()
    for rid, fields, metadata, _, _ in records:
        n = numbers[rid]
        _delete_text(conn, n)
        texts.extend(text_rows(n, fields))
        metas.extend(meta_rows(rid, dataset_id, metadata))
    conn.executemany("DELETE FROM bf_meta WHERE rid = ?", [(rid,) for rid in rids])
    conn.executemany(
        "INSERT INTO bf_text (rowid, body, field) VALUES (?, ?, ?)",
        [(rowid, body, field) for rowid, body, field, _, _ in texts],
    )
    conn.executemany(
        "INSERT INTO bf_words (rowid, words) VALUES (?, ?)",
        [(rowid, tokens) for rowid, _, _, tokens, _ in texts],
    )
    for *_, seen in texts:
        vocabulary.update(seen)
    conn.executemany(
        "INSERT OR IGNORE INTO bf_vocab (dataset_id, len, word) VALUES (?, ?, ?)",
        [(dataset_id, len(word), word) for word in vocabulary],
    )
    conn.executemany(
        "INSERT INTO bf_gram (rowid, grams) VALUES (?, ?)",
        [(rowid, grams_of(body)) for rowid, body, *_ in texts],
    )
    conn.executemany(
        "INSERT INTO bf_meta (rid, dataset_id, name, pos, sval, nval, snum) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        metas,
    )


def delete_records(conn: sqlite3.Connection, rids: Iterable[str]) -> None:
    rids = list(rids)
    if not rids:
        return
    with _writing(conn), _transaction(conn):
        for rid in rids:
            row = conn.execute("SELECT n FROM bf_record WHERE rid = ?", (rid,)).fetchone()
            if row is None:
                continue
            n = row[0]
            _delete_text(conn, n)
            conn.execute("DELETE FROM bf_record WHERE n = ?", (n,))
        conn.executemany("DELETE FROM bf_meta WHERE rid = ?", [(rid,) for rid in rids])


def delete_dataset(conn: sqlite3.Connection, dataset_id: str) -> None:
    rids = [
        rid
        for (rid,) in conn.execute("SELECT rid FROM bf_record WHERE dataset_id = ?", (dataset_id,))
    ]
    delete_records(conn, rids)
    with _writing(conn):
        conn.execute("DELETE FROM bf_vocab WHERE dataset_id = ?", (dataset_id,))


def reindex_from_table(conn: sqlite3.Connection, rids: Iterable[str]) -> None:
    """Index records again from what the ``records`` table holds now."""
    by_dataset: dict[str, list] = {}
    for rid in rids:
        row = conn.execute(
            "SELECT dataset_id, fields, metadata, inserted_at, status FROM records WHERE id = ?",
            (rid,),
        ).fetchone()
        if row is not None:
            by_dataset.setdefault(row[0], []).append(_from_table(rid, *row[1:]))
    for dataset_id, items in by_dataset.items():
        write_records(conn, dataset_id, items)


def update_status(conn: sqlite3.Connection, rid: str) -> None:
    """Copy a record's status from ``records`` into ``bf_record`` when the two differ.

    Argilla calls this hook after every answer, but the status changes only when an answer
    completes the record (the ``min_submitted``-th): the other answers leave it as it was. The
    copy is compared first, by a read that takes no write lock, so those answers do not queue
    behind the other web processes' writers for an UPDATE that would change nothing (under 20
    annotators, this write waited 0.64 s at p95). The status is read back from ``records``
    (committed before the hook runs), never taken from the caller: two answers' hooks may run
    in either order, and the last one copies what the table holds then.
    """
    row = conn.execute(
        "SELECT b.status, r.status FROM bf_record b JOIN records r ON r.id = b.rid WHERE b.rid = ?",
        (rid,),
    ).fetchone()
    if row is None or row[0] == row[1]:
        return
    with _writing(conn):
        conn.execute(
            "UPDATE bf_record SET status = (SELECT status FROM records WHERE id = ?) WHERE rid = ?",
            (rid, rid),
        )


def _from_table(rid, fields, metadata, inserted_at, status) -> tuple:
    return (
        rid,
        json.loads(fields or "{}"),
        json.loads(metadata or "null") or {},
        str(inserted_at),
        str(status),
    )


def _drop_outdated(conn: sqlite3.Connection) -> None:
    """Drop an index written by another schema version (it is rebuilt from the tables)."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'bf_index_info'").fetchone()
    if not exists:
        version = None
    else:
        row = conn.execute("SELECT value FROM bf_index_info WHERE key = 'schema'").fetchone()
        version = row[0] if row else None
    if version == str(SCHEMA_VERSION):
        return
    for table in (*INDEX_TABLES, "bf_index_info"):
        conn.execute(f"DROP TABLE IF EXISTS {table}")


def migrate(path: str | None = None, batch: int = 5000, log=None) -> int:
    """Create the index and index every record it does not hold yet (a data folder made
    before the index existed, or records written while another engine ran); drop entries of
    records that are gone. Returns how many records were indexed."""
    conn = connect(path)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        _drop_outdated(conn)
        ensure_schema(conn)
        stale = [
            rid
            for (rid,) in conn.execute(
                "SELECT rid FROM bf_record WHERE rid NOT IN (SELECT id FROM records)"
            )
        ]
        delete_records(conn, stale)
        done = 0
        last = -1
        while True:  # walk the records table once, in rowid order
            rows = conn.execute(
                "SELECT r.rowid, r.id, r.dataset_id, r.fields, r.metadata, r.inserted_at, "
                "r.status, b.n FROM records r LEFT JOIN bf_record b ON b.rid = r.id "
                "WHERE r.rowid > ? ORDER BY r.rowid LIMIT ?",
                (last, batch),
            ).fetchall()
            if not rows:
                break
            last = rows[-1][0]
            rows = [row[1:-1] for row in rows if row[-1] is None]
            by_dataset: dict[str, list] = {}
            for rid, dataset_id, *rest in rows:
                by_dataset.setdefault(dataset_id, []).append(_from_table(rid, *rest))
            for dataset_id, items in by_dataset.items():
                write_records(conn, dataset_id, items)
            done += len(rows)
            if log is not None and rows:
                log(f"search index: {done} records indexed")
        refresh_statistics(conn, force=True)
        return done
    finally:
        conn.close()
