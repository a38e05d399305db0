"""The Python entry point behind ``biasforge curate becpro``: ``curate(Options(...), out)``."""

from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest

from biasforge.contract.rundir import RunResult
from biasforge.curation.becpro import Options, curate
from biasforge.errors import BiasforgeError
from tests.becpro.conftest import candidates


def test_curate_writes_the_same_run_as_the_command(becpro_runs, tmp_path):
    options = Options(lang="es", variant="without_articles")
    result = curate(options, tmp_path / "run")
    assert isinstance(result, RunResult) and result.path == tmp_path / "run"
    assert (result.stats["language"], result.stats["variant"]) == ("es", "without_articles")
    written = json.loads((result.path / "stats.json").read_text(encoding="utf-8"))
    assert written["kept"] == result.stats["kept"] == 5400
    assert [s["step"] for s in result.stats["steps"]][-1] == "write_run"
    pd.testing.assert_frame_equal(
        candidates(result.path), candidates(becpro_runs["es-without_articles"])
    )


def test_options_default_variant_and_errors(tmp_path):
    assert Options(lang="es").resolved_variant() == "with_articles"
    assert Options().resolved_variant() == "default"
    with pytest.raises(dataclasses.FrozenInstanceError):
        Options().lang = "eu"  # type: ignore[misc]
    with pytest.raises(BiasforgeError, match="unknown language 'xx'"):
        curate(Options(lang="xx"), tmp_path / "a")
    with pytest.raises(BiasforgeError, match="no variant 'with_articles'"):
        curate(Options(lang="eu", variant="with_articles"), tmp_path / "b")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
