"""Small helpers the tests of several folders use (fixtures are in tests/conftest.py, but for
the one that folders of server tests import: ``server_biasforge_home``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(scope="session", name="biasforge_home")
def server_biasforge_home(server_home: Path) -> Path:
    """``biasforge_home`` where tests use the shared embedded server (tests/conftest.py:
    ``server``): its home, for the whole test process, instead of a fresh one per test. A
    folder's conftest (or a module) imports it to override the per-test one."""
    return server_home


def snapshot(folder: Path, *, hidden: bool = True) -> dict[str, str]:
    """Every path under ``folder`` (relative, links not followed) with what it holds: a file's
    sha256, a link's target (and the sha256 of the file it points at), ``dir`` for a folder.
    ``hidden=False`` leaves out paths with a part starting with a dot (lock files a command may
    leave)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if not hidden and any(part.startswith(".") for part in key.split("/")):
            continue
        if path.is_symlink():
            target = f"-> {path.readlink()}"
            found[key] = f"{target} {_sha256(path)}" if path.is_file() else target
        elif path.is_file():
            found[key] = _sha256(path)
        else:
            found[key] = "dir"
    return found


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def edit_manifest(folder: Path, edit: Callable[[dict], object]) -> Path:
    """``folder/manifest.json`` changed by ``edit`` in place (a hand edit: digests not renewed)."""
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    edit(manifest)
    path.write_text(json.dumps(manifest))
    return folder


def remanifest(folder: Path) -> Path:
    """``folder/manifest.json`` with every listed file's digest renewed: a folder edited on
    purpose that the contract must still accept as biasforge's, unchanged since written."""
    return edit_manifest(
        folder, lambda m: m["files"].update({n: _sha256(folder / n) for n in m["files"]})
    )


def alive(process) -> bool:
    """Whether a ``psutil.Process`` still runs (a zombie does not)."""
    import psutil

    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def slguset_rows(sentences, ids: str = "z{}", sources: str = "{}") -> list[dict]:
    """SlguSet candidates in the contract, one per (sentence, keyword, gender, counterpart);
    ``ids`` and ``sources`` format the item's number into its id and source id."""
    rows = []
    for n, (sentence, keyword, gender, counterpart) in enumerate(sentences):
        start = sentence.index(keyword)
        rows.append(
            {
                "id": ids.format(n),
                "family": "slguset",
                "language": "zh",
                "source_id": sources.format(n),
                "source_language": "zh",
                "source_text": sentence,
                "sentence": sentence,
                "keyword": keyword,
                "keyword_start": start,
                "keyword_end": start + len(keyword),
                "gender": gender,
                "counterpart": counterpart,
            }
        )
    return rows


def write_release(frame, root: Path, name: str, version: str, by: str | None = None) -> Path:
    """``frame`` as release ``root/name/version`` through the contract's release writer
    (manifest included: scoring verifies it), one config per value of column ``by`` (else one
    config, ``en``); returns the folder."""
    import pyarrow as pa

    from biasforge.contract.release import write_release as write_release_files

    folder = root / name / version
    folder.mkdir(parents=True)
    parts = frame.groupby(by) if by else [("en", frame)]
    configs = {key: pa.Table.from_pandas(part, preserve_index=False) for key, part in parts}
    write_release_files(
        folder, configs, card=f"# {name}\n", changelog="# Changelog\n", name=name,
        version=version, family=str(frame["family"].iloc[0]),
    )  # fmt: skip
    return folder


def score(*args: str) -> str:
    """``biasforge score ARGS --no-progress`` in this process (typer's runner), for tests of
    what the scores are; tests of the command line itself (exit codes, stderr) use
    ``run_cli`` (tests/cli_runner.py). Returns the output."""
    from typer.testing import CliRunner

    from biasforge.scoring.cli import app

    result = CliRunner().invoke(app, [*map(str, args), "--no-progress"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def install_family(site: Path, monkeypatch, dist: str, entry_point: str) -> Path:
    """A ``dist`` distribution whose ``biasforge.families`` entry point is ``entry_point``
    (``name = module:FAMILY``), on ``sys.path`` and ``PYTHONPATH`` (so the commands a test runs
    in their own process see it too) until the test ends; the ``site`` folder it lies in."""
    import importlib
    import os

    info = site / f"{dist.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[biasforge.families]\n{entry_point}\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    repo = Path(__file__).resolve().parents[1]
    path = os.pathsep.join([str(site), str(repo), os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", path.rstrip(os.pathsep))
    return site
