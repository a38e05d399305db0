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


def in_server_venv(script: str, tmp_path: Path) -> str:
    """What ``script`` prints, run by the server venv's Python with the server's code first on
    its path (``sys.argv[1]``); a failure shows the end of its stderr."""
    result = subprocess.run(
        [str(ensure_server_venv(quiet=True)), "-c", script, str(server_code_dir())],
        env=server_env(tmp_path), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_every_row_matches_the_installed_argilla_server(tmp_path):
    found = json.loads(in_server_venv(CHECK_ALL, tmp_path))
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


HUB_AT_FIRST_USE = """
import sys
sys.path.insert(0, sys.argv[1])
import launcher  # defers the Hub jobs, as in every server process
launcher.install_patches()
from argilla_server import app
from argilla_server.jobs import hub_jobs
heavy = ("datasets", "pandas", "pyarrow", "PIL")
print("at start:", sorted(m for m in heavy if m in sys.modules))
try:
    hub_jobs.export_dataset_to_hub_job.delay(name="x/y", subset="default", split="train",
                                             private=True, token="hf_none", dataset_id=None)
except Exception as refused:
    print("export:", type(refused).__name__, refused)
print("after:", sorted(m for m in heavy if m in sys.modules))
"""


def test_the_hub_jobs_load_at_their_first_use_and_push_to_hub_is_still_refused(tmp_path):
    """patches.DEFERRED: a server process no longer loads datasets, pandas, pyarrow and PIL at
    start (0.7 s of CPU and 100 MB each); the Hub job, loaded when first used, is refused."""
    lines = in_server_venv(HUB_AT_FIRST_USE, tmp_path).splitlines()
    assert lines[0] == "at start: []"
    assert lines[1].startswith("export: UnprocessableEntityError Push to Hub is disabled")
    assert lines[2] == "after: ['PIL', 'datasets', 'pandas', 'pyarrow']"


SOURCE_CHECK = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import patches
patches.deferred.defer(["later.jobs"])
found = {}
for target, signature in (("later.jobs:job", "(a, b=1, *, c)"), ("later.jobs:job", "(a)"),
                          ("later.jobs:gone", "(a)")):
    try:
        patches.check(patches.Patch(target, signature, "product"))
        found[f"{target} {signature}"] = "ok"
    except patches.TargetChanged as changed:
        found[f"{target} {signature}"] = str(changed).split(" (biasforge")[0]
print(json.dumps([found, "expensive" in sys.modules, type(sys.modules["later.jobs"]).__name__]))
"""


def test_a_deferred_target_is_checked_from_its_source_without_running_it(tmp_path):
    """A row of a deferred module is checked at start from the module's source (its code, here
    an import that would fail, does not run), and a moved target still stops the start."""
    package = tmp_path / "code" / "later"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "jobs.py").write_text(
        "import expensive  # not installed: running the module would fail\n\n"
        "@expensive.job\nasync def job(a: int, b: int = 1, *, c: str) -> None:\n    pass\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", SOURCE_CHECK, str(server_code_dir()), str(tmp_path / "code")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    found, imported, kind = json.loads(result.stdout)
    prefix = "argilla-server patch target"
    assert found == {
        "later.jobs:job (a, b=1, *, c)": "ok",
        "later.jobs:job (a)": f"{prefix} later.jobs:job has the signature (a, b=1, *, c), "
        "expected (a)",
        "later.jobs:gone (a)": f"{prefix} later.jobs:gone is missing (module 'later.jobs' has "
        "no attribute 'gone')",
    }
    assert (imported, kind) == (False, "_LazyModule")
