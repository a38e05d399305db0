"""French and English StereoSet and CrowS-Pairs runs are those of the code before language
packs, byte for byte.

``BEFORE`` was recorded from the code before target languages became folders of data (commit
8ff0148, where the agreement words were a Python table keyed by language code in
``curation/stereoset/adapt.py``): each run was made as below, through the fake DeepL server
for French, and :func:`content_hash` applied to its ``candidates.parquet`` and
``rejected.parquet`` and :func:`text_hash` to its ``report.md``. The fake server listens on a
free port, which the engine's name (``deepl@localhost:PORT``) carries into rows and report, so
both hashes read it as ``deepl@fake``. The verdicts of every check are in the rows (``checks``,
``review_reasons``, ``reasons``), so an unchanged hash is an unchanged verdict.

The StereoSet hashes were recorded again, the same way, at commit 851bf83 (still before language
packs), when the audit gained its ``text_length`` rule (issue 47, item 14), which every
StereoSet item's ``checks`` now lists; the CrowS-Pairs hashes were the same there.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.cli_runner import run_cli
from tests.conftest import curated

_ENGINE = re.compile(r"deepl@[\w.\-]+:\d+")
_SECONDS = re.compile(r"\| \d+\.\d+ \|$", re.M)

BEFORE = {
    "stereoset-fr": (
        "15ba90d2fc24a0044ea4c389bb33f4b14ed045861a1ff51949ca957dc7a2e74c",
        "2af37697ccbc991ecf245b51cb8c7a88190bfc57fa927196ca47804a5b74ca73",
        "186f9da42c82cb6cebf99a7df6e0e545e3566616e4d9a9917f4bb82f0395f494",
    ),
    "crowspairs-fr": (
        "fb7cf3e26d0d6a194de50f85997d2517177b49da8a689ac29f186120e493ac61",
        "83ecc6b0bf9da64710fd7b891460c2d026dc8ba03260bfb2c0776a7c6313332a",
        "07e4f9eec2d0c18bf8803b7c019564e578cd473331948c5eef7e2a634ccd95c6",
    ),
    "stereoset-en": (
        "44b1f2b3d99fb3ede8399918e4efd2025252c0c50d711dd2e7d02a9fe6b46ca3",
        "522fa3b1c247c7fcf0e4c9b8588fde88eb65512fec354e8ef349f18fc81f4630",
        "88103b75b759ca7bdf37b93e47681871a086087e91e918b454e667ac9d32bc11",
    ),
    "crowspairs-en": (
        "01a970f3cdc3daf08c7853379518b0f42b05f591c5e6647cc45763195f513535",
        "f78352fef0d3568c366e87a5c9c5c532ecb1c7cc9dd2dcdef59cfda534a333e9",
        "fc85838f718927bfc11706991a96ca3afed7654013fd47b7f5398e76b99d041f",
    ),
}


def _same_engine(text: str) -> str:
    return _ENGINE.sub("deepl@fake", text)


def content_hash(path: Path) -> str:
    """sha256 of a parquet table's schema and rows, as canonical JSON lines."""
    table = pq.read_table(path)
    digest = hashlib.sha256(str(table.schema.remove_metadata()).encode())
    for row in table.to_pylist():
        line = json.dumps(row, sort_keys=True, ensure_ascii=False)
        digest.update(_same_engine(line).encode() + b"\n")
    return digest.hexdigest()


def text_hash(path: Path) -> str:
    """sha256 of a report, the engine's port and each rule's seconds (the last cell of the
    rules table, a time measured during the run) left out."""
    text = _SECONDS.sub("| s |", _same_engine(path.read_text(encoding="utf-8")))
    return hashlib.sha256(text.encode()).hexdigest()


def _through_fake(shared, name: str, *args: str) -> Path:
    from tests.fake_deepl import FakeDeepL

    def build(root: Path) -> None:
        fake = FakeDeepL().start()
        try:
            env = {"DEEPL_AUTH_KEY": fake.auth_key, "DEEPL_SERVER_URL": fake.url}
            run_cli("curate", *args, "--memory", root / "tm.sqlite", "--out", root / name,
                    env=env)  # fmt: skip
        finally:
            fake.stop()

    return shared.folder(name, build) / name


@pytest.fixture(scope="module")
def runs(shared, stereoset_fr_run, crowspairs_en) -> dict[str, Path]:
    return {
        "stereoset-fr": stereoset_fr_run,
        "crowspairs-fr": _through_fake(shared, "crowspairs-fr", "crowspairs", "--lang", "fr"),
        "stereoset-en": curated(shared, "stereoset-en", "stereoset", "--lang", "en"),
        "crowspairs-en": crowspairs_en["run"],
    }


@pytest.mark.parametrize("run", ["stereoset-fr", "crowspairs-fr", "stereoset-en", "crowspairs-en"])
def test_runs_are_those_of_the_code_before(runs, run):
    folder = runs[run]
    got = (
        content_hash(folder / "candidates.parquet"),
        content_hash(folder / "rejected.parquet"),
        text_hash(folder / "report.md"),
    )
    assert got == BEFORE[run]
