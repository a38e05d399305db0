"""Fixtures for the bad-input suite: one good artefact of each kind, copied before each use."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import run_cli


@pytest.fixture(scope="session")
def good(shared, becpro_run, tiny_models) -> dict[str, Path]:
    """A BEC-Pro run and release and a tiny masked model (built once per test run: read-only)."""
    releases = shared.folder(
        "becpro-release",
        lambda root: run_cli("export", "release", becpro_run, "--name", "becpro", "--version",
                             "1.0.0", "--unreviewed", "--out", root),
    )  # fmt: skip
    return {
        "becpro_run": becpro_run,
        "becpro_release": releases / "becpro" / "1.0.0",
        "masked_model": tiny_models["masked"],
    }


def copy_of(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target
