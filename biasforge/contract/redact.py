"""What may be written into a published file: no secrets, no absolute paths of this machine.

Manifests, reports and dataset cards travel with a release; a URL there must not carry a
password, and a path must not reveal the user's home folder. A path is recorded as the user
gave it when relative, relative to the working folder when inside it, by its package-relative
name when it is a bundled resource, and otherwise by its file name only (its sha256, recorded
beside it, still identifies the bytes).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

#: bundled resources are named by the repository folder they ship in, whether the package runs
#: from a checkout or from site-packages, where the stages sit inside biasforge/ (so they are
#: tried before it)
_BUNDLED = {
    "curation": "biasforge.curation",
    "annotation": "biasforge.annotation",
    "exports": "biasforge.exports",
    "scoring": "biasforge.scoring",
    "biasforge": "biasforge",
}


@functools.cache
def _bundled_roots() -> tuple[tuple[str, Path], ...]:
    """(repository folder, where that package is) for each importable biasforge package."""
    from biasforge.resources import package_path

    roots = []
    for folder, package in _BUNDLED.items():
        try:
            roots.append((folder, package_path(package).resolve()))
        except ModuleNotFoundError:  # a stage whose dependencies are not installed
            continue
    return tuple(roots)


def _bundled_name(resolved: Path) -> str | None:
    """``curation/data/becpro/x.tsv`` for a file shipped in a biasforge package, else None."""
    for folder, root in _bundled_roots():
        if resolved.is_relative_to(root):
            return f"{folder}/{resolved.relative_to(root).as_posix()}".rstrip("/")
    return None


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
    bundled = _bundled_name(resolved)
    if bundled is not None:
        return bundled
    cwd = Path.cwd().resolve()
    too_wide = {Path("/"), Path.home().resolve()}  # relative to these, a path still says too much
    if cwd not in too_wide and resolved.is_relative_to(cwd):
        return resolved.relative_to(cwd).as_posix()
    return path.name


def is_public_path(text: str) -> bool:
    """False for text that names an absolute path under this user's home or temp folders."""
    private = [str(Path.home()), os.environ.get("TMPDIR", "/tmp")]
    return not any(root and root != "/" and root in text for root in private)
