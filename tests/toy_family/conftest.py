"""The toy family is installed as a third-party package would be: a distribution whose
``biasforge.families`` entry point names :data:`tests.toy_family.FAMILY`, on the path of this
process (for push and pull) and of every ``biasforge`` command the test runs."""

from __future__ import annotations

import pytest

from biasforge import families
from tests import conftest
from tests.helpers import (
    install_family,
    server_biasforge_home,  # noqa: F401  (the toy's review uses the server)
)

ENTRY_POINT = "toy = tests.toy_family:FAMILY"


@pytest.fixture
def toy_installed(tmp_path, monkeypatch):
    """A ``biasforge-toy`` dist-info on sys.path and PYTHONPATH; gone again afterwards."""
    site = install_family(tmp_path / "site", monkeypatch, "biasforge-toy", ENTRY_POINT)
    assert "toy" in families.discover()
    yield site
    families.unregister("toy")


def run_cli(*args: object, **kwargs):
    """A process of its own for each command: the toy family is a package the test installs
    (``toy_installed``), read from its entry point when a command starts, as for a user."""
    return conftest.run_cli(*args, process=True, **kwargs)
