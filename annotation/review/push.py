"""``biasforge annotate push``: send a run's candidates to an Argilla dataset, idempotently.

Record ids are candidate ids (Argilla's ``external_id``), so the push first lists the ids the
dataset already holds and creates only the missing ones: a second push adds nothing and never
touches a record that annotators may already have answered, and a push interrupted by a crash
or a killed server resumes where it stopped (each bulk call is one database transaction, so a
batch is either fully there or not at all).

Records go through the bulk-create endpoint in batches of up to 500, built as plain JSON from
the family's field/metadata/suggestion dicts; this skips the SDK's per-record model
validation. With the embedded server's speed-ups (see ``annotation/server/overrides/speedups.py``) this
is several times faster than ``dataset.records.log``.

Because the whole push is idempotent, a connection the server drops mid-conversation (a reset
under load, a keep-alive closed as a request goes out) is retried from the start a few times
(tenacity) before it becomes the user's one-line error; a server that refuses connections
(down, killed) is not retried.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import pandas as pd
import pyarrow as pa

from biasforge.annotation.client import workspaces
from biasforge.annotation.client.api import check, http, iter_records, questions, refusal
from biasforge.annotation.client.connection import Connection, client
from biasforge.annotation.client.names import check_dataset_name
from biasforge.annotation.review import private_state
from biasforge.errors import BiasforgeError, InputError
from biasforge.families import Family, family_of
from biasforge.families.base import DatasetKey

AGENT = "biasforge"
BATCH = 500

#: dropped connections (not refused ones): the server is there but closed this conversation
TRANSIENT_ATTEMPTS = 4

DRAFT_WAIT_S = 30  # how long a dataset may stay a draft while another push publishes it


class Contended(BiasforgeError):
    """The server refused a batch because another writer touched the same records at the same
    moment (a concurrent push): the pass is retried from the listing of present ids."""


#: refusals of a bulk create that a concurrent push of the same records explains: 422 (an
#: external id already present), 409, and 500 (SQLite's unique constraint under a race)
CONTENDED = (409, 422, 500)


@dataclass
class PushResult:
    dataset: str
    dataset_id: str
    total: int
    created: int
    already_present: int
    family: str
    controls: int = 0  # control items of the dataset (see biasforge.annotation.review.controls)
    controls_created: int = 0
    #: records already there whose fields differ from what this run's items would show
    #: (pushed from an earlier run of other text): left as they are, said by ``annotate push``
    outdated: int = 0


def ensure_workspace(rg_client, name: str) -> dict[str, Any]:
    """The workspace ``name`` (plain JSON), created if missing; through the SDK client's HTTP
    connection, so a badly named workspace elsewhere on the server is no obstacle."""
    return workspaces.ensure_workspace(rg_client.http_client, name)


def find_dataset(rg_client, workspace: str, name: str):
    """The SDK dataset ``name`` of ``workspace``, or None; looked up by id, because the SDK's
    lookup by name parses every workspace of the server and fails on one it cannot read."""
    found = workspaces.dataset_named(rg_client.http_client, workspace, name)
    if found is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "not found": deleted since the listing; None then
        dataset = rg_client.datasets(id=found["id"])
    return None if dataset is None else dataset.get()  # .get() loads its settings


def _existing(rg_client, connection: Connection, name: str):
    """The published dataset called ``name``, or None; waits for one being created right now
    by another push, and removes a draft left behind by a creation that failed long ago."""
    for _ in range(DRAFT_WAIT_S * 2):
        dataset = find_dataset(rg_client, connection.workspace, name)
        if dataset is None:
            return None
        with http(connection) as api:
            if check(api.get(f"/api/v1/datasets/{dataset.id}")).get("status") != "draft":
                return dataset
        time.sleep(0.5)
    with http(connection) as api:  # still a draft: no settings, no records, nobody finishing it
        check(api.delete(f"/api/v1/datasets/{dataset.id}"))
    return None


def ensure_dataset(connection: Connection, name: str, family: Family, min_submitted: int):
    """The dataset, created with the family's settings if missing; refuse a foreign one.

    Two pushes starting at once may both find no dataset: the one whose creation fails
    (a 409, or the server's unique-name error) waits for the other's and uses it.
    """
    import argilla as rg
    from argilla._exceptions import ArgillaAPIError

    rg_client = client(connection)
    workspace = ensure_workspace(rg_client, connection.workspace)
    dataset = _existing(rg_client, connection, name)
    if dataset is None:
        settings = family.review.settings(min_submitted=min_submitted)
        try:
            return rg.Dataset(
                name=name, workspace=UUID(workspace["id"]), settings=settings, client=rg_client
            ).create()
        except ArgillaAPIError:
            dataset = _existing(rg_client, connection, name)
            if dataset is None:
                raise
    problem = foreign_dataset(connection, str(dataset.id), family)
    if problem:
        raise BiasforgeError(
            f"dataset {name!r} in workspace {connection.workspace!r} {problem}; "
            "choose another --dataset name"
        )
    return dataset


def foreign_dataset(connection: Connection, dataset_id: str, family: Family) -> str | None:
    """Why the dataset is not a review of ``family`` items (its questions are another
    family's), or None."""
    with http(connection) as api:
        names = {q["name"] for q in questions(api, dataset_id)}
    expected = family.review.question_names
    # A dataset created by an earlier version (without the note question) is still ours.
    if set(family.review.criteria) <= names <= expected:
        return None
    return f"has questions {sorted(names)}, not the {family.name} ones {sorted(expected)}"


def record_payloads(
    family: Family,
    rows: list[dict[str, Any]],
    question_ids: dict[str, str],
    *,
    suggest: bool = False,
) -> list[dict]:
    """Bulk-create items for the rows (fields, metadata, suggestions as plain JSON).

    Judged questions get no suggestion unless ``suggest`` (see :meth:`Review.record`).
    """
    items = []
    for row in rows:
        record = family.review.record(row, suggest=suggest)
        suggestions = [
            {"question_id": question_ids[name], "value": value, "type": "model", "agent": AGENT}
            for name, value in record["suggestions"].items()
            if name in question_ids and value is not None
        ]
        items.append(
            {
                "external_id": str(row["id"]),
                "fields": record["fields"],
                "metadata": record["metadata"],
                "suggestions": suggestions,
            }
        )
    return items


def stored_records(connection: Connection, dataset_id: str) -> dict[str, dict[str, Any]]:
    """The dataset's records as stored: external id -> record (fields, metadata, …)."""
    with http(connection) as api:
        return {
            str(r["external_id"]): r for r in iter_records(api, dataset_id) if r.get("external_id")
        }


def metadata_of(stored: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """External id -> metadata of :func:`stored_records`."""
    return {rid: record.get("metadata") or {} for rid, record in stored.items()}


def existing_records(connection: Connection, dataset_id: str) -> dict[str, dict[str, Any]]:
    """The dataset's records: external id -> metadata."""
    return metadata_of(stored_records(connection, dataset_id))


def outdated_records(
    family: Family, rows: list[dict[str, Any]], stored: dict[str, dict[str, Any]]
) -> int:
    """How many of ``rows`` the dataset holds with other fields than these rows give: a record
    pushed from an earlier run whose text has changed since (a push never rewrites a record
    annotators may have answered, so it says how many instead of staying silent)."""
    there = [row for row in rows if str(row["id"]) in stored]
    return sum(
        item["fields"] != (stored[item["external_id"]].get("fields") or {})
        for item in record_payloads(family, there, {})
    )


def existing_ids(connection: Connection, dataset_id: str) -> set[str]:
    return set(existing_records(connection, dataset_id))


def push_key(
    connection: Connection, dataset_name: str, family: Family, present: dict[str, dict]
) -> DatasetKey:
    """The dataset's key, created by its first push (see :mod:`.private_state`)."""
    return private_state.dataset_key(
        connection.url, connection.workspace, dataset_name, family, present, create=True,
        doing="push to",
    )  # fmt: skip


def outdated_settings(connection: Connection, dataset_id: str, family: Family) -> str | None:
    """Why records of this version cannot be added to the dataset (it lacks hidden metadata
    they carry: an earlier version created it), or None."""
    with http(connection) as api:
        found = check(api.get(f"/api/v1/me/datasets/{dataset_id}/metadata-properties"))["items"]
    missing = sorted(set(family.review.hidden_metadata) - {m["name"] for m in found})
    if not missing:
        return None
    return (
        f"was created by an earlier biasforge (it has no {', '.join(missing)} metadata), "
        "so records of this version cannot be added to it; push the run to a new dataset"
    )


def push_candidates(
    candidates: pd.DataFrame,
    dataset_name: str,
    connection: Connection,
    *,
    min_submitted: int = 3,
    batch_size: int = BATCH,
    progress: bool = True,
    suggest: bool = False,
    controls: list[dict[str, Any]] | None = None,
    seed: str = "",
) -> PushResult:
    """Create the candidates missing from the dataset; see the module docstring. ``controls``
    (items with their control ids, see :mod:`biasforge.annotation.review.controls`) are created with
    them, at places drawn with ``seed``."""
    import httpx
    import tenacity

    check_dataset_name(dataset_name)  # callers of the API too, not only the command line
    if candidates["id"].duplicated().any():
        dup = candidates.loc[candidates["id"].duplicated(), "id"].iloc[0]
        raise BiasforgeError(f"candidate id {dup!r} appears twice; ids must be unique")
    family = family_of(candidates["family"].unique() if len(candidates) else [], "candidates")
    dropped = (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)
    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception_type((*dropped, Contended)),
        stop=tenacity.stop_after_attempt(TRANSIENT_ATTEMPTS),
        wait=tenacity.wait_exponential(multiplier=0.5, max=4),
        reraise=True,
    )
    return retrying(
        _push_once, candidates, family, dataset_name, connection, min_submitted=min_submitted,
        batch_size=batch_size, progress=progress, suggest=suggest, controls=controls or [],
        seed=seed,
    )  # fmt: skip


def _push_once(
    candidates: pd.DataFrame,
    family: Family,
    dataset_name: str,
    connection: Connection,
    *,
    min_submitted: int,
    batch_size: int,
    progress: bool,
    suggest: bool,
    controls: list[dict[str, Any]],
    seed: str,
) -> PushResult:
    """One pass of the push: list what the dataset holds, create the rest."""
    from biasforge.progress import progress_bar

    dataset = ensure_dataset(connection, dataset_name, family, min_submitted)
    dataset_id = str(dataset.id)
    stored = stored_records(connection, dataset_id)
    present = metadata_of(stored)
    family = family.with_key(push_key(connection, dataset_name, family, present))
    # through Arrow, so a null stays None (pandas would give NaN for a missing string)
    every = pa.Table.from_pandas(candidates, preserve_index=False).to_pylist()
    rows = [row for row in every if str(row["id"]) not in present]
    outdated = outdated_records(family, every, stored)
    if controls:
        from biasforge.annotation.review.controls import interleave

        rows = interleave(rows, [c for c in controls if str(c["id"]) not in present], seed)
    problem = outdated_settings(connection, dataset_id, family) if rows else None
    if problem:
        raise BiasforgeError(f"dataset {dataset_name!r} {problem}")
    with http(connection) as api:
        question_ids = {q["name"]: q["id"] for q in questions(api, dataset_id)}
        bar = progress_bar(
            total=len(rows), unit="rec", desc=f"push {dataset_name}", disable=not progress
        )
        for start in range(0, len(rows), batch_size):
            batch = rows[start : start + batch_size]
            items = record_payloads(family, batch, question_ids, suggest=suggest)
            _create(api, dataset_name, dataset_id, items)
            bar.update(len(batch))
        bar.close()
    control_ids = {str(c["id"]) for c in controls}
    made = sum(1 for r in rows if str(r["id"]) in control_ids)
    created = len(rows) - made
    return PushResult(
        dataset_name, dataset_id, len(candidates), created, len(candidates) - created,
        family.name, controls=len(controls), controls_created=made, outdated=outdated,
    )  # fmt: skip


def _create(api, dataset_name: str, dataset_id: str, items: list[dict]) -> None:
    """One bulk create; a refusal that a concurrent push explains becomes :class:`Contended`
    (retried, then said in one line), not the server's dump of ids or SQL."""
    response = api.post(f"/api/v1/datasets/{dataset_id}/records/bulk", json={"items": items})
    if response.status_code in CONTENDED:
        raise Contended(
            f"dataset {dataset_name!r}: the server refused a batch of records "
            f"(HTTP {response.status_code}: {refusal(response)[:120]}), most likely because "
            "another push was creating the same records at the same moment; nothing is sent "
            "twice, so run the command again once the other push has finished"
        )
    check(response)


def push_run(
    run_dir: str | Path,
    dataset_name: str,
    connection: Connection,
    *,
    controls: str | Path | None = None,
    control_share: float | None = None,
    **kwargs,
) -> PushResult:
    """Push the candidates of a run directory (read and checksum-verified against its
    manifest), with control items from ``controls`` (a file) or a ``control_share`` drawn
    from the run, and any planned by an earlier push (see :mod:`biasforge.annotation.review.controls`)."""
    from biasforge.annotation.review import controls as control_items

    run = read_pushable_run(run_dir)
    family = family_of(run.candidates["family"].unique(), str(run_dir))
    with http(connection) as api:
        found = workspaces.dataset_named(api, connection.workspace, dataset_name)
    present = existing_records(connection, str(found["id"])) if found else {}
    has_records = bool(present)
    family = family.with_key(push_key(connection, dataset_name, family, present))
    rows = family.review.units(run.table.to_pylist())
    planned = control_items.plan(
        connection.url, connection.workspace, dataset_name, family, from_file=controls,
        share=control_share, rows=rows, has_records=has_records,
    )  # fmt: skip
    seed = control_items.state_seed(connection.url, connection.workspace, dataset_name)
    kept = control_items.withheld(connection.url, connection.workspace, dataset_name) - set(present)
    # one record per item, or per unit of items a family reviews together (Review.unit_of)
    candidates = run.candidates if family.review.unit_of is None else pd.DataFrame(rows)
    candidates = candidates[~candidates["id"].astype(str).isin(kept)]
    return push_candidates(
        candidates, dataset_name, connection, controls=[c.row for c in planned], seed=seed,
        **kwargs,
    )  # fmt: skip


def read_pushable_run(run_dir: str | Path):
    """The run, read and checksum-verified against its manifest, whose candidates break none
    of their family's rules as ``export release`` checks them (less the rules that hold only
    once reviewed): a run edited after curation is refused before the annotators' work, not
    after it."""
    from biasforge.contract.rundir import CANDIDATES, read_run

    run = read_run(run_dir)
    if run.table.num_rows:
        family = family_of(run.table.column("family").unique().to_pylist(), str(run.path))
        violations = family.schema.check(run.table)
        if violations:
            first, more = violations[0], len(violations) - 1
            extra = f" ({more} more violation(s) in this run)" if more else ""
            raise InputError(run.path / CANDIDATES, f"{first}{extra}", record=first.record)
    return run
