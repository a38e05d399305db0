from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import run_cli


@pytest.fixture(scope="session")
def becpro_runs(tmp_path_factory) -> dict[str, Path]:
    """The four BEC-Pro runs, built once through the CLI."""
    root = tmp_path_factory.mktemp("becpro-runs")
    runs = {
        "en": ["--lang", "en"],
        "es-with_articles": ["--lang", "es", "--variant", "with_articles"],
        "es-without_articles": ["--lang", "es", "--variant", "without_articles"],
        "eu": ["--lang", "eu"],
    }
    out = {}
    for name, args in runs.items():
        out[name] = root / name
        run_cli("curate", "becpro", *args, "--out", out[name])
    return out


def candidates(run: Path) -> pd.DataFrame:
    return pd.read_parquet(run / "candidates.parquet")


@pytest.fixture(scope="session")
def new_runs(tmp_path_factory) -> dict[str, Path]:
    """German (Bartl et al.'s) and French (new) BEC-Pro, built once through the CLI."""
    root = tmp_path_factory.mktemp("becpro-new-runs")
    for lang in ("de", "fr"):
        run_cli("curate", "becpro", "--lang", lang, "--out", root / lang)
    return {lang: root / lang for lang in ("de", "fr")}
