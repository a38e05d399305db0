"""The BEC-Pro runs are curated once per test run (tests/conftest.py: ``becpro_runs``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import becpro


def candidates(run: Path) -> pd.DataFrame:
    return pd.read_parquet(run / "candidates.parquet")


@pytest.fixture(scope="session")
def new_runs(shared) -> dict[str, Path]:
    """German (Bartl et al.'s) and French (new) BEC-Pro, built once through the CLI."""
    return {lang: becpro(shared, lang) for lang in ("de", "fr")}
