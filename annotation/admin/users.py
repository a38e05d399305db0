"""Add annotators to a workspace, change their role or reset their password; generated
passwords are shown once and never read from files.

Usernames follow Argilla's own rule, ``USER_USERNAME_REGEX = ^[A-Za-z0-9][A-Za-z0-9-_]*$``
(argilla-server's user schema up to 2.7; 2.8 stopped checking it, so a name with a space, a
``!`` or a newline from a CSV with an unbalanced quote was accepted and could not log in
comfortably). A role change is made through the API and reported as such; changes that would
lock the tool out or touch owners are refused with the reason.
"""

from __future__ import annotations

import csv
import io
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from biasforge.annotation.client.api import check, http, users
from biasforge.annotation.client.connection import Connection
from biasforge.annotation.client.workspaces import ensure_workspace, members
from biasforge.errors import BiasforgeError, InputError
from biasforge.textfiles import check_quotes, read_bytes

ROLES = ("annotator", "admin", "owner")
USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
# Argilla 2.8's user schema only asks for one character; the web UI and every name this tool
# builds from a username (adjudication panel workspaces) need a bound: a 200-character name
# was created and then shown cut in the UI (issue 23). 64 is the longest Argilla-style
# identifier we accept.
USERNAME_MAX = 64
ADMIN_NOTE = (
    "{name} is an admin of workspace {workspace}: admins see every dataset of the workspace "
    "and are adjudicators of the records they did not answer (see `annotate pull --adjudicators`)"
)
CSV_COLUMNS = ("username", "role")


@dataclass
class NewUser:
    username: str
    role: str
    password: str | None  # shown once: a new user's or a reset password
    workspace: str
    status: str = "created"  # created | already existed | role changed … | password reset


def username_problem(name: str) -> str | None:
    """Why ``name`` is not a valid Argilla username, or None."""
    if len(name) > USERNAME_MAX:
        return f"invalid username {name[:20]!r}…: {len(name)} characters, at most {USERNAME_MAX}"
    if USERNAME.match(name) and "\n" not in name:
        return None
    return (
        f"invalid username {name!r}: use letters, digits, '-' and '_', starting with a letter "
        "or digit (Argilla's username rule)"
    )


def read_users_csv(path: Path) -> list[tuple[str, str | None]]:
    """(username, role or None) from a CSV with a ``username`` column and an optional ``role``."""
    try:
        text = read_bytes(path, "a users CSV").decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = Path(path).read_bytes()[: exc.start].count(b"\n") + 1
        raise InputError(path, "not UTF-8 text", line=line) from exc
    check_quotes(path, enumerate(text.splitlines(), start=1))
    reader = csv.DictReader(io.StringIO(text), strict=True)
    try:
        return _users_rows(path, reader)
    except csv.Error as exc:  # quotes balanced on each line yet misplaced ('\x00","')
        raise InputError(path, f"not a valid CSV row ({exc})", line=reader.line_num) from None


def _users_rows(path: Path, reader: csv.DictReader) -> list[tuple[str, str | None]]:
    """The rows of a users CSV whose quotes are balanced (see :func:`read_users_csv`)."""
    columns = [c.strip() for c in reader.fieldnames or []]
    if "username" not in columns:
        raise InputError(
            path, "needs a header with a 'username' column (and optionally 'role')", line=1
        )
    if "password" in columns:
        raise InputError(
            path, "has a 'password' column: passwords are generated and shown once, never read "
            "from a file; remove the column", line=1,
        )  # fmt: skip
    unknown = [c for c in columns if c not in CSV_COLUMNS]
    if unknown:
        raise InputError(
            path, f"unknown column(s) {', '.join(unknown)}; expected username, role", line=1
        )
    rows, seen = [], set()
    for row in reader:
        line = reader.line_num
        username = (row.get("username") or "").strip()
        role = (row.get("role") or "").strip() or None
        problem = "empty username" if not username else username_problem(username)
        if problem is None and role is not None and role not in ROLES:
            problem = f"role {role!r} is not one of {', '.join(ROLES)}"
        if problem is None and username in seen:
            problem = f"{username!r} appears twice"
        if problem:
            raise InputError(path, problem, line=line)
        seen.add(username)
        rows.append((username, role))
    return rows


def _me(api) -> str:
    return check(api.get("/api/v1/me"))["username"]


def answers_given(api, username: str) -> dict[str, int]:
    """Dataset name -> how many records ``username`` has answered there (submitted, discarded
    or drafted), over every dataset this tool's account sees (Argilla's users/progress)."""
    given = {}
    for dataset in check(api.get("/api/v1/me/datasets"))["items"]:
        progress = check(api.get(f"/api/v1/datasets/{dataset['id']}/users/progress"))
        for entry in progress.get("users", []):
            if entry.get("username") == username:
                counts = [
                    n or 0 for key, by in entry.items() if key != "username" for n in by.values()
                ]
                if sum(counts):
                    given[dataset["name"]] = given.get(dataset["name"], 0) + sum(counts)
    return given


def _refuse_unblinding(api, name: str, yes: bool) -> str:
    """An annotator who has answered and becomes an admin may read every other answer of
    their workspace: a blindness decision the maintainer takes with ``--yes``, told what it
    means. Returns the note for the output ("" when they answered nothing)."""
    given = answers_given(api, name)
    if not given:
        return ""
    where = ", ".join(f"{count} in {dataset!r}" for dataset, count in sorted(given.items()))
    if not yes:
        raise BiasforgeError(
            f"refusing to make {name!r} an admin: {name} has answered records ({where}), and "
            "admins can read every annotator's answers, so their answers from now on would not "
            "be blind; add --yes to promote anyway"
        )
    return f"; {name} has answered ({where}) and can now read the others' answers"


def _change_role(api, user: dict, role: str, me: str, yes: bool = False) -> str:
    """Change an existing user's role, or refuse with the reason."""
    name = user["username"]
    if name == me:
        raise BiasforgeError(
            f"refusing to change the role of {name!r}: it is the account this tool uses"
        )
    if "owner" in (role, user["role"]):
        raise BiasforgeError(
            f"refusing to change {name!r} from {user['role']} to {role}: owners see and manage every "
            "workspace; change owners with the server's own tools"
        )
    note = _refuse_unblinding(api, name, yes) if role == "admin" else ""
    check(api.patch(f"/api/v1/users/{user['id']}", json={"role": role}))
    return f"role changed from {user['role']} to {role}{note}"


def _refuse_new(username: str, role: str | None, known: dict[str, dict]) -> None:
    """A new account that would be a second one for a known person, or an owner, is refused."""
    same = [name for name in known if name.casefold() == username.casefold()]
    if same:
        raise BiasforgeError(
            f"refusing to create {username!r}: {same[0]!r} exists, and names that differ only in "
            "case would be two accounts for one person; use that name"
        )
    if role == "owner":
        raise BiasforgeError(
            f"refusing to create {username!r} as an owner: owners see and manage every "
            "workspace; create owners with the server's own tools"
        )


def add_users(
    connection: Connection, wanted: list[tuple[str, str | None]], *, yes: bool = False
) -> list[NewUser]:
    """Create missing users with strong generated passwords, change the role of existing users
    when one is given (an annotator who has answered becomes an admin only with ``yes``), and
    add everyone to the workspace."""
    for username, role in wanted:
        problem = username_problem(username)
        if problem is None and role is not None and role not in ROLES:
            problem = f"role {role!r} is not one of {', '.join(ROLES)}"
        if problem:
            raise BiasforgeError(problem)
    done = []
    with http(connection) as api:
        workspace = ensure_workspace(api, connection.workspace)
        inside = {u["username"] for u in members(api, workspace["id"])}
        me = _me(api)
        for username, role in wanted:
            known = {u["username"]: u for u in users(api)}
            user, password = known.get(username), None
            if user is None:
                _refuse_new(username, role, known)
                password = secrets.token_urlsafe(12)
                body = {
                    "username": username,
                    "first_name": username,
                    "password": password,
                    "role": role or "annotator",
                }
                user, status = check(api.post("/api/v1/users", json=body)), "created"
            elif role is not None and role != user["role"]:
                status = _change_role(api, user, role, me, yes)
                user = {**user, "role": role}
            else:
                status = "already existed; password unchanged"
            if username not in inside and user["role"] != "owner":
                check(
                    api.post(
                        f"/api/v1/workspaces/{workspace['id']}/users", json={"user_id": user["id"]}
                    )
                )
            done.append(NewUser(username, user["role"], password, connection.workspace, status))
    return done


def reset_password(connection: Connection, username: str) -> NewUser:
    """Give ``username`` a new generated password (shown once) and, on the embedded server, a
    new API key: whoever knew the old password may have read the old key in the UI's
    settings. Argilla's API cannot change a key, so on another server the status says so."""
    with http(connection) as api:
        user = {u["username"]: u for u in users(api)}.get(username)
        if user is None:
            raise BiasforgeError(f"no user called {username!r}")
        if username == _me(api):
            raise BiasforgeError(
                f"refusing to reset the password of {username!r}: it is the account this tool uses"
            )
        password = secrets.token_urlsafe(12)
        check(api.patch(f"/api/v1/users/{user['id']}", json={"password": password}))
    if connection.embedded and connection.data_dir is not None:
        from biasforge.annotation.admin.serve import rotate_api_key

        rotate_api_key(connection.data_dir, username)
        status = "password reset, API key rotated"
    else:
        status = (
            "password reset; API key NOT rotated: Argilla's API cannot, "
            "ask the server's administrator"
        )
    return NewUser(username, user["role"], password, connection.workspace, status)
