"""Which run directory a dataset was pushed from, so ``pull`` can find the candidates again.

Argilla records carry what annotators see, not every typed candidate column; the reviewed
output must have exactly the candidate columns and types, so pull re-reads the run. The link is
kept in ``$BIASFORGE_HOME/annotation/datasets.json`` keyed by server URL, workspace and
dataset name, with the run's family and identity (the sha256 of its candidates, from its
manifest), so that ``pull --run`` can refuse a run other than the one pushed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from biasforge.files import write_json_atomic
from biasforge.resources import biasforge_home


def _path() -> Path:
    return biasforge_home() / "annotation" / "datasets.json"


def _key(url: str, workspace: str, dataset: str) -> str:
    return f"{url.rstrip('/')}|{workspace}|{dataset}"


def remember_run(
    url: str,
    workspace: str,
    dataset: str,
    run_dir: Path,
    family: str | None = None,
    identity: str | None = None,
) -> None:
    path = _path()
    data = json.loads(path.read_text()) if path.is_file() else {}
    data[_key(url, workspace, dataset)] = {
        "run": str(Path(run_dir).resolve()),
        "family": family,
        "identity": identity,
    }
    write_json_atomic(path, data)


def pushed_from(url: str, workspace: str, dataset: str) -> dict[str, Any] | None:
    """What :func:`remember_run` stored for the dataset (``run``, ``family``, ``identity``;
    entries written by earlier versions hold only ``run``), or None."""
    path = _path()
    if not path.is_file():
        return None
    return json.loads(path.read_text()).get(_key(url, workspace, dataset))


def run_of(url: str, workspace: str, dataset: str) -> Path | None:
    entry = pushed_from(url, workspace, dataset)
    return Path(entry["run"]) if entry else None
