"""Semantic versions of releases: validated, ordered, and never reused.

A release folder is named by its version (``releases/NAME/1.2.0``). Versions follow
Semantic Versioning 2.0.0 (https://semver.org): ``MAJOR.MINOR.PATCH`` with an optional
pre-release (``1.0.0-rc.1``). Build metadata (``+…``) is refused: semver ignores it when
ordering, so ``1.0.0+a`` and ``1.0.0+b`` would be two different releases of the same version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import total_ordering
from pathlib import Path

from biasforge.errors import BiasforgeError
from biasforge.files import MANIFEST

# The regular expression recommended by semver.org, without the build-metadata part.
_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?$"
)


@total_ordering
@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    prerelease: tuple[str, ...] = ()

    def __str__(self) -> str:
        core = f"{self.major}.{self.minor}.{self.patch}"
        return core + ("-" + ".".join(self.prerelease) if self.prerelease else "")

    def _key(self) -> tuple:
        # A release sorts after its pre-releases; numeric identifiers sort before alphanumeric.
        pre = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.prerelease)
        return (self.major, self.minor, self.patch, 0 if self.prerelease else 1, pre)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() < other._key()


def parse_version(text: str) -> Version:
    """Parse ``X.Y.Z`` (optionally ``-prerelease``); raise a clear error otherwise."""
    match = _SEMVER.fullmatch(text)  # no strip: "1.0.0\n" is not a version (nor a folder name)
    if not match:
        hint = " (build metadata '+…' is not allowed)" if "+" in text else ""
        raise BiasforgeError(
            f"invalid version {text!r}: expected a semantic version MAJOR.MINOR.PATCH "
            f"such as 1.0.0 or 1.1.0-rc.1{hint}"
        )
    major, minor, patch, pre = match.groups()
    return Version(int(major), int(minor), int(patch), tuple(pre.split(".")) if pre else ())


def existing_versions(name_dir: str | Path) -> dict[Version, Path]:
    """Finished releases under ``releases/NAME``: folders named by a valid version that hold a
    manifest (staging folders are hidden and never count)."""
    name_dir = Path(name_dir)
    found: dict[Version, Path] = {}
    if not name_dir.is_dir():
        return found
    for child in name_dir.iterdir():
        if child.name.startswith(".") or not (child / MANIFEST).is_file():
            continue
        try:
            found[parse_version(child.name)] = child
        except BiasforgeError:
            continue
    return found


def previous_version(name_dir: str | Path, version: Version) -> tuple[Version, Path] | None:
    """The highest finished release lower than ``version``, if any."""
    lower = [(v, p) for v, p in existing_versions(name_dir).items() if v < version]
    return max(lower, key=lambda vp: vp[0]) if lower else None
