"""Add annotators to a workspace, with generated passwords shown once."""

from __future__ import annotations

import csv
import secrets
import warnings
from dataclasses import dataclass
from pathlib import Path

from annotation.connection import Connection, client
from biasforge.errors import BiasforgeError, InputError

ROLES = ("annotator", "admin", "owner")


@dataclass
class NewUser:
    username: str
    role: str
    password: str | None  # None when the user already existed (password unchanged)
    workspace: str


def read_users_csv(path: Path) -> list[tuple[str, str]]:
    """(username, role) from a CSV with a ``username`` column and an optional ``role``."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if not reader.fieldnames or "username" not in reader.fieldnames:
            raise InputError(
                path, "needs a header with a 'username' column (and optionally 'role')"
            )
        rows = []
        for line, row in enumerate(reader, start=2):
            username = (row.get("username") or "").strip()
            role = (row.get("role") or "annotator").strip() or "annotator"
            if not username:
                raise InputError(path, "empty username", line=line)
            if role not in ROLES:
                raise InputError(path, f"role {role!r} is not one of {', '.join(ROLES)}", line=line)
            rows.append((username, role))
    return rows


def add_users(connection: Connection, wanted: list[tuple[str, str]]) -> list[NewUser]:
    """Create missing users with strong generated passwords and add all to the workspace."""
    import argilla as rg

    from annotation.push import ensure_workspace

    rg_client = client(connection)
    workspace = ensure_workspace(rg_client, connection.workspace)
    created = []
    for username, role in wanted:
        if role not in ROLES:
            raise BiasforgeError(f"role {role!r} is not one of {', '.join(ROLES)}")
        # The SDK warns when a user is absent, which is the expected case here.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            user = rg_client.users(username=username)
        password = None
        if user is None:
            password = secrets.token_urlsafe(12)
            user = rg.User(
                username=username, password=password, role=role, client=rg_client
            ).create()
        if username not in {u.username for u in workspace.users}:
            user.add_to_workspace(workspace)
        created.append(NewUser(username, role, password, connection.workspace))
    return created
