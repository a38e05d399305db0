"""Inputs shared by the export tests, built once per session (they are read-only)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.exports.builders import stereoset_rows, write_stereoset_run


@pytest.fixture(autouse=True)
def offline_hub(monkeypatch):
    """No test may reach the Hugging Face Hub."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(scope="session")
def en_rows() -> list[dict]:
    return stereoset_rows()


@pytest.fixture(scope="session")
def stereoset_run(tmp_path_factory, en_rows) -> Path:
    return write_stereoset_run(tmp_path_factory.mktemp("ss") / "run-en", en_rows)


@pytest.fixture(scope="session")
def stereoset_candidates(stereoset_run):
    return pq.read_table(stereoset_run / "candidates.parquet")


@pytest.fixture(scope="session")
def becpro_runs(becpro_runs) -> dict[str, Path]:
    """The bundled BEC-Pro runs (en, es with articles, eu), by the release config each becomes."""
    return {
        "en_default": becpro_runs["en"],
        "es_with_articles": becpro_runs["es-with_articles"],
        "eu_default": becpro_runs["eu"],
    }
