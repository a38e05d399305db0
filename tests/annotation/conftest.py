"""Fixtures of the annotation tests: the shared embedded server's home for every test here (the
server itself, ``server``, and the BEC-Pro runs are in tests/conftest.py), runs cut from others,
and where browser tests keep their screenshots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import server_biasforge_home  # noqa: F401  (every test here: the server's home)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def connection(server):
    """The shared embedded server's connection (its first workspace)."""
    from biasforge.annotation.client.connection import find_server

    return find_server(server.data_dir)


def subset_run(run_dir: Path, out: Path, n: int) -> Path:
    """A run directory with the first ``n`` candidates of another (same schema and contract)."""
    from biasforge import families
    from biasforge.contract.rundir import read_run, write_run

    run = read_run(run_dir)
    schema = families.get(str(run.candidates["family"].iloc[0])).schema
    write_run(
        out,
        candidates=run.candidates.head(n),
        rejected=run.rejected.head(0),
        schema=schema,
        stats={"candidates": n},
        report_md="# subset\n",
        inputs=[],
        config={"subset_of": str(run_dir), "n": n},
    )
    return out


def rows_run(run_dir: Path, out: Path, sentences: list[str]) -> Path:
    """A run directory holding the candidates of another run whose sentence is in
    ``sentences``, in that order (same schema and contract)."""
    from biasforge import families
    from biasforge.contract.rundir import read_run, write_run

    run = read_run(run_dir)
    frame = run.candidates.set_index("sentence", drop=False).loc[sentences].reset_index(drop=True)
    write_run(
        out,
        candidates=frame,
        rejected=run.rejected.head(0),
        schema=families.get(str(frame["family"].iloc[0])).schema,
        stats={"candidates": len(frame)},
        report_md="# selection\n",
        inputs=[],
        config={"selected_from": str(run_dir), "n": len(frame)},
    )
    return out


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory) -> Path:
    """Where browser tests keep their screenshots: $BIASFORGE_TEST_ARTIFACTS, else a
    ``screenshots`` folder in pytest's temporary base folder (kept for the last 3 runs)."""
    chosen = os.environ.get("BIASFORGE_TEST_ARTIFACTS")
    folder = Path(chosen) if chosen else tmp_path_factory.getbasetemp() / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
