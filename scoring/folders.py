"""Score folders read back: for ``score merge`` and ``score compare``, wherever they were made.

A score folder is verified through the contract (``manifest.json`` of kind ``score``, every
file's sha256), then read as: the command that wrote it, the release it scored, its run
options, and its models (``models.json``). Where the release identity lives, for any tool
that writes score folders (``score import-lm-eval`` included): ``manifest.json`` →
``release`` = {``path``, ``name``, ``version``, ``kind``, ``sha256``, ``files``}, as
``scoring.data.dataset_identity`` gives it; folders written before it existed carry the
sha256 in ``options.dataset_sha256`` and the path in ``dataset``, and are read from there.
Folders are combined only when they scored the same release (same sha256) with the same
command and procedure: anything else is refused with one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from biasforge.contract.manifest import verify_manifest
from biasforge.errors import InputError

# run options that change what a figure means: folders that differ in one are not merged
SAME_OPTIONS = ("procedure", "limit", "split")


@dataclass(frozen=True)
class ScoreFolder:
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
    manifest = verify_manifest(path, "score folder", ("models.json",), kind="score")
    found = str(manifest.get("command", ""))
    if command is not None and found != command:
        raise InputError(path, f"written by {found!r}, expected a '{command}' folder")
    options = manifest.get("options") or {}
    release = dict(manifest.get("release") or {})
    release.setdefault("sha256", options.get("dataset_sha256", ""))
    release.setdefault("path", manifest.get("dataset", ""))
    release.setdefault("files", options.get("dataset_files", {}))
    models = read_json_list(path / "models.json")
    listed = [str(m) for m in manifest.get("models") or []]
    return ScoreFolder(path, found, release, options, models, listed)


def read_json_list(path: Path) -> list[dict]:
    """``models.json``: a list of objects."""
    import json

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
