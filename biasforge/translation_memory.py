"""A persistent translation memory (SQLite) that sits in front of every translation backend.

Why: machine translation is paid per character. Every text the pipeline sends is first looked
up here and every answer is stored here, committed batch by batch, so

* a text is paid for once (a rerun with the same inputs sends nothing),
* a run that crashes or hits its quota resumes where it stopped,
* reviewers' corrections are kept as *preferred* translations that win over any engine.

Machine translations are keyed by everything that changes the engine's answer: the engine
identity, the language pair, the request options (XML tag handling, the ``context`` given with
the text, formality, glossary content) and the text itself. The engine identity names a
server, never a way of writing its URL: ``deepl`` for DeepL's own API, and for any other server
(a test server, a gateway) ``deepl@host:port/path`` as :func:`canonical_engine` spells it —
without scheme, default port, trailing slash or credentials — so ``http://127.0.0.1:8765/``
and ``http://localhost:8765`` share their translations, and no password is ever stored.
Memories written before this rule (engine ids holding the URL as typed) are rekeyed once, when
they are opened (``PRAGMA user_version`` 0 → 1).

Preferred translations are keyed only by ``(source_text, source_lang, target_lang)``: a
reviewer says "this English sentence is, in French, that", whatever engine or options were used.
The public API for reviewers (used by the annotation package) is :meth:`TranslationMemory.prefer`
and :meth:`TranslationMemory.preferred`.

The default location is ``$BIASFORGE_HOME/translation-memory.sqlite`` (``BIASFORGE_HOME``
defaults to ``~/.biasforge``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from biasforge.errors import InputError
from biasforge.resources import biasforge_home

#: the key scheme this code writes; older memories are migrated on open
SCHEMA_VERSION = 1
_LOOPBACK = {"localhost", "127.0.0.1", "::1"}
_DEFAULT_PORTS = {"http": 80, "https": 443}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS translations (
    key TEXT PRIMARY KEY,
    engine TEXT NOT NULL,
    source_lang TEXT NOT NULL,
    target_lang TEXT NOT NULL,
    options TEXT NOT NULL,
    source_text TEXT NOT NULL,
    text TEXT NOT NULL,
    billed_characters INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS preferred (
    source_lang TEXT NOT NULL,
    target_lang TEXT NOT NULL,
    source_text TEXT NOT NULL,
    text TEXT NOT NULL,
    origin TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (source_lang, target_lang, source_text)
);
"""


def _chunks(values: Iterable[str], size: int = 500) -> Iterator[tuple[list[str], str]]:
    """The distinct values in chunks of ``size``, each with its ``?,?,…`` placeholders (SQLite
    limits the parameters of one statement)."""
    distinct = list(dict.fromkeys(values))
    for start in range(0, len(distinct), size):
        chunk = distinct[start : start + size]
        yield chunk, ",".join("?" * len(chunk))


def default_memory_path() -> Path:
    return biasforge_home() / "translation-memory.sqlite"


def server_identity(url: str) -> str:
    """The server a base URL reaches, written one way: ``host[:port][/path]``.

    Lower-case host, loopback names as ``localhost``, no scheme, no default port, no
    credentials, no query. The path is the folder that relative API routes resolve against
    (RFC 3986, as clients that ``urljoin`` their routes do): ``http://h/api`` and ``http://h/``
    both reach ``http://h/v2/translate``; ``http://h/api/`` reaches ``http://h/api/v2/…``.
    An identity given back (no scheme) is returned unchanged.
    """
    parts = urlsplit(url if "://" in url else f"//{url}")
    host = (parts.hostname or "").rstrip(".").lower()
    host = "localhost" if host in _LOOPBACK else host
    host = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:  # not a port number: keep what was written, minus credentials
        port = parts.netloc.rpartition("@")[2].rpartition(":")[2]
    if port and port != _DEFAULT_PORTS.get(parts.scheme.lower()):
        host = f"{host}:{port}"
    # an identity (no scheme) is already a folder; a URL's last segment is not
    folder = parts.path if "://" not in url else parts.path[: parts.path.rfind("/") + 1]
    return host + folder.rstrip("/")


def canonical_engine(engine: str) -> str:
    """``name`` or ``name@URL`` with the URL written as :func:`server_identity` writes it."""
    name, at, url = engine.partition("@")
    return f"{name}@{server_identity(url)}" if at else engine


def memory_key(
    engine: str, source_lang: str, target_lang: str, options: Mapping[str, Any], text: str
) -> str:
    """The lookup key of one machine translation request for one text."""
    payload = json.dumps(
        [
            canonical_engine(engine),
            source_lang.lower(),
            target_lang.lower(),
            dict(sorted(options.items())),
            text,
        ],
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Preferred:
    """A reviewer's translation of a source text, which wins over machine translation."""

    text: str
    origin: str
    updated_at: str


def _connect(path: Path) -> sqlite3.Connection:
    """Open ``path`` as a translation memory, or say in one line why it is not one.

    SQLite reports a folder, a file of another kind or another program's database only at the
    first statement, as a bare ``OperationalError``/``DatabaseError``; the user needs the path
    and what to do, and another program's database must not get our tables added to it.
    """
    if path.is_dir():
        raise InputError(path, "is a folder; give a file for the translation memory")
    try:
        db = sqlite3.connect(path, timeout=30)
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        if tables and "translations" not in tables:
            db.close()
            raise InputError(path, "is an SQLite database of another program, not a memory")
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(_SCHEMA)
        db.commit()
    except sqlite3.DatabaseError as exc:
        raise InputError(path, f"not a translation memory ({exc})") from exc
    return db


def _migrate(db: sqlite3.Connection) -> None:
    """Rekey rows stored under an engine id that held a URL as typed (user_version 0)."""
    if db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
        return
    rows = db.execute(
        "SELECT key, engine, source_lang, target_lang, options, source_text, text, "
        "billed_characters, created_at FROM translations WHERE engine LIKE '%@%'"
    ).fetchall()
    with db:
        for key, engine, source, target, options, *rest in rows:
            new_engine = canonical_engine(engine)
            new_key = memory_key(new_engine, source, target, json.loads(options), rest[0])
            db.execute("DELETE FROM translations WHERE key = ?", (key,))
            db.execute(
                "INSERT OR REPLACE INTO translations VALUES (?,?,?,?,?,?,?,?,?)",
                (new_key, new_engine, source, target, options, *rest),
            )
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


class TranslationMemory:
    """SQLite-backed store of machine translations and reviewers' preferred translations.

    Use as a context manager or call :meth:`close`. Safe to reopen at any time: everything
    returned by :meth:`put_many` is already committed. A path that is a folder or not a
    memory is an :class:`~biasforge.errors.InputError` naming it.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_memory_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = _connect(self.path)
        try:
            _migrate(self._db)
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise InputError(self.path, f"cannot update the translation memory ({exc})") from exc

    def __enter__(self) -> TranslationMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    # --- machine translations -------------------------------------------------------------

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        """Stored translations for those keys that have one."""
        found: dict[str, str] = {}
        for chunk, marks in _chunks(keys):
            rows = self._db.execute(
                f"SELECT key, text FROM translations WHERE key IN ({marks})", chunk
            )
            found.update(dict(rows.fetchall()))
        return found

    def put_many(
        self,
        engine: str,
        source_lang: str,
        target_lang: str,
        options: Mapping[str, Any],
        pairs: Iterable[tuple[str, str, int]],
    ) -> None:
        """Store ``(source_text, translation, billed_characters)`` triples and commit."""
        opts = json.dumps(dict(sorted(options.items())), ensure_ascii=False, sort_keys=True)
        engine = canonical_engine(engine)
        now = _now()
        rows = [
            (
                memory_key(engine, source_lang, target_lang, options, source),
                engine,
                source_lang.lower(),
                target_lang.lower(),
                opts,
                source,
                text,
                int(billed),
                now,
            )
            for source, text, billed in pairs
        ]
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO translations VALUES (?,?,?,?,?,?,?,?,?)", rows
            )

    def count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM translations").fetchone()[0]

    # --- reviewers' preferred translations (public API) --------------------------------------

    def prefer(
        self,
        source_text: str,
        source_lang: str,
        target_lang: str,
        text: str,
        origin: str = "review",
    ) -> None:
        """Record a reviewer's translation of ``source_text`` as the one to use from now on.

        ``source_text`` is the source exactly as the pipeline saw it (for StereoSet: an English
        context with ``BLANK`` from a candidate's ``source_text``, or an English sentence from
        its ``source_sentences``); ``text`` is the corrected translation; ``origin`` says who or
        what made it (e.g. ``"argilla:dataset/user"``). The latest call wins.
        """
        if not source_text or not text:
            raise ValueError("prefer() needs a non-empty source_text and text")
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO preferred VALUES (?,?,?,?,?,?)",
                (source_lang.lower(), target_lang.lower(), source_text, text, origin, _now()),
            )

    def preferred(self, source_text: str, source_lang: str, target_lang: str) -> Preferred | None:
        """The reviewer's translation of ``source_text``, if one was recorded."""
        row = self._db.execute(
            "SELECT text, origin, updated_at FROM preferred "
            "WHERE source_lang=? AND target_lang=? AND source_text=?",
            (source_lang.lower(), target_lang.lower(), source_text),
        ).fetchone()
        return Preferred(*row) if row else None

    def preferred_many(
        self, source_texts: Iterable[str], source_lang: str, target_lang: str
    ) -> dict[str, Preferred]:
        """Preferred translations for those of ``source_texts`` that have one."""
        found: dict[str, Preferred] = {}
        for chunk, marks in _chunks(source_texts):
            rows = self._db.execute(
                "SELECT source_text, text, origin, updated_at FROM preferred "
                f"WHERE source_lang=? AND target_lang=? AND source_text IN ({marks})",
                [source_lang.lower(), target_lang.lower(), *chunk],
            )
            for source, text, origin, updated in rows.fetchall():
                found[source] = Preferred(text, origin, updated)
        return found
