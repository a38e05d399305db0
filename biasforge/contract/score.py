"""The score folder: the output of ``score <task>``, ``score merge`` and ``score
import-lm-eval``, and the input of ``score merge`` and ``score compare``.

``report.md`` and ``report.html``, the task's per-item file (one table with a ``model``
column, or ``<model>/<file>`` with ``<model>/identity.json`` for a task that keeps a folder
per model), its aggregated tables and figures, ``models.json`` (each model's identity and the
procedure it was scored with) and ``manifest.json`` (kind ``score``: the command, the release
scored, the models as given, the run options, every file's sha256). Where the release
identity lives: ``release`` = {``path``, ``name``, ``version``, ``kind``, ``sha256``,
``files``}, as ``scoring.data.dataset_identity`` gives it; folders written before it existed
carry the sha256 in ``options.dataset_sha256`` and the path in ``dataset``, and are read from
there. Written here, read here: a reader verifies the folder against its manifest first, and
folders are combined only when they scored the same release with the same command and
procedure (``check_combinable``); anything else is refused with one line.

The release identity is checked here for every combination of scored results — score folders
(``score merge``, ``score compare``), lm-eval results and the release they are imported onto
(``score import-lm-eval``, through the task metadata written by ``task_metadata``), a
predictions file in a score folder and the release it is evaluated on (``score stereoset-eval``,
``enclosing_score_folder``): name, version and the sha256
of the files (``RELEASE_IDENTITY``). Two releases that hold the same records are still two
releases. The same input given twice is refused by ``check_distinct``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasforge.contract.manifest import (
    read_json_object,
    read_manifest,
    verify_manifest,
    write_manifest,
)
from biasforge.errors import InputError
from biasforge.files import MANIFEST, overlap, write_json_atomic
from biasforge.textfiles import read_bytes

KIND = "score"
MODELS = "models.json"  # every model's identity and procedure, in order
IDENTITY = "identity.json"  # a per-model folder's identity and procedure
REPORT = "report.md"
SCORE_PACKAGES = ("biasforge", "torch", "transformers", "scipy", "pandas")
# run options that change what a figure means: folders that differ in one are not combined
SAME_OPTIONS = ("procedure", "limit", "split")
# what names a release: two folders or results combine only when all three agree
RELEASE_IDENTITY = ("name", "version", "sha256")
# where an exported lm-eval task's metadata (copied by lm-eval into its results) keeps them
TASK_METADATA = {
    "name": "biasforge_release",
    "version": "biasforge_release_version",
    "sha256": "biasforge_release_sha256",
}


def task_metadata(release: Mapping) -> dict[str, str]:
    """The release identity as an exported lm-eval task's ``metadata`` carries it."""
    return {key: str(release.get(field) or "") for field, key in TASK_METADATA.items()}


def release_of_task(metadata: Mapping) -> dict[str, str]:
    """The release identity an lm-eval task's ``metadata`` names (``task_metadata``)."""
    return {field: str(metadata.get(key) or "") for field, key in TASK_METADATA.items()}


def describe_release(release: Mapping) -> str:
    """``stereoset-fr 0.2.0 (sha256 1a2b3c4d…)``, or the path when unnamed."""
    named = " ".join(str(release.get(k) or "") for k in ("name", "version")).strip()
    label = named or str(release.get("path") or "an unnamed dataset")
    return f"{label} (sha256 {str(release.get('sha256') or '')[:12]}…)"


def check_same_release(where: str | Path, found: Mapping, expected: Mapping, other: str) -> None:
    """Refuse results of release ``found`` (at ``where``) combined with release ``expected``
    unless name, version and sha256 all agree; ``other`` says what the expected one is, for
    the message (e.g. "--dataset is", "FOLDER comes from")."""
    differ = [k for k in RELEASE_IDENTITY if str(found.get(k) or "") != str(expected.get(k) or "")]
    if differ:
        raise InputError(
            where,
            f"comes from {describe_release(found)}, but {other} "
            f"{describe_release(expected)} ({', '.join(differ)} "
            f"{'differs' if len(differ) == 1 else 'differ'}): results of different "
            "dataset versions are not combined",
        )


def check_distinct(paths: Sequence[str | Path], what: str) -> None:
    """Refuse the same ``what`` given twice (paths resolved, links followed), or one inside
    another: its results would be counted twice."""
    for number, given in enumerate(paths):
        for other in paths[:number]:
            how = overlap(given, other)
            if how:
                again = "given twice" if how == "is" else "given too"
                raise InputError(given, f"{how} the {what} {other}, {again}: it would count twice")


def write_score_manifest(
    stage: Path, command: str, release: dict, models: list[str], options: dict, family: str
) -> dict[str, Any]:
    """The manifest, written last: what was run (``command``, the ``models`` as the command
    lists them, with no path of this machine: ``ModelSpec.listed``), on which release, with
    which options and package versions. The ``family`` lets ``--overwrite`` replace only a
    score folder of the same family."""
    return write_manifest(
        stage,
        KIND,
        packages=SCORE_PACKAGES,
        command=command,
        family=family,
        dataset=release["path"],
        release=release,
        models=list(models),
        options={
            **options,
            "dataset_sha256": release.get("sha256", ""),
            "dataset_files": release["files"],
        },
    )


@dataclass(frozen=True)
class ScoreFolder:
    """A score folder read back and verified."""

    path: Path
    command: str
    release: dict
    options: dict
    models: list[dict]
    listed: list[str]  # the manifest's "models": how the command was given them (no paths)

    @property
    def names(self) -> list[str]:
        return [str(m.get("name", "")) for m in self.models]

    def describe_release(self) -> str:
        """``stereoset-fr 0.2.0 (sha256 1a2b3c4d…)`` or the path when unnamed."""
        return describe_release(self.release)


def read_score_folder(path: str | Path, command: str | None = None) -> ScoreFolder:
    """A verified score folder; one clear error when it is not one (or not of ``command``)."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(path, "not a folder (expected the --out folder of a score command)")
    manifest = verify_manifest(path, "score folder", (MODELS,), kind=KIND)
    found = str(manifest.get("command", ""))
    if command is not None and found != command:
        raise InputError(path, f"written by {found!r}, expected a '{command}' folder")
    options = manifest.get("options") or {}
    release = dict(manifest.get("release") or {})
    release.setdefault("sha256", options.get("dataset_sha256", ""))
    release.setdefault("path", manifest.get("dataset", ""))
    release.setdefault("files", options.get("dataset_files", {}))
    models = _model_list(path / MODELS)
    listed = [str(m) for m in manifest.get("models") or []]
    return ScoreFolder(path, found, release, options, models, listed)


def enclosing_score_folder(path: str | Path) -> ScoreFolder | None:
    """The verified score folder a file lies in (at its top or in one model's folder), so a
    file it holds (a predictions file) is tied to the release that folder scored; None when
    the file lies in none."""
    for folder in list(Path(path).resolve().parents)[:2]:
        if (folder / MANIFEST).is_file() and read_manifest(folder, "folder").get("kind") == KIND:
            return read_score_folder(folder)
    return None


def write_model_identity(folder: Path, identity: dict[str, Any]) -> None:
    """A per-model folder's ``identity.json``: the model's identity and procedure."""
    write_json_atomic(folder / IDENTITY, identity)


def read_model_identity(folder: Path) -> dict[str, Any]:
    """A per-model folder's ``identity.json`` (checked by its score folder's manifest when
    that folder was read); one clear error when it is not a JSON object."""
    return read_json_object(folder / IDENTITY)


def _model_list(path: Path) -> list[dict]:
    """``models.json``: a list of objects."""
    try:
        data = json.loads(read_bytes(path).decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(path, f"not valid JSON: {exc}") from exc
    if not isinstance(data, list) or not all(isinstance(m, dict) for m in data):
        raise InputError(path, "expected a list of model objects")
    return data


def check_combinable(folders: Sequence[ScoreFolder]) -> None:
    """Refuse the same folder twice and folders of different commands, releases (name,
    version, sha256) or procedures (one line, naming both)."""
    check_distinct([f.path for f in folders], "score folder")
    first = folders[0]
    for other in folders[1:]:
        if other.command != first.command:
            raise InputError(
                other.path, f"written by {other.command!r}, but {first.path} by {first.command!r}"
            )
        check_same_release(other.path, other.release, first.release, f"{first.path} comes from")
        for option in SAME_OPTIONS:
            if other.options.get(option) != first.options.get(option):
                raise InputError(
                    other.path,
                    f"{option} {other.options.get(option)!r}, but {first.path} used "
                    f"{first.options.get(option)!r}: not combined",
                )
