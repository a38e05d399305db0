"""The report/manifest files every score command writes (tables and manifests come from the
shared contract, so a score report is verified like any other biasforge folder)."""

from __future__ import annotations

from pathlib import Path

from biasforge.contract.manifest import write_manifest as write_folder_manifest
from biasforge.contract.markdown import fmt, frame_md
from biasforge.contract.redact import public_path

__all__ = ["fmt", "md_table", "write_manifest"]

md_table = frame_md  # score reports print data frames


def write_manifest(
    out: Path,
    command: str,
    dataset: str,
    models: list[str],
    options: dict,
    release: dict | None = None,
) -> None:
    """What was run, on what, with which versions, and the sha256 of every file written.

    ``release`` is the scored dataset's identity (``scoring.data.dataset_identity``: path,
    name, version, kind, sha256, files): score folders are merged and compared by it."""
    write_folder_manifest(
        out,
        "score",
        packages=("biasforge", "torch", "transformers", "scipy", "pandas"),
        command=command,
        dataset=dataset,
        release=release or {},
        models=[public_path(m) if Path(m).exists() else m for m in models],
        options=options,
    )
