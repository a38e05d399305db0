"""The table of biasforge's patches to argilla-server (annotation/server/patches.py): every row
matches the installed argilla-server, and a server whose Argilla moved under a patch refuses to
start with one line naming the target."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from biasforge.annotation.admin.paths import server_code_dir
from biasforge.annotation.admin.serve import free_port
from biasforge.annotation.admin.server_env import ensure_server_venv
from tests.annotation.conftest import ROOT

CHECK_ALL = """
import json, sys
sys.path.insert(0, sys.argv[1])
import patches
rows = []
for patch in patches.PATCHES:
    patches.check(patch)
    for reference in (patch.replace, patch.install):
        if reference:  # the replacement's module (overrides/...) is there and defines it
            patches._function(reference)
    rows.append([patch.target, patch.group])
print(json.dumps({"rows": rows, "groups": sorted(patches.GROUPS)}))
"""


def server_env(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGILLA_", "PYTHON"))}
    env["TMPDIR"] = str(tmp_path)
    env["ARGILLA_DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"
    return env


def test_every_row_matches_the_installed_argilla_server(tmp_path):
    python = ensure_server_venv(quiet=True)
    result = subprocess.run(
        [str(python), "-c", CHECK_ALL, str(server_code_dir())],
        env=server_env(tmp_path), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout)
    targets = {target for target, _ in found["rows"]}
    assert len(targets) >= 20
    assert {group for _, group in found["rows"]} == set(found["groups"])  # no empty group


def wrapped_venv(real_python: Path, folder: Path, sitecustomize: str) -> Path:
    """A venv folder whose python is the server venv's with ``sitecustomize`` run first (what
    an argilla-server whose internals moved looks like to the launcher)."""
    real = real_python.parent.parent
    hooks = folder / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "sitecustomize.py").write_text(sitecustomize)
    (folder / "bin").mkdir()
    python = folder / "bin" / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{hooks}" exec "{real_python}" "$@"\n')
    python.chmod(0o755)
    (folder / "lib").symlink_to(real / "lib")
    stamp = "biasforge-requirements.json"
    (folder / stamp).write_text((real / stamp).read_text())
    return folder


MOVED = {
    "renamed": (
        "argilla_server.contexts.accounts:authenticate_user",
        "import argilla_server.contexts.accounts as a\n"
        "a.authenticate_user_v2 = a.authenticate_user\ndel a.authenticate_user\n",
        "is missing",
    ),
    "new signature": (
        "argilla_server.contexts.datasets:get_dataset_progress",
        "import argilla_server.contexts.datasets as d\n_old = d.get_dataset_progress\n"
        "async def get_dataset_progress(db, search_engine, dataset, user=None):\n"
        "    return await _old(db, search_engine, dataset)\n"
        "d.get_dataset_progress = get_dataset_progress\n",
        "has the signature (db, search_engine, dataset, user=None)",
    ),
}


@pytest.mark.parametrize("case", sorted(MOVED))
def test_a_moved_target_stops_the_server_with_one_line_naming_it(case, tmp_path):
    target, hook, problem = MOVED[case]
    venv = wrapped_venv(ensure_server_venv(quiet=True), tmp_path / "venv", hook)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ARGILLA_")},
        "BIASFORGE_HOME": str(tmp_path / "home"),
        "BIASFORGE_ARGILLA_VENV": str(venv),
    }
    data = tmp_path / "data"
    result = subprocess.run(
        [sys.executable, "-m", "biasforge.cli", "annotate", "serve", "--data-dir", str(data),
         "--port", str(free_port()), "--no-worker"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: argilla-server patch target {target} {problem}")
    assert "2.8.0" in lines[0] and "Traceback" not in result.stderr
    assert not (data / "server.json").exists()
