"""Fixtures shared by every test folder: an isolated BIASFORGE_HOME and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(autouse=True)
def biasforge_home(tmp_path_factory, monkeypatch) -> Path:
    """Per-test state folder, so no test reads or writes the developer's ~/.biasforge."""
    home = tmp_path_factory.mktemp("biasforge-home")
    monkeypatch.setenv("BIASFORGE_HOME", str(home))
    return home


def run_cli(
    *args: str, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run the installed ``biasforge`` console script as a user would, in a subprocess."""
    exe = Path(sys.executable).with_name("biasforge")
    result = subprocess.run(
        [str(exe), *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=600,
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"biasforge {' '.join(map(str, args))} exited {result.returncode}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
    return result
