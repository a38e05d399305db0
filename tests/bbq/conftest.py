"""BBQ is not a registered family yet: the ``curate bbq`` tests install it as a package would
be (a ``biasforge.families`` entry point on the path of the test and of the commands it runs,
each command a process of its own), as the toy family's tests do."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from biasforge import families

REPO = Path(__file__).resolve().parents[2]
ENTRY_POINTS = "[biasforge.families]\nbbq = biasforge.families.bbq:FAMILY\n"


@pytest.fixture
def bbq_installed(tmp_path, monkeypatch):
    site = tmp_path / "site"
    info = site / "biasforge_bbq-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: biasforge-bbq\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    path = os.pathsep.join([str(site), str(REPO), os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", path.rstrip(os.pathsep))
    assert "bbq" in families.discover()
    yield site
    families.unregister("bbq")
