"""Single files that ``export convert`` writes, and the rule for writing over one.

Beside each written file ``OUT`` lies a marker ``.OUT.biasforge.json`` naming the kind
(``export``), the format, the family of the items and the sha256 of the bytes written.
``--overwrite`` replaces a file only when its marker says biasforge wrote it in the same format
from items of the same family and it is unchanged since:
never a file of a run, reviewed folder or release, never the command's own input, never a
user's file (a file without a marker, or edited since). A format that writes a folder (lm-eval
task folders) records the same in the folder's manifest (kind ``export``, ``format``,
``family``, every file's sha256): ``--overwrite`` replaces such a folder only when all agree.
"""

from __future__ import annotations

import json
from pathlib import Path

from biasforge.errors import BiasforgeError, OutputExistsError
from biasforge.files import (
    MANIFEST,
    check_not_input,
    replaceable_manifest,
    sha256_file,
    swap_lock,
    write_json_atomic,
)

KIND = "export"


def marker_of(out: Path) -> Path:
    return out.with_name(f".{out.name}.biasforge.json")


def _inside_folder(out: Path) -> Path | None:
    """The biasforge folder (run, reviewed records, release) that ``out`` would land in."""
    for folder in list(out.parents)[:3]:
        if (folder / MANIFEST).is_file():
            return folder
    return None


def _written_by_us(out: Path, format: str, family: str) -> str | None:
    """Why ``out`` is not an earlier output of ``format`` from ``family`` items that biasforge
    wrote; None if it is. Read under the lock ``export convert`` holds while it writes the
    file and its marker (``swap_lock``), never the new file against the old marker."""
    with swap_lock(out):
        return _marker_problem(out, format, family)


def _marker_problem(out: Path, format: str, family: str) -> str | None:
    try:
        marker = json.loads(marker_of(out).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "biasforge did not write it (no marker beside it)"
    if not isinstance(marker, dict) or marker.get("kind") != KIND:
        return "biasforge did not write it (no valid marker beside it)"
    if marker.get("format") != format:
        return f"it holds {marker.get('format')!r}, not {format!r}"
    if marker.get("family") != family:
        return f"it holds {marker.get('family') or 'unknown'} items, not {family}"
    if out.is_symlink() or sha256_file(out) != marker.get("sha256"):
        return "it changed since biasforge wrote it"
    return None


def check_output(
    out: Path, format: str, source: Path, overwrite: bool, family: str, folder: bool = False
) -> None:
    """Refuse an ``--out`` that would write over an input or anything not ours to replace
    (an output of another format or of another ``family``'s items); ``folder``: the format
    writes a folder (``folder_problem``) rather than a file."""
    target, given = out.resolve(), source.resolve()
    if folder:
        check_not_input(out, [source])
    elif out.is_dir():
        raise BiasforgeError(f"--out {out}: is a folder; give the path of the file to write")
    elif target == given or given in target.parents:
        raise BiasforgeError(f"--out {out}: lies in the input {source}; write it elsewhere")
    holder = _inside_folder(target)
    if holder is not None:
        raise BiasforgeError(
            f"--out {out}: lies in the biasforge folder {holder} (a run, reviewed records or "
            "release is never written into); write it elsewhere"
        )
    if not (out.exists() or out.is_symlink()):
        return
    if not overwrite:
        raise OutputExistsError(f"{out} already exists; pass --overwrite to replace it")
    problem = (folder_problem if folder else _written_by_us)(out, format, family)
    if problem:
        raise OutputExistsError(
            f"{out}: {problem}; --overwrite only replaces an earlier {format} output of "
            f"{family} items"
        )


def folder_problem(out: Path, format: str, family: str) -> str | None:
    """Why the folder ``out`` is not an earlier ``format`` output of ``family`` items that
    biasforge wrote and nobody changed since (its manifest: kind ``export``, the format, the
    family, every file's sha256); None if it is."""
    problem, manifest = replaceable_manifest(out, KIND, family)
    if problem:
        return problem
    found = manifest.get("format")
    return None if found == format else f"it holds {found!r}, not {format!r}"


def mark_output(out: Path, format: str, family: str) -> None:
    """Record beside ``out`` that biasforge wrote it, in which format, from which family's
    items, with which bytes."""
    marker = {"kind": KIND, "format": format, "family": family, "sha256": sha256_file(out)}
    write_json_atomic(marker_of(out), marker)
