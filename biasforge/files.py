"""File-level guarantees shared by every stage.

A run directory or a release either exists complete or does not exist at all: writers fill a
hidden sibling staging directory and rename it into place as the very last step (a rename on
the same filesystem is atomic), so a crash leaves a ``.NAME.partial-*`` folder that no reader
mistakes for finished work, and that the next writer beside it removes once its writer is gone.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from biasforge.errors import OutputExistsError

# Every folder biasforge writes ends with this file (see biasforge.contract.manifest, which
# writes and verifies it); named here because replacing a folder asks whether biasforge wrote it.
MANIFEST = "manifest.json"


def sha256_file(path: str | Path, chunk_size: int = 1 << 20) -> str:
    """Hex sha256 of a file, read in chunks so large files never sit in memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def stable_id(*parts: str, length: int = 16) -> str:
    """Deterministic id from its parts: the same inputs give the same id on every machine."""
    joined = "\x1f".join(parts)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:length]


def _umask_mode(base: int = 0o666) -> int:
    """The mode a plain ``open(path, "w")`` (base 0o666) or ``mkdir`` (base 0o777) would give
    under the current umask."""
    mask = os.umask(0)
    os.umask(mask)
    return base & ~mask


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write a text file so that readers see the old content or the new one, never half.

    The file gets the permissions an ordinary write would (mkstemp alone would make every
    report private, 0600); secrets are written by their own 0600 writers, not through here.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, _umask_mode())
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Atomic JSON write with stable key order, so reruns give byte-identical files."""
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n")


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (one we may not signal still counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _host() -> str:
    """This machine's name as it goes into a staging folder's name (letters, digits, _)."""
    return re.sub(r"[^A-Za-z0-9]", "_", socket.gethostname())[:40] or "_"


def _temporary(final: Path, kind: str) -> Path:
    """A new hidden ``.NAME.KIND-PID@HOST-…`` folder beside ``final`` (``partial``: staging,
    ``old``: the replaced folder on its way out)."""
    prefix = f".{final.name}.{kind}-{os.getpid()}@{_host()}-"
    return Path(tempfile.mkdtemp(prefix=prefix, dir=final.parent))


# .NAME.partial-PID@HOST-… (HOST absent in the folders of older versions: this host's)
_LEFTOVER = re.compile(r"\.(?P<name>.+)\.(?:partial|old)-(?P<pid>\d+)(?:@(?P<host>\w+))?-.+")


def _abandoned(path: Path) -> str | None:
    """The NAME whose staging or trash folder ``path`` is, if the writer that made it is gone:
    its pid runs no process on this host (a folder of another host's writer is left alone)."""
    match = _LEFTOVER.fullmatch(path.name)
    if not match or match["host"] not in (None, _host()) or pid_alive(int(match["pid"])):
        return None
    return match["name"]


def clean_leftovers(final: Path, *, siblings: bool = False) -> list[Path]:
    """Remove the staging and trash folders that a crashed writer of ``final`` (with
    ``siblings``: of any folder beside it, as the versions of a release) left behind.

    Their names carry the writer's pid and host (``.NAME.partial-PID@HOST-…``); only those of
    processes that are gone are removed, so a writer still at work is never disturbed.
    """
    removed = []
    pattern = ".*" if siblings else f".{glob.escape(final.name)}.*-*-*"
    for path in final.parent.glob(pattern):
        name = _abandoned(path)
        if name is not None and (siblings or name == final.name):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


# The swap lock of each parent directory this process holds: (device, inode) -> [fd, depth].
# ``flock`` is per open file, so a second ``open`` + ``flock`` of the same directory by the
# holder would wait for itself; a holder that checks a folder again (the swap reads the
# manifest it replaces) enters again instead. The RLock keeps other threads out meanwhile.
_HELD: dict[tuple[int, int], list[int]] = {}
_THREAD_LOCKS: dict[tuple[int, int], threading.RLock] = {}
_GUARD = threading.Lock()


@contextlib.contextmanager
def swap_lock(final: str | Path) -> Iterator[None]:
    """Serialise writers of ``final`` with whoever reads what it holds meanwhile.

    A writer holds it for its swap (old folder out, new one in); a check of whether ``final``
    may be replaced holds it while it reads the manifest and the files, so it never sees a
    swap half-way. The lock is taken on the parent directory itself, so no lock file is left
    behind; the swap is two renames, so writers of sibling folders wait only for an instant.
    It is re-entrant in one thread: a check made under it takes it again.
    """
    parent = Path(final).parent
    fd = os.open(parent, os.O_RDONLY)
    info = os.fstat(fd)
    key = (info.st_dev, info.st_ino)
    with _GUARD:
        thread_lock = _THREAD_LOCKS.setdefault(key, threading.RLock())
    with thread_lock:
        held = _HELD.get(key)
        if held is not None:  # this thread holds it already
            os.close(fd)
            held[1] += 1
        else:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
            held = _HELD[key] = [fd, 1]
        try:
            yield
        finally:
            held[1] -= 1
            if held[1] == 0:
                del _HELD[key]
                os.close(held[0])  # closing releases the lock


def _every_file(folder: Path) -> list[str]:
    """Every file, link (to a file, a folder or nowhere) and empty folder under ``folder``,
    without following links: whatever replacing the folder would delete."""
    found = []
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        links = [d for d in dirs if (here / d).is_symlink()]
        empty = [d for d in dirs if d not in links and not any((here / d).iterdir())]
        found += [(here / name).relative_to(folder).as_posix() for name in files + links + empty]
    return sorted(found)


# How ``--overwrite`` reads the manifest of a folder it may replace: the contract's reader
# (``biasforge.contract.manifest.Manifest``), handed down when the contract is imported, as the
# family registry hands down its names. The contract builds on this module, so this module
# never imports it, and never parses a manifest itself.
_manifest_reader: Callable[[Path], Mapping[str, Any] | str] | None = None


def use_manifest_reader(reader: Callable[[Path], Mapping[str, Any] | str]) -> None:
    """Read folders' manifests with ``reader``: the manifest, or why there is none."""
    global _manifest_reader
    _manifest_reader = reader


def _manifest_of(folder: Path) -> Mapping[str, Any] | str:
    """The manifest biasforge left in ``folder``, or why there is none."""
    if _manifest_reader is None:
        raise RuntimeError("import biasforge.contract first: it reads manifests")
    return _manifest_reader(folder)


_BYTECODE = re.compile(r"(?:(.*)/)?__pycache__/([^/.]+)\.[^/]*\.pyc")


def _bytecode_of(name: str, files: dict) -> bool:
    """Whether ``name`` is Python's byte-code cache of a module biasforge wrote (an lm-eval
    task folder's ``utils.py`` once lm-eval imported it): derived, not the user's."""
    match = _BYTECODE.fullmatch(name)
    if not match:
        return False
    parent = f"{match.group(1)}/" if match.group(1) else ""
    return f"{parent}{match.group(2)}.py" in files


def replaceable_problem(
    folder: Path, kind: str | None = None, family: str | None = None
) -> str | None:
    """Why ``folder`` is not a folder biasforge wrote and may replace, or None if it is.

    It must be a directory with a manifest (of ``kind`` and ``family`` when given: a run of
    one family never replaces a run of another) that lists every file in it, each unchanged.
    A user's own file inside, or an edited one, makes it theirs. The manifest is read by the
    contract's reader (``use_manifest_reader``). It reads under the writers' swap lock, so a
    concurrent writer's swap is never read half-way (the old manifest, then a new file).
    """
    return replaceable_manifest(folder, kind, family)[0]


def replaceable_manifest(
    folder: Path, kind: str | None = None, family: str | None = None
) -> tuple[str | None, Mapping[str, Any]]:
    """:func:`replaceable_problem`'s answer and the manifest it read (empty where there is
    none), both from one read under the lock: a caller that asks more of the manifest (an
    export's format, a pull's dataset) asks it of the folder that was checked."""
    folder = Path(folder)
    with swap_lock(folder):
        manifest = {} if folder.is_symlink() or not folder.is_dir() else _manifest_of(folder)
        problem = _problem_of(folder, manifest, kind, family)
    return problem, manifest if isinstance(manifest, Mapping) else {}


def _problem_of(
    folder: Path, manifest: Mapping[str, Any] | str, kind: str | None, family: str | None
) -> str | None:
    if folder.is_symlink() or not folder.is_dir():
        return "is not a folder biasforge wrote (it is a file or a link)"
    if isinstance(manifest, str):
        files = [name for name in _every_file(folder) if name != MANIFEST]
        holds = f"holds {files[0]}, and " if files else ""
        return f"{holds}is not a folder biasforge wrote ({manifest})"
    found = manifest.get("kind")
    if kind is not None and found is not None and found != kind:
        return f"holds a biasforge {found}, not a {kind}"
    named = manifest.get("family")
    if family is not None and named != family:
        return (
            f"holds a biasforge {found or kind or 'folder'} of {named or 'no family'}, not {family}"
        )
    files = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    for name in _every_file(folder):
        if name == MANIFEST or _bytecode_of(name, files):
            continue
        if name not in files:
            return f"holds {name}, which biasforge did not write"
        if (folder / name).is_symlink() or sha256_file(folder / name) != files[name]:
            return f"{name} changed since biasforge wrote it"
    return None


def _refuse_unless_replaceable(final: Path, kind: str | None, family: str | None = None) -> None:
    problem = replaceable_problem(final, kind, family)
    if problem:
        raise OutputExistsError(
            f"{final}: {problem}; --overwrite only replaces what biasforge wrote, of the same kind "
            "and family"
        )


def overlap(path: str | Path, other: str | Path) -> str | None:
    """How ``path`` stands to ``other`` once both are resolved (links followed): "is",
    "holds" or "lies in"; None when neither contains the other."""
    a, b = Path(path).resolve(), Path(other).resolve()
    if a == b:
        return "is"
    if a in b.parents:
        return "holds"
    return "lies in" if b in a.parents else None


def check_not_input(final: str | Path, inputs: Iterable[str | Path]) -> None:
    """Refuse an output that is one of the command's ``inputs``, holds one, or lies inside
    one: no command writes over or into what it reads, ``--overwrite`` or not. Inputs that do
    not exist (a Hub id) are skipped."""
    for given in inputs:
        exists = Path(given).exists() or Path(given).is_symlink()
        how = overlap(final, given) if exists else None
        if how:
            raise OutputExistsError(
                f"--out {final}: {how} the input {given}; a command never writes over or into "
                "its own input: choose another --out"
            )


def check_replaceable(
    final: str | Path,
    *,
    overwrite: bool = False,
    kind: str | None = None,
    family: str | None = None,
) -> None:
    """Refuse ``final`` as an output unless it is free, or ``overwrite`` is set and it is a
    folder biasforge wrote (of ``kind`` and ``family``), unchanged since. Commands call it
    before their work too, so a refusal never comes after an hour of it."""
    final = Path(final)
    if final.exists() or final.is_symlink():
        if not overwrite:
            raise OutputExistsError(
                f"{final} already exists; choose another --out or pass --overwrite to replace it"
            )
        # under the writers' swap lock: a concurrent writer's swap (old folder out, new one
        # in) read half-way would look like a folder whose files changed since its manifest
        with swap_lock(final):
            if final.exists() or final.is_symlink():
                _refuse_unless_replaceable(final, kind, family)


@contextlib.contextmanager
def staged_directory(
    final: str | Path,
    *,
    overwrite: bool = False,
    kind: str | None = None,
    family: str | None = None,
    inputs: Iterable[str | Path] = (),
) -> Iterator[Path]:
    """Yield an empty staging directory that becomes ``final`` only if the block succeeds.

    ``final`` must not exist unless ``overwrite`` is set, and even then it is replaced only
    when it is a folder biasforge wrote (of ``kind`` and ``family``, when given), unchanged
    since: anything else at ``--out`` is the user's and is never deleted, and so is any of the
    command's ``inputs``. The old folder is removed only after the new one is complete, under
    a lock shared with concurrent writers.
    """
    final, inputs = Path(final), tuple(inputs)
    check_not_input(final, inputs)  # before anything is made beside (or inside) an input
    final.parent.mkdir(parents=True, exist_ok=True)
    clean_leftovers(final)
    check_replaceable(final, overwrite=overwrite, kind=kind, family=family)
    staging = _temporary(final, "partial")
    os.chmod(staging, _umask_mode(0o777))  # mkdtemp makes it 0700
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    with swap_lock(final):
        _swap_into_place(staging, final, overwrite, (kind, family))


def _swap_into_place(
    staging: Path, final: Path, overwrite: bool, what: tuple[str | None, str | None]
) -> None:
    if final.exists() or final.is_symlink():
        try:
            if not overwrite:
                raise OutputExistsError(f"{final} appeared while this one was being written")
            _refuse_unless_replaceable(final, *what)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        trash = _temporary(final, "old")
        os.replace(final, trash / final.name)
        os.replace(staging, final)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        os.replace(staging, final)
