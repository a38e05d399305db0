"""The package as a researcher installs it: a wheel in a fresh virtualenv that already holds a
torch, used from a folder outside the checkout.

Built once per session (sdist + wheel, ``twine check``); the venv gets torch first (standing in
for the user's own GPU build), then the wheel alone (to see exactly what it adds to
site-packages), then its ``scoring`` extra. Everything runs through the installed ``biasforge``
command with a clean environment (no PYTHONPATH, cwd outside the repository), so a data file
found through ``__file__`` of the checkout, or an import from ``tests/``, would fail here.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.becpro.test_english import PUBLISHED_ROWS, read_tsv
from tests.conftest import run_cli
from tests.scoring.conftest import (
    stereoset_items,
    stereoset_release,
)

REPO = Path(__file__).resolve().parents[2]
#: sha256 of the published BEC-Pro_EN.tsv (Bartl et al. 2020), checked against the published
#: file when the English pipeline was first built (see tests/becpro/test_english.py for rows)
PUBLISHED_SHA256 = "228b44c62d7830fec13a1eee52bbe8afff82be455abb9d8a07c17d9d0b48e20f"
TORCH = "torch==2.13.0"  # the CPU build ./dev installs; in the venv it plays the user's own torch


def _run(argv: list, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    result = subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"{argv}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def _torch_fingerprint(site: Path) -> str:
    """The installed torch's version and its RECORD (every file with its hash)."""
    (info,) = site.glob("torch-*.dist-info")
    return info.name + hashlib.sha256((info / "RECORD").read_bytes()).hexdigest()


@dataclass
class Installed:
    dist: Path
    venv: Path
    site: Path
    added_by_wheel: set[str]
    torch_before: str
    work: Path

    @property
    def biasforge(self) -> Path:
        return self.venv / "bin" / "biasforge"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    dist, venv, work = root / "dist", root / "venv", root / "work"
    work.mkdir()
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, REPO], cwd=root)
    _run([sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir())], cwd=root)
    (wheel,) = dist.glob("biasforge-*.whl")
    _run([sys.executable, "-m", "venv", venv], cwd=root)
    # --no-compile: byte-compiling torch, transformers and scipy was most of the fixture's CPU
    # time; nothing here depends on it (Python compiles what it imports, as for any user)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-compile"]
    _run([*pip, TORCH], cwd=root)
    (site,) = (venv / "lib").glob("python3*/site-packages")
    before = {p.name for p in site.iterdir()}
    torch_before = _torch_fingerprint(site)
    _run([*pip, "--no-deps", wheel], cwd=root)
    added = {p.name for p in site.iterdir()} - before
    _run([*pip, f"{wheel}[scoring]"], cwd=root)
    return Installed(dist, venv, site, added, torch_before, work)


def test_the_wheel_holds_every_folder_with_an_init(installed):
    """Packages are discovered (setup.py applies pyproject's package-dir mapping to
    find_packages), not listed by hand: every package folder of the checkout, and no other
    one, is in the installed wheel under the biasforge namespace."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert "packages" not in config  # no hand-kept list to forget a new subpackage in
    expected = set()
    for name, folder in config["package-dir"].items():
        for init in (REPO / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(REPO / folder)
            expected.add(".".join([name, *relative.parts]))
    installed_packages = {
        ".".join(init.parent.relative_to(installed.site).parts)
        for init in (installed.site / "biasforge").rglob("__init__.py")
    }
    assert installed_packages == expected, sorted(installed_packages ^ expected)


def test_the_wheel_ships_no_test_fake(installed):
    """The offline DeepL stand-in serves the demo and the tests from the checkout (tests/),
    never from an installed biasforge."""
    assert not list((installed.site / "biasforge").rglob("*fake*"))


def test_sdist_and_wheel_build_and_pass_twine(installed):
    names = sorted(p.name for p in installed.dist.iterdir())
    assert sorted(n.rsplit(".", 1)[-1] for n in names) == ["gz", "whl"], names


def test_the_wheel_adds_one_import_name_and_keeps_the_users_torch(installed):
    assert installed.added_by_wheel == {"biasforge", "biasforge-0.1.0.dist-info"}
    assert _torch_fingerprint(installed.site) == installed.torch_before
    python = installed.venv / "bin" / "python"
    for generic in ("curation", "annotation", "exports", "scoring"):
        probe = _run([python, "-c", f"import importlib.util as u; print(u.find_spec('{generic}'))"],
                     cwd=installed.work)  # fmt: skip
        assert probe.stdout.strip() == "None", generic


def test_installed_command_builds_the_published_english_becpro(installed, tmp_path):
    _run([installed.biasforge, "--help"], cwd=installed.work)
    _run([installed.biasforge, "curate", "becpro", "--lang", "en", "--out", "becpro-en"],
         cwd=installed.work)  # fmt: skip
    _run([installed.biasforge, "export", "convert", "becpro-en", "--format", "becpro-tsv",
          "--out", "BEC-Pro_EN.tsv"], cwd=installed.work)  # fmt: skip
    tsv = installed.work / "BEC-Pro_EN.tsv"
    rows = read_tsv(tsv)
    for index, expected in PUBLISHED_ROWS.items():  # copied by hand from the published file
        assert rows[index + 1] == [str(index), *expected], f"row {index}"
    run_cli("curate", "becpro", "--lang", "en", "--out", tmp_path / "en")
    run_cli("export", "convert", tmp_path / "en", "--format", "becpro-tsv", "--out",
            tmp_path / "checkout.tsv")  # fmt: skip
    assert tsv.read_bytes() == (tmp_path / "checkout.tsv").read_bytes()
    assert hashlib.sha256(tsv.read_bytes()).hexdigest() == PUBLISHED_SHA256
    manifest = json.loads((installed.work / "becpro-en" / "manifest.json").read_text("utf-8"))
    assert sorted(i["path"] for i in manifest["inputs"]) == [
        f"curation/data/becpro/{n}"
        for n in (
            "en/language.toml",
            "en/persons.tsv",
            "en/professions.tsv",
            "en/templates.tsv",
            "professions.tsv",
        )
    ]


def test_installed_command_scores_stereoset_with_a_local_model(installed, tiny_models):
    release = stereoset_release(stereoset_items(), installed.work / "rel")
    out = installed.work / "scores"
    _run([installed.biasforge, "score", "stereoset", "--dataset", release, "--model",
          tiny_models["masked"], "--out", out, "--no-progress"], cwd=installed.work)  # fmt: skip
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    predictions = json.loads((folder / "predictions.json").read_text("utf-8"))
    assert len(predictions["intrasentence"]) == 15 and len(predictions["intersentence"]) == 9
    assert _torch_fingerprint(installed.site) == installed.torch_before


def test_the_lm_eval_extra_keeps_the_users_torch(installed):
    """``biasforge[lm-eval]`` resolved where the user's torch and the scoring extra already
    are (``pip install --dry-run --report``): it installs no torch, and changes no installed
    version but python-dateutil's (lm-eval's typepy holds it below 3; pandas accepts 2.8.2+)."""
    (wheel,) = installed.dist.glob("biasforge-*.whl")
    python = installed.venv / "bin" / "python"
    report = installed.work / "lm-eval-report.json"
    _run([python, "-m", "pip", "install", "--quiet", "--dry-run", "--report", report,
          f"{wheel}[lm-eval]"], cwd=installed.work)  # fmt: skip
    planned = {
        item["metadata"]["name"].lower().replace("_", "-"): item["metadata"]["version"]
        for item in json.loads(report.read_text("utf-8"))["install"]
    }
    assert "lm-eval" in planned and "torch" not in planned
    listed = _run([python, "-m", "pip", "list", "--format", "json"], cwd=installed.work)
    have = {p["name"].lower().replace("_", "-"): p["version"] for p in json.loads(listed.stdout)}
    changed = {n for n, v in planned.items() if n in have and have[n] != v} - {"biasforge"}
    assert changed <= {"python-dateutil"}, changed
