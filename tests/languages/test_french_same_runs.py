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
        "ad5bd90c8e2c1dc7a4ce257642bc7847e5fdf2cee586ec1f84fdca0550cb5b7a",
        "75bb1cec4972073fa9a857ba37f18d111a4e0b4352499f190de193b9e39a569f",
        "276ae8d2b6226ba4bfc50c2b6dd55873c47f1c8bbe91977246e6109d669de344",
    ),
    "crowspairs-fr": (
        "fb7cf3e26d0d6a194de50f85997d2517177b49da8a689ac29f186120e493ac61",
        "83ecc6b0bf9da64710fd7b891460c2d026dc8ba03260bfb2c0776a7c6313332a",
        "07e4f9eec2d0c18bf8803b7c019564e578cd473331948c5eef7e2a634ccd95c6",
    ),
    "stereoset-en": (
        "db5bff9c97498ac3d02a92fad3f6587efa1eaec410aa424287e198470f9ece8c",
        "4a7805cd2b929c8ac76cfbe708b6f4206b720fa25544cb0f4a9dd1fcacfa0e0c",
        "481f6b7031d94c5c457a8c33293ce9ca25f1500bb999c2461167b9b2560ab694",
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
