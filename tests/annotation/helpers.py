"""What annotators and adjudicators do, through the same endpoints the web UI calls, and a
signed-in browser page for the tests that use the UI itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def listening(pids: list[int]) -> list[tuple[str, int]]:
    """(address, port) of every listening TCP socket of these processes and their children
    (read in each process's own network namespace)."""
    import psutil

    found = []
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            procs = [proc, *proc.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
        for p in procs:
            try:
                found += [
                    (c.laddr.ip, c.laddr.port)
                    for c in p.net_connections(kind="inet")
                    if c.status == psutil.CONN_LISTEN
                ]
            except psutil.NoSuchProcess:
                continue
    return found


def login(url: str, username: str, password: str) -> httpx.Client:
    token = httpx.post(f"{url}/api/v1/token", data={"username": username, "password": password})
    assert token.status_code == 201, token.text
    return httpx.Client(
        base_url=url,
        headers={"Authorization": f"Bearer {token.json()['access_token']}"},
        timeout=60,
    )


def queue(
    api: httpx.Client,
    dataset_id: str,
    limit: int = 50,
    offset: int = 0,
    status: str = "pending",
    record_status: str | None = None,
) -> list[dict]:
    """The user's queue, as the UI asks for it (search engine, per-user order); the UI's
    pending queue also asks for records not yet completed (``record_status="pending"``)."""
    scopes = [("response", status), *([("record", record_status)] if record_status else [])]
    body = {
        "filters": {
            "and": [
                {"type": "terms", "scope": {"entity": entity, "property": "status"},
                 "values": [value]}
                for entity, value in scopes
            ]
        }
    }  # fmt: skip
    result = api.post(
        f"/api/v1/me/datasets/{dataset_id}/records/search",
        params={"limit": limit, "offset": offset},
        json=body,
    )
    assert result.status_code == 200, result.text
    return [item["record"] for item in result.json()["items"]]


def answer(api: httpx.Client, record_id: str, values: dict, status: str = "submitted") -> None:
    result = api.post(
        f"/api/v1/records/{record_id}/responses",
        json={
            "values": {q: {"value": v} for q, v in values.items() if v is not None},
            "status": status,
        },
    )
    assert result.status_code == 201, result.text


def visible_datasets(api: httpx.Client) -> dict[str, list[str]]:
    """Dataset name -> ids of the datasets this user can see (names repeat across panels)."""
    found: dict[str, list[str]] = {}
    for item in api.get("/api/v1/me/datasets").json()["items"]:
        found.setdefault(item["name"], []).append(item["id"])
    return found


def confirm_corrections(judge: httpx.Client, dataset: str, values: dict | None = None) -> int:
    """The adjudicator ``judge`` answers every record of ``dataset``'s adjudication panels
    they see, confirming the first proposed correction (``text_choice`` A) with yes answers
    (``values``: BEC-Pro's by default); how many they answered. A correction that changes a
    slot word waits for this before it is applied (issue 47, item 3)."""
    from biasforge.annotation.review.adjudication import is_adjudication_of

    values = values or {"grammatical": "yes", "agreement": "yes", "text_choice": "A"}
    done = 0
    for name, ids in visible_datasets(judge).items():
        for dataset_id in ids if is_adjudication_of(name, dataset) else ():
            for record in queue(judge, dataset_id):
                answer(judge, record["id"], values)
                done += 1
    return done


def create_dataset(connection, name: str, settings):
    """Dataset ``name`` with the Argilla settings ``settings()`` builds, made through the SDK in
    the connection's workspace (created if missing); the SDK's warnings about its own settings
    are silenced. ``settings`` is called once the connection's client exists: the SDK's fields
    and questions look up its *default* client (the last one made in this process) when built,
    so built before it they would depend on which test happened to run first in the process."""
    import warnings

    import argilla as rg

    from biasforge.annotation.client.connection import client
    from biasforge.annotation.review.push import ensure_workspace

    rg_client = client(connection)
    ensure_workspace(rg_client, connection.workspace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rg.Dataset(
            name=name, workspace=connection.workspace, settings=settings(), client=rg_client
        ).create()


def sign_in(browser, url: str, username: str, password: str):
    """A fresh browser context (own cookies) signed in as ``username``; returns the page."""
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = context.new_page()
    page.goto(f"{url}/sign-in")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda u: "sign-in" not in u, timeout=30_000)
    return page


def question(page, name: str):
    """The form block of one question, as Argilla labels it."""
    return page.locator(f'[aria-label="Question: {name}"]')


def wait_for_status(api: httpx.Client, dataset_id: str, status: str, count: int) -> list[dict]:
    """The user's records with ``status`` once there are ``count`` of them (the UI saves
    asynchronously after a click)."""
    import time

    deadline = time.monotonic() + 30
    while True:
        records = queue(api, dataset_id, status=status)
        if len(records) >= count or time.monotonic() > deadline:
            return records
        time.sleep(0.3)


def pushed_run(connection, run, dataset: str, *, min_submitted: int):
    """``run`` pushed to ``dataset`` and remembered as the run behind it (what ``annotate
    push`` does); the push's result."""
    from biasforge.annotation.review.push import push_run
    from biasforge.annotation.review.registry import remember_run

    pushed = push_run(run, dataset, connection, min_submitted=min_submitted, progress=False)
    remember_run(connection.url, connection.workspace, dataset, run)
    return pushed


def disagreeing_team(
    server, run, dataset: str, team: tuple[str, str], others=(), *, workspace: str
) -> tuple:
    """``run`` pushed to ``dataset`` (two answers a record) and remembered, the users of
    ``team`` and ``others`` created and signed in, and the two of ``team`` answering every
    record in disagreement; returns (connection, the push's result, user -> signed-in client).

    In a ``workspace`` of the caller's own: who can adjudicate is every annotator and admin of
    the workspace, so in the shared one the tests that make an admin (test_cli's role changes)
    changed where these records went, depending on the order the tests ran in (issue 46)."""
    import dataclasses

    from biasforge.annotation.admin.users import add_users
    from biasforge.annotation.client.connection import find_server

    connection = dataclasses.replace(find_server(server.data_dir), workspace=workspace)
    pushed = pushed_run(connection, run, dataset, min_submitted=2)
    made = add_users(connection, [(name, None) for name in (*team, *others)])
    apis = {u.username: login(connection.url, u.username, u.password) for u in made}
    for who, vote in zip(team, ("yes", "no"), strict=True):
        records = queue(apis[who], pushed.dataset_id)
        # every record answered by both, or the tests' premise (disagreement everywhere) is
        # silently false and they fail far from the cause (seen once under a loaded run)
        assert len(records) == pushed.total, f"{who} sees {len(records)} of {pushed.total}"
        for record in records:
            answer(apis[who], record["id"], {"grammatical": vote, "agreement": "yes"})
    return connection, pushed, apis


DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def screenshot(page, artifacts: Path, name: str, *, docs: str | None = None) -> None:
    """Keep what the browser shows now: the whole page as ``artifacts/NAME.png`` (the test's
    record), and with ``docs`` also the visible part as ``docs/screenshots/DOCS.png``, a picture
    the annotators' guide shows. Every run of the browser tests refreshes those pictures from the
    running server, so the guide shows the review pages as they are, not as drawn (the folder is
    not committed: ``./dev test`` builds the site after the tests, from that run's pictures)."""
    page.screenshot(path=artifacts / f"{name}.png", full_page=True)
    if docs:
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        picture = DOCS_SCREENSHOTS / f"{docs}.png"
        page.screenshot(path=picture)
        assert picture.stat().st_size > 10_000, f"{picture.name}: an empty page?"
