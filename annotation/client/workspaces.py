"""Workspaces and their members, through Argilla's REST API (v1).

In Argilla a workspace is the unit of visibility: annotators and admins see the datasets of
the workspaces they are members of; owners see every workspace. Adjudication uses that to
keep its datasets away from annotators (see :mod:`biasforge.annotation.review.adjudication`).
"""

from __future__ import annotations

from typing import Any

import httpx

from biasforge.annotation.client.api import check, users


def all_workspaces(api: httpx.Client) -> list[dict[str, Any]]:
    """Every workspace the caller sees (an owner sees all)."""
    return check(api.get("/api/v1/me/workspaces"))["items"]


def workspace_named(api: httpx.Client, name: str) -> dict[str, Any] | None:
    """The workspace called ``name``, or None. Reads plain JSON, so a workspace with a name
    the SDK cannot parse (created by someone else) does not break the lookup of this one."""
    return next((w for w in all_workspaces(api) if w["name"] == name), None)


def ensure_workspace(api: httpx.Client, name: str) -> dict[str, Any]:
    """The workspace called ``name``, created if missing (a push creating it at the same
    time wins: its workspace is used)."""
    workspace = workspace_named(api, name)
    if workspace is not None:
        return workspace
    created = api.post("/api/v1/workspaces", json={"name": name})
    if created.status_code >= 400:
        workspace = workspace_named(api, name)
        if workspace is not None:
            return workspace
    return check(created)


def dataset_named(api: httpx.Client, workspace: str, name: str) -> dict[str, Any] | None:
    """The dataset ``name`` of workspace ``workspace`` as plain JSON (with its ``id``), or
    None; tolerant of badly named workspaces and datasets elsewhere on the server."""
    space = workspace_named(api, workspace)
    if space is None:
        return None
    found = check(api.get("/api/v1/me/datasets"))["items"]
    return next((d for d in found if d["name"] == name and d["workspace_id"] == space["id"]), None)


def members(api: httpx.Client, workspace_id: str) -> list[dict[str, Any]]:
    """The users of a workspace (``username``, ``role``, ``id``)."""
    return check(api.get(f"/api/v1/workspaces/{workspace_id}/users"))["items"]


def sync_members(api: httpx.Client, workspace_id: str, wanted: set[str]) -> None:
    """Make exactly ``wanted`` (usernames) the members of the workspace: add the missing ones
    and remove the others, so nobody keeps seeing what they should not."""
    ids = {u["username"]: u["id"] for u in users(api)}
    present = {u["username"]: u["id"] for u in members(api, workspace_id)}
    for name in sorted(wanted - set(present)):
        check(api.post(f"/api/v1/workspaces/{workspace_id}/users", json={"user_id": ids[name]}))
    for name in sorted(set(present) - wanted):
        check(api.delete(f"/api/v1/workspaces/{workspace_id}/users/{present[name]}"))
