"""Fixtures shared by every test folder: an isolated BIASFORGE_HOME and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium, headless, driven by Playwright (its own download is unreachable).

    One per test session: Playwright's sync API runs its own event loop, so two instances
    alive at once (a module's and a session's) refuse to start.
    """
    import shutil

    from playwright.sync_api import sync_playwright

    from tests.annotation.helpers import CHROMIUM, CHROMIUM_FLAGS

    if not shutil.which("chromium"):
        pytest.fail(
            "Debian chromium is required for the browser tests: apt-get install -y chromium"
        )
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield instance
        instance.close()


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


def write_unchecked_run(out: Path, rows: list[dict], family: str) -> Path:
    """A run directory holding ``rows`` as given, with a correct manifest but no value checks.

    ``write_run`` refuses invalid candidates, so this stands for a run edited by hand (or made
    by another tool) and re-manifested: what later stages must still refuse.
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from biasforge import families
    from biasforge.contract.manifest import write_manifest
    from biasforge.files import write_json_atomic

    arrow = families.get(family).schema.arrow
    frame = pd.DataFrame(rows)
    frame = frame.assign(**{n: None for n in arrow.names if n not in frame.columns})
    out.mkdir(parents=True)
    pq.write_table(
        pa.Table.from_pandas(frame, schema=arrow, preserve_index=False), out / "candidates.parquet"
    )
    rejected = arrow.append(pa.field("reasons", pa.list_(pa.string())))
    pq.write_table(rejected.empty_table(), out / "rejected.parquet")
    write_json_atomic(out / "stats.json", {"family": family, "kept": len(rows)})
    (out / "report.md").write_text("# hand-made run\n")
    write_manifest(out, "run", family=family, config={}, inputs=[])
    return out


def one_error_line(result: subprocess.CompletedProcess) -> str:
    """The single ``error:`` line of a refused command (exit 2, no traceback); progress bars
    that were drawn before the error may also be on stderr."""
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]
