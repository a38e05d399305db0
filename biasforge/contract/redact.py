"""What may be written into a published file: no secrets, no absolute paths of this machine.

Manifests, reports and dataset cards travel with a release; a URL there must not carry a
password, and a path must not reveal the user's home folder. A path is recorded as the user
gave it when relative, relative to the working folder when inside it, by its package-relative
name when it is a bundled resource, and otherwise by its file name only (its sha256, recorded
beside it, still identifies the bytes).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

_REPO_ROOT = Path(__file__).resolve().parents[2]  # where the packages are installed from


def public_url(url: str | None) -> str | None:
    """``url`` without user name or password (``http://user:pw@host`` → ``http://host``)."""
    if not url:
        return url
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def public_path(path: str | Path) -> str:
    """A path safe to publish (see the module docstring)."""
    path = Path(path)
    if not path.is_absolute():
        return path.as_posix()
    resolved = path.resolve()
    too_wide = {Path("/"), Path.home().resolve()}  # relative to these, a path still says too much
    for base in (_REPO_ROOT, Path.cwd().resolve()):
        if base not in too_wide and resolved.is_relative_to(base):
            return resolved.relative_to(base).as_posix()
    return path.name


def is_public_path(text: str) -> bool:
    """False for text that names an absolute path under this user's home or temp folders."""
    private = [str(Path.home()), os.environ.get("TMPDIR", "/tmp")]
    return not any(root and root != "/" and root in text for root in private)
