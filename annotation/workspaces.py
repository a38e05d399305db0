"""Workspaces and their members, through Argilla's REST API (v1).

In Argilla a workspace is the unit of visibility: annotators and admins see the datasets of
the workspaces they are members of; owners see every workspace. Adjudication uses that to
keep its datasets away from annotators (see :mod:`biasforge.annotation.adjudication`).
"""

from __future__ import annotations

from typing import Any

import httpx

from biasforge.annotation.api import check, users


def all_workspaces(api: httpx.Client) -> list[dict[str, Any]]:
    """Every workspace the caller sees (an owner sees all)."""
    return check(api.get("/api/v1/me/workspaces"))["items"]


def ensure_workspace(api: httpx.Client, name: str) -> dict[str, Any]:
    """The workspace called ``name``, created if missing."""
    for workspace in all_workspaces(api):
        if workspace["name"] == name:
            return workspace
    return check(api.post("/api/v1/workspaces", json={"name": name}))


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


def datasets_named(api: httpx.Client, name: str) -> list[tuple[dict, dict]]:
    """(workspace, dataset) for every dataset called ``name`` the caller sees."""
    spaces = {w["id"]: w for w in all_workspaces(api)}
    found = check(api.get("/api/v1/me/datasets"))["items"]
    return [
        (spaces[d["workspace_id"]], d)
        for d in found
        if d["name"] == name and d["workspace_id"] in spaces
    ]
