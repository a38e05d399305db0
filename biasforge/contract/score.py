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
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasforge.contract.manifest import verify_manifest, write_manifest
from biasforge.contract.redact import public_path
from biasforge.errors import InputError

KIND = "score"
MODELS = "models.json"  # every model's identity and procedure, in order
IDENTITY = "identity.json"  # a per-model folder's identity and procedure
REPORT = "report.md"
SCORE_PACKAGES = ("biasforge", "torch", "transformers", "scipy", "pandas")
# run options that change what a figure means: folders that differ in one are not combined
SAME_OPTIONS = ("procedure", "limit", "split")


def write_score_manifest(
    stage: Path, command: str, release: dict, models: list[str], options: dict
) -> dict[str, Any]:
    """The manifest, written last: what was run (``command``, the ``models`` as given, no
    path of this machine), on which release, with which options and package versions."""
    return write_manifest(
        stage,
        KIND,
        packages=SCORE_PACKAGES,
        command=command,
        dataset=release["path"],
        release=release,
        models=[public_path(m) if Path(m).exists() else m for m in models],
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
        named = " ".join(str(self.release.get(k) or "") for k in ("name", "version")).strip()
        label = named or str(self.release.get("path") or "an unnamed dataset")
        return f"{label} (sha256 {str(self.release.get('sha256', ''))[:12]}…)"


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


def _model_list(path: Path) -> list[dict]:
    """``models.json``: a list of objects."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(path, f"not valid JSON: {exc}") from exc
    if not isinstance(data, list) or not all(isinstance(m, dict) for m in data):
        raise InputError(path, "expected a list of model objects")
    return data


def check_combinable(folders: Sequence[ScoreFolder]) -> None:
    """Refuse folders of different commands, releases or procedures (one line, naming both)."""
    first = folders[0]
    for other in folders[1:]:
        if other.command != first.command:
            raise InputError(
                other.path, f"written by {other.command!r}, but {first.path} by {first.command!r}"
            )
        if other.release.get("sha256") != first.release.get("sha256"):
            raise InputError(
                other.path,
                f"scored {other.describe_release()}, but {first.path} scored "
                f"{first.describe_release()}: results of different dataset versions are not "
                "combined",
            )
        for option in SAME_OPTIONS:
            if other.options.get(option) != first.options.get(option):
                raise InputError(
                    other.path,
                    f"{option} {other.options.get(option)!r}, but {first.path} used "
                    f"{first.options.get(option)!r}: not combined",
                )
