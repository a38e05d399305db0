"""A dataset's private state: what the maintainer who pushed it keeps and annotators never see.

One file per dataset, ``$BIASFORGE_HOME/annotation/private/<key>.json`` (mode 0600; the key
is a digest of the server URL, workspace and dataset name, like
:mod:`biasforge.annotation.review.registry`'s), holding the dataset's random **secret** and its
control items (:mod:`biasforge.annotation.review.controls`). Nothing of it goes to Argilla: on a
stock Argilla server any workspace member reads a record's every metadata key through
``GET /api/v1/records/{id}``, so hidden metadata cannot keep an answer from annotators.

The secret keys what a family arranges in secret (``Review.needs_key``: StereoSet's option
order, through a :class:`~biasforge.families.base.DatasetKey`) and where control items go.
The first push of a dataset creates it; later pushes and every pull read it. A pull on
another machine needs a copy of the file (:func:`missing_key`).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from biasforge.annotation.client.secrets import read_secret_json, write_secret_json
from biasforge.errors import BiasforgeError
from biasforge.families import Family
from biasforge.families.base import DatasetKey
from biasforge.files import stable_id
from biasforge.resources import biasforge_home

FOLDER = Path("annotation") / "private"
_EARLIER = Path("annotation") / "controls"  # where the state lived before it held the secret


def path(url: str, workspace: str, dataset: str) -> Path:
    """The dataset's state file (a file from before the move is moved here on first use)."""
    name = f"{stable_id(url.rstrip('/'), workspace, dataset, length=24)}.json"
    here, earlier = biasforge_home() / FOLDER / name, biasforge_home() / _EARLIER / name
    if not here.exists() and earlier.is_file():
        here.parent.mkdir(parents=True, exist_ok=True)
        os.replace(earlier, here)
    return here


def read(url: str, workspace: str, dataset: str) -> dict[str, Any]:
    """The dataset's state; {} when this machine holds none. A file others can read is
    refused (one line naming it)."""
    where = path(url, workspace, dataset)
    return read_secret_json(where) if where.is_file() else {}


def write(url: str, workspace: str, dataset: str, state: dict[str, Any]) -> None:
    write_secret_json(path(url, workspace, dataset), state)


def secret(url: str, workspace: str, dataset: str) -> str | None:
    """The dataset's secret (hex), or None. Files written before it was called so hold it
    as ``salt``."""
    state = read(url, workspace, dataset)
    return state.get("secret") or state.get("salt") or None


def ensure_secret(url: str, workspace: str, dataset: str) -> str:
    """The dataset's secret, created (128 random bits) if it has none. Pushes creating it at
    once on this machine agree: they take turns under a lock file beside it (``filelock``),
    and each reads the state again inside the lock before writing."""
    from filelock import FileLock

    target = path(url, workspace, dataset)
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(target.with_name(f".{target.name}.lock")):
        state = read(url, workspace, dataset)
        found = state.get("secret") or state.get("salt")
        if found:
            return str(found)
        state["secret"] = secrets.token_hex(16)
        write_secret_json(target, state)
        return state["secret"]


def missing_key(url: str, workspace: str, dataset: str, doing: str) -> BiasforgeError:
    """The one-line error of a command that needs the dataset's secret on a machine without
    it: which file to copy, from where, to where."""
    here = path(url, workspace, dataset)
    return BiasforgeError(
        f"cannot {doing} dataset {dataset!r}: its private key is not on this machine; copy "
        f"{FOLDER / here.name} from the BIASFORGE_HOME of the machine that pushed it to "
        f"{here} (mode 0600)"
    )


def legacy_of(family: Family, metadata: Mapping[str, Mapping[str, Any]]) -> dict[str, dict]:
    """By record id, the ``legacy_metadata`` of records pushed before keyed arrangements."""
    keys = family.review.legacy_metadata
    found = {rid: {k: meta[k] for k in keys if k in meta} for rid, meta in metadata.items()}
    return {rid: kept for rid, kept in found.items() if kept}


def dataset_key(
    url: str,
    workspace: str,
    dataset: str,
    family: Family,
    records: Mapping[str, Mapping[str, Any]],
    *,
    create: bool,
    doing: str,
) -> DatasetKey:
    """The dataset's key for ``family`` given its ``records`` (id -> metadata): read, or
    created when ``create`` and the dataset holds no record yet (its first push; for every
    family: the secret also places control items). Without the secret, a family that
    arranges by key can use only a dataset whose every record predates keyed arrangements;
    otherwise the one-line :func:`missing_key` error."""
    legacy = legacy_of(family, records)
    found = secret(url, workspace, dataset)
    if found is None and create and not records:
        found = ensure_secret(url, workspace, dataset)
    if family.review.needs_key and found is None and any(r not in legacy for r in records):
        raise missing_key(url, workspace, dataset, doing)
    return DatasetKey(bytes.fromhex(found) if found else None, legacy)


def dump(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` as plain JSON (numpy values and the like as text)."""
    return json.loads(json.dumps(state, default=str))
