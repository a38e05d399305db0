"""Fixtures for the bad-input suite: one good artefact of each kind, copied before each use."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.scoring.conftest import tiny_models  # noqa: F401  (a session fixture)


@pytest.fixture(scope="session")
def good(tmp_path_factory, tiny_models) -> dict[str, Path]:  # noqa: F811
    """A BEC-Pro run and release, a StereoSet-shaped release, and a tiny masked model."""
    root = tmp_path_factory.mktemp("good")
    run = root / "becpro-en"
    run_cli("curate", "becpro", "--lang", "en", "--out", run)
    run_cli("export", "release", run, "--name", "becpro", "--version", "1.0.0", "--unreviewed",
            "--out", root / "releases")  # fmt: skip
    return {
        "becpro_run": run,
        "becpro_release": root / "releases" / "becpro" / "1.0.0",
        "masked_model": tiny_models["masked"],
    }


def copy_of(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target
