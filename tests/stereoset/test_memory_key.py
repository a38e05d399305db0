"""The translation memory is keyed by the server a URL reaches, not by how the URL is written;
memories written under the old key (the URL as typed) are rekeyed when opened; a memory path
that is not a memory is one clear error naming it."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path

import pytest

from biasforge.errors import InputError
from biasforge.translation_memory import TranslationMemory, canonical_engine, server_identity
from tests.conftest import run_cli
from tests.stereoset.conftest import inter, intra, write_jsonl


def _source(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "s.jsonl",
        [
            intra("nurse", "The nurse was BLANK.", "caring", "rude", "fox", "profession"),
            inter("mother", "My mother is at home.", "They cook.", "They work.", "Cats fly."),
        ],
    )


def _spellings(url: str) -> list[str]:
    port = url.rpartition(":")[2]
    return [
        f"{url}/",
        f"http://localhost:{port}",
        f"HTTP://127.0.0.1:{port}//",
        f"http://127.0.0.1:{port}/v2",  # the client resolves v2/translate against the folder
        f"http://[::1]:{port}/",
    ]


def test_server_identity_is_one_spelling_per_server():
    assert server_identity("https://API.DeepL.com:443/") == "api.deepl.com"
    assert server_identity("http://user:pw@127.0.0.1:8765/x") == "localhost:8765"
    assert server_identity("http://gateway.example/deepl/") == "gateway.example/deepl"
    assert server_identity("http://gateway.example/deepl") == "gateway.example"
    for identity in ("localhost:8765", "gateway.example/deepl"):
        assert server_identity(identity) == identity  # an identity is a fixed point
    assert canonical_engine("deepl") == "deepl"
    assert canonical_engine("deepl@http://a:b@Host:80/") == "deepl@host"


def test_another_spelling_of_the_same_server_sends_nothing(fake_deepl, tmp_path):
    src, memory = _source(tmp_path), tmp_path / "tm.sqlite"
    args = ["curate", "stereoset", "--source", src, "--memory", memory]
    env = {"DEEPL_AUTH_KEY": fake_deepl.auth_key}
    run_cli(*args, "--out", tmp_path / "run", "--server-url", fake_deepl.url, env=env)
    requests, characters = fake_deepl.translate_requests, fake_deepl.character_count
    assert requests > 0
    for spelling in _spellings(fake_deepl.url):
        dry = run_cli(*args, "--dry-run", "--server-url", spelling, env=env)
        assert re.search(r"would send 0 texts = 0 characters", dry.stdout), (spelling, dry.stdout)
        rerun = run_cli(
            *args,
            "--out",
            tmp_path / "run",
            "--overwrite",
            env={**env, "DEEPL_SERVER_URL": spelling},
        )
        assert re.search(r"translation: 0 of \d+ characters sent", rerun.stdout), spelling
    assert (fake_deepl.translate_requests, fake_deepl.character_count) == (requests, characters)


def _old_key(engine: str, source: str, target: str, options: dict, text: str) -> str:
    """How memories were keyed before: the engine id held the server URL as typed."""
    payload = json.dumps(
        [engine, source, target, dict(sorted(options.items())), text],
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _downgrade(memory: Path, old_engine: str) -> int:
    """Rewrite a memory as the previous version wrote it (URL as typed, user_version 0)."""
    with sqlite3.connect(memory) as db:
        rows = db.execute(
            "SELECT key, source_lang, target_lang, options, source_text FROM translations"
        ).fetchall()
        for key, source, target, options, text in rows:
            old = _old_key(old_engine, source, target, json.loads(options), text)
            db.execute(
                "UPDATE translations SET key=?, engine=? WHERE key=?", (old, old_engine, key)
            )
        db.execute("PRAGMA user_version = 0")
    return len(rows)


def test_a_memory_keyed_by_the_typed_url_is_migrated_and_still_pays_nothing(fake_deepl, tmp_path):
    src, memory = _source(tmp_path), tmp_path / "tm.sqlite"
    args = ["curate", "stereoset", "--source", src, "--memory", memory, "--out", tmp_path / "r"]
    env = {"DEEPL_AUTH_KEY": fake_deepl.auth_key, "DEEPL_SERVER_URL": fake_deepl.url}
    run_cli(*args, env=env)
    stored = _downgrade(memory, f"deepl@{fake_deepl.url}/")  # typed with a trailing slash
    requests = fake_deepl.translate_requests
    rerun = run_cli(*args, "--overwrite", env=env)
    assert "translation: 0 of" in rerun.stdout and fake_deepl.translate_requests == requests
    port = fake_deepl.url.rpartition(":")[2]
    with sqlite3.connect(memory) as db:
        engines = db.execute("SELECT engine, COUNT(*) FROM translations GROUP BY engine").fetchall()
        assert engines == [(f"deepl@localhost:{port}", stored)]
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1


def test_a_folder_or_a_foreign_file_is_not_a_memory(tmp_path):
    folder = tmp_path / "mem"
    folder.mkdir()
    with pytest.raises(InputError, match=r"mem: is a folder"):
        TranslationMemory(folder)
    garbage = tmp_path / "mem.sqlite"
    garbage.write_bytes(b"\x00garbage" * 100)
    with pytest.raises(InputError, match=r"mem\.sqlite: not a translation memory"):
        TranslationMemory(garbage)
    foreign = tmp_path / "other.db"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE records (id TEXT)")
    before = foreign.read_bytes()
    with pytest.raises(InputError, match=r"other\.db: is an SQLite database of another program"):
        TranslationMemory(foreign)
    assert foreign.read_bytes() == before  # no table was added to someone else's database
