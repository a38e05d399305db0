"""Secrets kept in files: JSON readable only by its owner (0600 from creation), refused when
others can read it.

The embedded server's owner credentials (``credentials.json`` in its data dir: the API key
commands use) and each dataset's private state (:mod:`biasforge.annotation.review.private_state`)
are such files. This module is biasforge's one reader and writer of them; the server's launcher
(``annotation/server/launcher.py``) runs in the server's own virtualenv, without biasforge, and
reads the credentials file with ``json`` alone. They agree on the format wherever a server
starts: the owner the launcher creates from the file is the account every command then signs
in as, with the API key :func:`owner_credentials` reads.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from biasforge.errors import BiasforgeError

#: the owner's credentials in the embedded server's data dir: username, password, API key,
#: workspace
CREDENTIALS_FILE = "credentials.json"


def write_secret_json(path: Path, data: dict[str, Any]) -> None:
    """Write JSON readable only by the owner (0600 from creation, never wider)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def read_secret_json(path: Path) -> dict[str, Any]:
    """Read a credentials file, refusing one that others can read."""
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        raise BiasforgeError(f"{path}: permissions {oct(mode)} are too open; run chmod 600 {path}")
    return json.loads(path.read_text(encoding="utf-8"))


def owner_credentials(data_dir: Path) -> dict[str, Any]:
    """The embedded server's owner credentials (``username``, ``password``, ``api_key``,
    ``workspace``) in ``data_dir``."""
    return read_secret_json(data_dir / CREDENTIALS_FILE)
