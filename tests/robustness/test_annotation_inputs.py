"""Bad names and outputs for ``biasforge annotate``, against the real embedded server.

A workspace name Argilla's SDK cannot read is refused before anything is created, and one that
someone else created on the server breaks no command about other names; ``pull`` replaces only
an earlier pull of the same dataset, and refuses a ``--run`` other than the one pushed; two
concurrent pushes of the same records end with each record once and, at worst, one line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import httpx
import pytest

from biasforge.annotation.client.names import WORKSPACE_NAME_MAX, workspace_problem
from biasforge.annotation.client.secrets import CREDENTIALS_FILE
from biasforge.annotation.review.adjudication import panel_name
from tests.annotation.conftest import ROOT, subset_run
from tests.annotation.test_families import make_run, stereoset_rows
from tests.cli_runner import run_cli, whole
from tests.helpers import server_biasforge_home, snapshot  # noqa: F401  (the server's home)

BAD_WORKSPACES = ["no/such ws", "dot.ted", "a b", "工作区", " lead", "tab\tx", "x" * 65, ""]


def cli(*args: object, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_cli("annotate", *args, check=False, env=whole(env) if env else None, cwd=ROOT)


def assert_one_line_error(result: subprocess.CompletedProcess, *expect: str) -> None:
    assert result.returncode == 2, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert "Traceback" not in result.stderr and "SQL" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.strip().splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for text in expect:
        assert text in lines[0], lines[0]


def owner_api(server) -> httpx.Client:
    key = json.loads((server.data_dir / CREDENTIALS_FILE).read_text())["api_key"]
    return httpx.Client(base_url=server.url, headers={"X-Argilla-Api-Key": key}, timeout=60)


def workspace_names(server) -> set[str]:
    with owner_api(server) as api:
        return {w["name"] for w in api.get("/api/v1/me/workspaces").json()["items"]}


def test_workspace_rule_is_the_sdks_and_bounded():
    assert workspace_problem("team_fr-2") is None
    assert workspace_problem("x" * WORKSPACE_NAME_MAX) is None
    assert workspace_problem("x" * (WORKSPACE_NAME_MAX + 1)) is not None
    for name in BAD_WORKSPACES:
        assert workspace_problem(name) is not None, name


def test_panel_workspace_of_oddly_named_users_is_a_valid_name():
    """Users created outside biasforge (the server takes any username) name a panel
    workspace the SDK can still read; two such sets stay apart."""
    one = panel_name("biasforge", frozenset({"dot.ted", "a b"}))
    two = panel_name("biasforge", frozenset({"dot_ted", "a_b"}))
    assert workspace_problem(one) is None and workspace_problem(two) is None
    assert one != two


@pytest.mark.parametrize("name", BAD_WORKSPACES, ids=repr)
@pytest.mark.parametrize("command", ["push", "pull", "users", "agreement"])
def test_bad_workspace_option_is_one_line_and_creates_nothing(
    server,
    becpro_run,
    tmp_path,
    command,
    name,
):
    before = workspace_names(server)
    args = {
        "push": ["push", becpro_run, "--dataset", "ws-bad"],
        "pull": ["pull", "--dataset", "ws-bad", "--out", tmp_path / "out"],
        "users": ["users", "ws-bad-user"],
        "agreement": ["agreement", "--dataset", "ws-bad"],
    }[command]
    result = cli(*args, "--workspace", name)
    assert_one_line_error(result, "--workspace")
    assert workspace_names(server) == before
    assert not (tmp_path / "out").exists()


def test_bad_argilla_workspace_variable_is_one_line(server, becpro_run):
    key = json.loads((server.data_dir / CREDENTIALS_FILE).read_text())["api_key"]
    env = {
        **os.environ,
        "ARGILLA_API_URL": server.url,
        "ARGILLA_API_KEY": key,
        "ARGILLA_WORKSPACE": "no/such ws",
    }
    result = cli("push", becpro_run, "--dataset", "ws-env", env=env)
    assert_one_line_error(result, "ARGILLA_WORKSPACE")


def test_badly_named_workspace_on_the_server_breaks_no_other_command(
    server,
    becpro_run,
    tmp_path,
):
    """Someone created workspaces the SDK cannot read (the server allows it): push, pull
    and agreement on the default workspace still work."""
    run = subset_run(becpro_run, tmp_path / "run", 3)
    created = []
    with owner_api(server) as api:
        for name in ("dot.ted", "a space", "工作区"):
            response = api.post("/api/v1/workspaces", json={"name": name})
            assert response.status_code == 201, response.text
            created.append(response.json()["id"])
    try:
        pushed = cli("push", run, "--dataset", "beside-bad-ws", "--min-submitted", "1")
        assert pushed.returncode == 0, pushed.stderr
        assert "3 records created" in pushed.stdout
        again = cli("push", run, "--dataset", "beside-bad-ws")
        assert again.returncode == 0 and "3 already there" in again.stdout, again.stderr
        agreed = cli("agreement", "--dataset", "beside-bad-ws")
        assert agreed.returncode == 0, agreed.stderr
        pulled = cli("pull", "--dataset", "beside-bad-ws", "--out", tmp_path / "reviewed")
        assert pulled.returncode == 0, pulled.stderr
        assert "pending: 3" in pulled.stdout
    finally:
        with owner_api(server) as api:
            for workspace_id in created:
                api.delete(f"/api/v1/workspaces/{workspace_id}")


@pytest.mark.parametrize("name", [" lead", "trail ", "new\nline", "x" * 188])
def test_bad_dataset_name_is_one_line(server, becpro_run, name):
    assert_one_line_error(cli("push", becpro_run, "--dataset", name), "--dataset")


@pytest.mark.parametrize("name", ["dot.ted", "a b", "工作", "_lead", "x" * 65])
def test_bad_username_is_one_line_and_creates_no_user(server, name):
    with owner_api(server) as api:
        before = {u["username"] for u in api.get("/api/v1/users").json()["items"]}
    assert_one_line_error(cli("users", name), "username")
    with owner_api(server) as api:
        assert {u["username"] for u in api.get("/api/v1/users").json()["items"]} == before


@pytest.fixture
def two_pushed(server, becpro_run, tmp_path):
    """Two datasets pushed from two different runs (3 and 4 candidates)."""
    runs = {}
    for name, n in (("ow-a", 3), ("ow-b", 4)):
        run = subset_run(becpro_run, tmp_path / f"run-{name}", n)
        result = cli("push", run, "--dataset", name, "--min-submitted", "1")
        assert result.returncode == 0, result.stderr
        runs[name] = run
    return runs


def test_pull_overwrites_only_an_earlier_pull_of_the_same_dataset(two_pushed, tmp_path):
    out_a, out_b = tmp_path / "reviewed-a", tmp_path / "reviewed-b"
    assert cli("pull", "--dataset", "ow-a", "--out", out_a).returncode == 0
    assert cli("pull", "--dataset", "ow-b", "--out", out_b).returncode == 0
    kept = snapshot(out_a)

    assert_one_line_error(cli("pull", "--dataset", "ow-a", "--out", out_a), "already exists")
    assert_one_line_error(
        cli("pull", "--dataset", "ow-b", "--out", out_a, "--overwrite"), "'ow-a'", "--overwrite"
    )
    assert snapshot(out_a) == kept

    run = two_pushed["ow-a"]
    run_files = snapshot(run)
    assert_one_line_error(cli("pull", "--dataset", "ow-a", "--out", run, "--overwrite"), str(run))
    assert snapshot(run) == run_files

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    assert_one_line_error(cli("pull", "--dataset", "ow-a", "--out", mine, "--overwrite"), "notes")
    assert (mine / "notes.txt").read_text() == "mine"

    again = cli("pull", "--dataset", "ow-a", "--out", out_a, "--overwrite")
    assert again.returncode == 0, again.stderr
    assert json.loads((out_a / "manifest.json").read_text())["dataset"] == "ow-a"


def test_pull_refuses_a_run_other_than_the_one_pushed(two_pushed, becpro_run, tmp_path):
    out = tmp_path / "reviewed"
    other = cli("pull", "--dataset", "ow-a", "--out", out, "--run", two_pushed["ow-b"])
    assert_one_line_error(other, "--run", "'ow-a' was pushed from")
    stereoset = make_run(tmp_path / "ss-run", stereoset_rows(), "stereoset")
    family = cli("pull", "--dataset", "ow-a", "--out", out, "--run", stereoset)
    assert_one_line_error(family, "--run", "stereoset")
    assert not out.exists()
    same = cli("pull", "--dataset", "ow-a", "--out", out, "--run", two_pushed["ow-a"])
    assert same.returncode == 0, same.stderr

    pushed = two_pushed["ow-a"]  # re-curated in place with other candidates since the push
    shutil.rmtree(pushed)
    subset_run(becpro_run, pushed, 5)
    changed = cli("pull", "--dataset", "ow-a", "--out", tmp_path / "again")
    assert_one_line_error(changed, "changed since 'ow-a' was pushed")


def test_two_concurrent_pushes_store_each_record_once(server, becpro_run, tmp_path):
    run = subset_run(becpro_run, tmp_path / "run", 1200)
    command = [
        sys.executable, "-m", "biasforge.cli", "annotate", "push", str(run),
        "--dataset", "raced-1200", "--min-submitted", "1",
    ]  # fmt: skip
    procs = [
        subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    results = [(p.wait(timeout=600), *p.communicate()) for p in procs]
    for code, _, err in results:
        if code != 0:
            assert code == 2 and "Traceback" not in err and "SQL" not in err, err
            # one error line (the progress bar shares stderr)
            errors = [x for x in err.splitlines() if x.startswith("error:")]
            assert len(errors) == 1 and "another push" in errors[0], err
            assert "external ids:" not in err, err  # not the server's list of ids
    assert any(code == 0 for code, _, _ in results), results
    with owner_api(server) as api:
        spaces = {w["name"]: w["id"] for w in api.get("/api/v1/me/workspaces").json()["items"]}
        found = [
            d
            for d in api.get("/api/v1/me/datasets").json()["items"]
            if d["name"] == "raced-1200" and d["workspace_id"] == spaces["biasforge"]
        ]
        assert len(found) == 1
        ids, offset = [], 0
        while True:
            page = api.get(
                f"/api/v1/datasets/{found[0]['id']}/records",
                params={"offset": offset, "limit": 1000},
            ).json()["items"]
            ids += [r["external_id"] for r in page]
            offset += len(page)
            if len(page) < 1000:
                break
    assert len(ids) == 1200 and len(set(ids)) == 1200
