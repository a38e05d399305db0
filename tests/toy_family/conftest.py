"""The toy family is installed as a third-party package would be: a distribution whose
``biasforge.families`` entry point names :data:`tests.toy_family.FAMILY`, on the path of this
process (for push and pull) and of every ``biasforge`` command the test runs."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from biasforge import families
from tests import conftest
from tests.helpers import server_biasforge_home  # noqa: F401  (the toy's review uses the server)

REPO = Path(__file__).resolve().parents[2]
ENTRY_POINTS = "[biasforge.families]\ntoy = tests.toy_family:FAMILY\n"


@pytest.fixture
def toy_installed(tmp_path, monkeypatch):
    """A ``biasforge-toy`` dist-info on sys.path and PYTHONPATH; gone again afterwards."""
    site = tmp_path / "site"
    info = site / "biasforge_toy-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: biasforge-toy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    path = os.pathsep.join([str(site), str(REPO), os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", path.rstrip(os.pathsep))
    assert "toy" in families.discover()
    yield site
    families.unregister("toy")


def run_cli(*args: object, **kwargs):
    """A process of its own for each command: the toy family is a package the test installs
    (``toy_installed``), read from its entry point when a command starts, as for a user."""
    return conftest.run_cli(*args, process=True, **kwargs)
