"""``biasforge annotate serve`` as a real subprocess, for the tests that need a server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from biasforge.annotation.admin.serve import READY_PATH, pid_alive

ROOT = Path(__file__).resolve().parents[1]


class ServerProcess:
    """``biasforge annotate serve`` run as a real subprocess."""

    def __init__(self, data_dir: Path, port: int, env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.port = port
        self.env = env
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
            env=self.env or os.environ.copy(),
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

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        assert self.proc is not None
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout)
        deadline = time.monotonic() + timeout
        while any(pid_alive(pid) for pid in self.children()) and time.monotonic() < deadline:
            time.sleep(0.2)
        self.log.close()
        return code
