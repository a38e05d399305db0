"""Inputs shared by the export tests, built once per session (they are read-only)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import run_cli
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
def becpro_runs(tmp_path_factory) -> dict[str, Path]:
    """The bundled BEC-Pro corpora, built by the real `biasforge curate becpro`."""
    root = tmp_path_factory.mktemp("becpro")
    runs = {}
    for lang, variant in (("en", "default"), ("es", "with_articles"), ("eu", "default")):
        out = root / f"becpro-{lang}-{variant}"
        run_cli("curate", "becpro", "--lang", lang, "--variant", variant, "--out", out)
        runs[f"{lang}_{variant}"] = out
    return runs
