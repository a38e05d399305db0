"""A new data folder starts from the cached migrated database (annotation/db_template.py): the
first start migrates and leaves a template, the next copies it after checking it, and a
template that fails its check is rebuilt, never used. Real migrations, real owner accounts."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from biasforge.annotation.db_template import template_path
from biasforge.annotation.paths import server_venv_dir
from biasforge.annotation.serve import EmbeddedServer, ensure_credentials, read_secret_json
from biasforge.annotation.server_env import ensure_server_venv

COPIED = "database: a copy of "


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A cache folder of this module's own (the server's virtualenv stays where it is)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BIASFORGE_ARGILLA_VENV", str(server_venv_dir()))
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        yield ensure_server_venv(quiet=True)


def prepared(folder: Path, python: Path) -> str:
    """A new data folder through the start's database step; returns its migrate.log."""
    server = EmbeddedServer(data_dir=folder, port=0, quiet=True)
    server._claim()
    logs = server._prepare_dirs()
    credentials = ensure_credentials(folder)
    server._prepare_database(python, server._server_env("redis://unused"), logs, credentials)
    return (logs / "migrate.log").read_text(encoding="utf-8")


def query(database: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        return db.execute(sql).fetchall()


SCHEMA = "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"
REVISION = "SELECT version_num FROM alembic_version"
KEYS = "SELECT username, api_key FROM users"


def test_a_second_data_folder_starts_from_the_template_with_the_same_schema(cache, tmp_path):
    first = prepared(tmp_path / "one", cache)
    template = template_path(cache)
    assert COPIED not in first and template.is_file()
    assert query(template, KEYS) == []  # made before the owner: no account, no key in the cache
    second = prepared(tmp_path / "two", cache)
    assert f"{COPIED}{template}" in second
    one, two = tmp_path / "one" / "argilla.db", tmp_path / "two" / "argilla.db"
    assert query(two, SCHEMA) == query(one, SCHEMA) and len(query(two, SCHEMA)) > 20
    assert query(two, REVISION) == query(one, REVISION) == query(template, REVISION)
    assert query(two, "PRAGMA journal_mode") == [("wal",)]
    for folder, database in (("one", one), ("two", two)):  # each its own owner, own key
        owner = read_secret_json(tmp_path / folder / "credentials.json")
        assert query(database, KEYS) == [(owner["username"], owner["api_key"])]


@pytest.mark.parametrize("damage", ["a flipped byte", "another revision"])
def test_a_damaged_template_is_rebuilt_not_used(cache, tmp_path, damage):
    template = template_path(cache)
    if not template.is_file():  # made by the test above, or here
        prepared(tmp_path / "one", cache)
    revision = query(template, REVISION)
    sidecar = template.with_suffix(".json")
    if damage == "a flipped byte":
        data = bytearray(template.read_bytes())
        data[len(data) // 2] ^= 0xFF
        template.write_bytes(bytes(data))
    else:
        sidecar.write_text(json.dumps({**json.loads(sidecar.read_text()), "revision": "0" * 12}))
    log = prepared(tmp_path / "two", cache)
    assert COPIED not in log  # migrated, as without a template
    assert query(tmp_path / "two" / "argilla.db", REVISION) == revision
    recorded = json.loads(sidecar.read_text())  # and a sound template again
    assert recorded["revision"] == revision[0][0]
    assert recorded["sha256"] == hashlib.sha256(template.read_bytes()).hexdigest()
