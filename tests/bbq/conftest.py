"""BBQ is not a registered family yet: the ``curate bbq`` tests install it as a package would
be (a ``biasforge.families`` entry point on the path of the test and of the commands it runs,
each command a process of its own), as the toy family's tests do."""

from __future__ import annotations

import pytest

from biasforge import families
from tests.helpers import install_family


@pytest.fixture
def bbq_installed(tmp_path, monkeypatch):
    site = install_family(
        tmp_path / "site", monkeypatch, "biasforge-bbq", "bbq = biasforge.families.bbq:FAMILY"
    )
    assert "bbq" in families.discover()
    yield site
    families.unregister("bbq")
