"""A real browser (Debian chromium, headless, driven by Playwright) answers in the Argilla UI
served by the embedded server, and ``pull`` sees the answer."""

from __future__ import annotations

import pandas as pd

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review.pull import pull
from biasforge.annotation.review.push import push_run
from biasforge.annotation.review.registry import remember_run
from tests.annotation.conftest import subset_run
from tests.annotation.helpers import screenshot

DATASET = "becpro-browser"


def test_annotator_answers_in_the_ui_and_pull_sees_it(
    server, becpro_run, browser, artifacts, tmp_path
):
    run = subset_run(becpro_run, tmp_path / "run", 3)
    connection = find_server(server.data_dir)
    pushed = push_run(run, DATASET, connection, min_submitted=1, progress=False)
    remember_run(connection.url, connection.workspace, DATASET, run)
    (person,) = add_users(connection, [("browser-annotator", "annotator")])
    sentences = dict(
        zip(*pd.read_parquet(run / "candidates.parquet")[["sentence", "id"]].T.values, strict=True)
    )

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{connection.url}/sign-in")
    page.get_by_label("Username").fill(person.username)
    page.get_by_label("Password").fill(person.password)
    screenshot(page, artifacts, "sign-in", docs="annotator-sign-in")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "sign-in" not in url, timeout=30_000)
    page.get_by_text(DATASET, exact=True).first.wait_for(timeout=60_000)
    screenshot(page, artifacts, "home", docs="annotator-home")
    page.goto(f"{connection.url}/dataset/{pushed.dataset_id}/annotation-mode")
    page.get_by_text("Is the sentence grammatical and natural?").wait_for(timeout=60_000)
    screenshot(page, artifacts, "becpro-review", docs="annotator-becpro")
    shown = next(s for s in sentences if page.get_by_text(s, exact=True).count())
    page.get_by_text("Yes", exact=True).nth(0).click()  # grammatical: yes
    page.get_by_text("No", exact=True).nth(1).click()  # agreement: no
    page.get_by_role("button", name="Submit").click()
    page.get_by_text("Submitted").first.wait_for(timeout=30_000)
    page.wait_for_function("() => document.body.innerText.match(/Submitted\\s*1/)", timeout=30_000)
    page.close()

    out = tmp_path / "reviewed"
    pull(DATASET, out, connection, policy="unanimous", adjudicate=False)
    responses = pd.read_parquet(out / "responses.parquet")
    mine = responses[
        (responses["annotator"] == person.username) & (responses["status"] == "submitted")
    ]
    record_id = sentences[shown]
    answers = dict(
        zip(
            mine[mine["id"] == record_id]["question"],
            mine[mine["id"] == record_id]["value"],
            strict=True,
        )
    )
    assert answers["grammatical"] == "yes" and answers["agreement"] == "no"
    reviewed = pd.read_parquet(out / "reviewed.parquet").set_index("id")
    assert reviewed.loc[record_id, "decision"] == "reject"  # one annotator needed; agreement failed
    assert (reviewed["decision"] == "pending").sum() == 2


def test_a_throttled_sign_in_is_said_in_words_not_as_a_raw_error(server, browser, artifacts):
    """Issue 47, item 9: once the throttle refuses a username (429, after 10 failures a minute)
    the sign-in page showed "AxiosError: Request failed with status code 429". It now shows the
    throttle's sentence, which names the wait."""
    import httpx

    url = find_server(server.data_dir).url
    with httpx.Client(base_url=url, verify=False, timeout=60) as api:
        wrong = [
            api.post("/api/v1/token", data={"username": "thrown-out", "password": "x" * 12})
            for _ in range(10)
        ]
    assert [r.status_code for r in wrong] == [401] * 10
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/sign-in")
    page.get_by_label("Username").fill("thrown-out")
    page.get_by_label("Password").fill("y" * 12)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("Too many failed sign-ins: try again in").first.wait_for(timeout=30_000)
    screenshot(page, artifacts, "sign-in-throttled")
    shown = page.inner_text("body")
    assert "AxiosError" not in shown and "status code 429" not in shown
    page.close()
