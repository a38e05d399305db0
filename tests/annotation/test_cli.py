"""The ``biasforge annotate`` commands as a user runs them (``run_cli``, embedded server)."""

from __future__ import annotations

import os
import subprocess

import httpx

from biasforge.annotation.client.connection import find_server
from tests.annotation.conftest import ROOT, subset_run
from tests.cli_runner import run_cli, whole


def cli(*args: str, env: dict | None = None, process: bool = False) -> subprocess.CompletedProcess:
    env = whole(env) if env else None
    return run_cli("annotate", *args, check=False, env=env, cwd=ROOT, process=process)


def test_users_from_csv_get_working_passwords_shown_once(server, tmp_path):
    table = tmp_path / "team.csv"
    table.write_text("username,role\ncsv-ann1,annotator\ncsv-ann2,annotator\n", encoding="utf-8")
    first = cli("users", "--csv", str(table))
    assert first.returncode == 0, first.stderr
    lines = [line.split("\t") for line in first.stdout.strip().splitlines()]
    assert [line[0] for line in lines] == ["csv-ann1", "csv-ann2"]
    for username, role, workspace, password in lines:
        assert role == "annotator" and workspace == "biasforge" and len(password) >= 16
        token = httpx.post(
            f"{server.url}/api/v1/token", data={"username": username, "password": password}
        )
        assert token.status_code == 201
    again = cli("users", "csv-ann1")
    assert again.returncode == 0 and "already existed" in again.stdout
    assert lines[0][3] not in again.stdout


def test_bad_csv_and_missing_server_are_one_line_errors(server, becpro_run, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("name\nx\n", encoding="utf-8")
    result = cli("users", "--csv", str(bad))
    assert result.returncode == 2 and str(bad) in result.stderr and "username" in result.stderr
    env = {**os.environ, "BIASFORGE_HOME": str(tmp_path / "elsewhere")}
    result = cli("push", str(becpro_run), "--dataset", "x", env=env)
    assert result.returncode == 2 and "no Argilla server is running" in result.stderr


def test_push_twice_then_pull(server, becpro_run, tmp_path):
    run = subset_run(becpro_run, tmp_path / "run", 4)
    first = cli("push", str(run), "--dataset", "cli-ds", "--min-submitted", "1")
    assert first.returncode == 0, first.stderr
    assert "4 records created, 0 already there" in first.stdout
    second = cli("push", str(run), "--dataset", "cli-ds")
    assert "0 records created, 4 already there" in second.stdout
    out = tmp_path / "reviewed"
    pulled = cli("pull", "--dataset", "cli-ds", "--out", str(out), "--policy", "majority")
    assert pulled.returncode == 0, pulled.stderr
    assert "pending: 4" in pulled.stdout
    for name in (
        "reviewed.parquet",
        "agreement.json",
        "manifest.json",
        "report.md",
        "decisions.parquet",
    ):
        assert (out / name).is_file()
    agreement = cli("agreement", "--dataset", "cli-ds")
    assert agreement.returncode == 0, agreement.stderr
    assert agreement.stdout == ""  # nobody answered yet: no figures

    from tests.conftest import one_error_line

    stale = (out / "report.md").read_text()
    refused = cli(
        "pull", "--dataset", "cli-ds", "--out", str(out), "--overwrite", "--adjudicators", "nobody"
    )  # --overwrite: an existing --out is now refused without it, before anything else
    assert "--adjudicators: no user called 'nobody'" in one_error_line(refused)
    assert (out / "report.md").read_text() == stale  # nothing written

    # issue 47, item 15: a second pull while one runs ended in a raw "422 ... same external
    # ids"; here another pull holds the dataset's pull lock (taken as a pull process would)
    from filelock import FileLock

    from biasforge.annotation.client.connection import find_server
    from biasforge.annotation.review import private_state

    connection = find_server(server.data_dir)
    state = private_state.path(connection.url, connection.workspace, "cli-ds")
    (state.parent.parent / "pull-locks").mkdir(parents=True, exist_ok=True)
    with FileLock(state.parent.parent / "pull-locks" / f"{state.stem}.lock"):
        busy = cli("pull", "--dataset", "cli-ds", "--out", str(out), "--overwrite")
        dry = cli("pull", "--dataset", "cli-ds", "--out", str(tmp_path / "dry"), "--dry-run")
    assert one_error_line(busy) == (
        "error: another `annotate pull` of 'cli-ds' (workspace 'biasforge') is running on this "
        "machine; run this one when it has ended"
    )
    assert (out / "report.md").read_text() == stale
    assert dry.returncode == 0, dry.stderr  # a dry run changes nothing on the server
    again = cli("pull", "--dataset", "cli-ds", "--out", str(out), "--overwrite")
    assert again.returncode == 0, again.stderr  # the lock is the other pull's, not left over


def test_serve_in_background_then_stop(server, tmp_path):
    from biasforge.annotation.admin.serve import free_port, pid_alive
    from biasforge.annotation.client.connection import read_state

    data_dir = tmp_path / "bg"
    started = cli(
        "serve",
        "--background",
        "--no-worker",
        "--data-dir",
        str(data_dir),
        "--port",
        str(free_port()),
        process=True,  # a server that outlives the command: started from a process of its own
    )
    assert started.returncode == 0, started.stderr
    state = read_state(data_dir)
    assert state and state["url"] in started.stdout and "biasforge-owner" in started.stdout
    assert httpx.get(f"{state['url']}/api/v1/version").status_code == 200
    pids = [state["pid"], *state["children"].values()]
    stopped = cli("stop", "--data-dir", str(data_dir))
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    assert not any(pid_alive(pid) for pid in pids)
    assert (
        cli("stop", "--data-dir", str(data_dir)).stdout.strip() == "no embedded server was running"
    )
    # issue 47, item 9: the hint starts it again as it was started (plain `annotate serve`
    # would listen on loopback and the default port only)
    port = state["url"].rsplit(":", 1)[1]
    again = f"`biasforge annotate serve --port {port} --data-dir {data_dir}`"
    assert f"start one with {again}" in cli("users", "x", "--data-dir", str(data_dir)).stderr


def token(url: str, username: str, password: str) -> int:
    return httpx.post(
        f"{url}/api/v1/token", data={"username": username, "password": password}
    ).status_code


def me(url: str, username: str, password: str) -> dict:
    """``/api/v1/me`` as the user sees it after signing in (it holds their API key)."""
    signed = httpx.post(f"{url}/api/v1/token", data={"username": username, "password": password})
    bearer = {"Authorization": f"Bearer {signed.json()['access_token']}"}
    return httpx.get(f"{url}/api/v1/me", headers=bearer).json()


def users_of(server) -> list[dict]:
    connection = find_server(server.data_dir)
    return httpx.get(
        f"{server.url}/api/v1/users", headers={"X-Argilla-Api-Key": connection.api_key}
    ).json()["items"]


def role_of(server, username: str) -> str:
    return next(u["role"] for u in users_of(server) if u["username"] == username)


def test_users_change_roles_honestly_and_reset_passwords(server):
    from tests.conftest import one_error_line

    first = cli("users", "role-ann")
    assert first.returncode == 0, first.stderr
    password = first.stdout.split("\t")[3].strip()
    promoted = cli("users", "role-ann", "--role", "admin")
    assert promoted.returncode == 0, promoted.stderr
    assert promoted.stdout.strip() == (
        "role-ann\tadmin\tbiasforge\t(role changed from annotator to admin)"
    )
    assert "note: role-ann is an admin of workspace biasforge" in promoted.stderr
    assert "adjudicators of the records they did not answer" in promoted.stderr
    assert "admin" not in first.stderr  # an annotator gets no such note
    assert role_of(server, "role-ann") == "admin"
    kept = cli("users", "role-ann")  # no --role: the role stays
    assert "(already existed; password unchanged)" in kept.stdout
    assert role_of(server, "role-ann") == "admin"

    refused = cli("users", "biasforge-owner", "--role", "annotator")
    assert "refusing to change the role of 'biasforge-owner'" in one_error_line(refused)
    assert "refusing to change 'role-ann' from admin to owner" in one_error_line(
        cli("users", "role-ann", "--role", "owner")
    )
    # issue 47, items 6 and 14: no second account for a name that differs only in case, and
    # no owner created where promoting one is refused
    assert one_error_line(cli("users", "ROLE-Ann")) == (
        "error: refusing to create 'ROLE-Ann': 'role-ann' exists, and names that differ only "
        "in case would be two accounts for one person; use that name"
    )
    assert "refusing to create 'new-owner' as an owner" in one_error_line(
        cli("users", "new-owner", "--role", "owner")
    )
    empty = cli("users", "invited-ann", "--invite", "")  # printed the password before
    assert one_error_line(empty) == (
        "error: --invite: give a FILE to write the invitations to, or '-' to print"
    )
    names = {u["username"] for u in users_of(server)}
    assert "role-ann" in names and not {"ROLE-Ann", "new-owner", "invited-ann"} & names

    old_key = me(server.url, "role-ann", password)["api_key"]
    reset = cli("users", "--reset-password", "role-ann")
    assert reset.returncode == 0, reset.stderr
    name, role, _, new, note = reset.stdout.strip().split("\t")
    assert (name, role, note) == ("role-ann", "admin", "(password reset, API key rotated)")
    assert new != password
    assert token(server.url, "role-ann", new) == 201
    assert token(server.url, "role-ann", password) == 401
    # whoever knew the old password could read the old API key in the UI: it stops working
    assert (
        httpx.get(f"{server.url}/api/v1/me", headers={"X-Argilla-Api-Key": old_key}).status_code
        == 401
    )
    new_key = me(server.url, "role-ann", new)["api_key"]
    assert new_key != old_key
    assert (
        httpx.get(f"{server.url}/api/v1/me", headers={"X-Argilla-Api-Key": new_key}).status_code
        == 200
    )
    assert "no user called 'nobody'" in one_error_line(cli("users", "--reset-password", "nobody"))


def new_password(result: subprocess.CompletedProcess) -> str:
    """The password a ``users`` line shows once (created or reset)."""
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().split("\t")[3]


def test_a_reset_a_role_change_or_a_removal_ends_every_session_at_once(server):
    """issue 47, item 4: the session token the web UI holds (``Authorization: Bearer``) kept
    answering 200 after a password reset until the server restarted. Each change ends every
    session of that user at the next request, and a new sign-in works."""
    from tests.annotation.helpers import login

    def sessions(password: str) -> list[httpx.Client]:  # two browsers, signed in
        return [login(server.url, "sess-ann", password) for _ in range(2)]

    def codes(clients: list[httpx.Client]) -> list[int]:
        return [client.get("/api/v1/me").status_code for client in clients]

    password = new_password(cli("users", "sess-ann"))
    before = sessions(password)
    assert codes(before) == [200, 200]
    assert cli("users", "sess-ann", "--role", "admin").returncode == 0  # has answered nothing
    assert codes(before) == [401, 401]
    promoted = sessions(password)
    assert codes(promoted) == [200, 200]
    password = new_password(cli("users", "--reset-password", "sess-ann"))
    assert codes(promoted) == [401, 401]
    reset = sessions(password)
    assert codes(reset) == [200, 200]
    # removed (Argilla's own route), then created again under the same name
    owner = {"X-Argilla-Api-Key": find_server(server.data_dir).api_key}
    user = next(u for u in users_of(server) if u["username"] == "sess-ann")
    gone = httpx.delete(f"{server.url}/api/v1/users/{user['id']}", headers=owner)
    assert gone.status_code == 200, gone.text
    assert codes(reset) == [401, 401]
    password = new_password(cli("users", "sess-ann"))
    assert codes(reset) == [401, 401]  # the same name, another account
    assert codes(sessions(password)) == [200, 200]


def test_bad_usernames_and_csv_are_refused_before_anything_is_created(server, tmp_path):
    from tests.conftest import one_error_line

    for bad in ("ann 1", "ann!", "_ann"):
        assert f"invalid username {bad!r}" in one_error_line(cli("users", "fine-user", bad))
    long = "a" * 200
    assert "200 characters, at most 64" in one_error_line(cli("users", "fine-user", long))
    assert cli("users", "b" * 64).returncode == 0  # the limit itself is allowed
    team = tmp_path / "team.csv"
    team.write_text("username,role,password\nok-user,annotator,hunter22\n", encoding="utf-8")
    assert f"{team}:1: has a 'password' column" in one_error_line(cli("users", "--csv", str(team)))
    team.write_text('username,role\nok-user,annotator\n"oops,annotator\n', encoding="utf-8")
    assert f"{team}:3: unbalanced double quote" in one_error_line(cli("users", "--csv", str(team)))
    from biasforge.annotation.client.connection import find_server

    key = find_server(server.data_dir).api_key
    names = {
        u["username"]
        for u in httpx.get(f"{server.url}/api/v1/users", headers={"X-Argilla-Api-Key": key}).json()[
            "items"
        ]
    }
    assert not {"fine-user", "ok-user"} & names


def test_making_an_annotator_who_has_answered_an_admin_needs_yes(server, connection, becpro_run,
                                                                 tmp_path):  # fmt: skip
    """Issue 47, item 5: an annotator made admin could read every other annotator's answers;
    promoting one who has answered is a blindness decision, taken with --yes and told."""
    from tests.annotation.helpers import answer, login, pushed_run, queue
    from tests.conftest import one_error_line

    pushed = pushed_run(connection, subset_run(becpro_run, tmp_path / "run", 3), "promo-ds",
                        min_submitted=2)  # fmt: skip
    made = cli("users", "promo-ann", "promo-idle")
    password = made.stdout.splitlines()[0].split("\t")[3].strip()
    api = login(server.url, "promo-ann", password)
    answer(api, queue(api, pushed.dataset_id)[0]["id"], {"grammatical": "yes", "agreement": "yes"})

    refused = cli("users", "promo-ann", "--role", "admin")
    assert one_error_line(refused) == (
        "error: refusing to make 'promo-ann' an admin: promo-ann has answered records (1 in "
        "'promo-ds'), and admins can read every annotator's answers, so their answers from now "
        "on would not be blind; add --yes to promote anyway"
    )
    assert role_of(server, "promo-ann") == "annotator"
    idle = cli("users", "promo-idle", "--role", "admin")  # answered nothing: no question
    assert (
        idle.stdout.strip()
        == "promo-idle\tadmin\tbiasforge\t(role changed from annotator to admin)"
    )
    promoted = cli("users", "promo-ann", "--role", "admin", "--yes")
    assert promoted.stdout.strip() == (
        "promo-ann\tadmin\tbiasforge\t(role changed from annotator to admin; promo-ann has "
        "answered (1 in 'promo-ds') and can now read the others' answers)"
    )
    assert role_of(server, "promo-ann") == "admin"
