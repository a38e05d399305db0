"""Blind StereoSet review on the real embedded server and in a real browser (issue 23): an
annotator sees the options shuffled under the names A, B, C with no label anywhere (page text,
the API record as annotators get it), answers the labels, and ``pull`` maps them back; the
release card's sentence about what annotators saw matches the dataset's settings.
"""

from __future__ import annotations

import json
import re

import pandas as pd

from biasforge.annotation.review.pull import pull
from biasforge.annotation.review.push import push_run
from biasforge.annotation.review.registry import remember_run
from biasforge.exports.release import make_release
from biasforge.families.base import RECOGNISED_HELP, RECOGNISED_TITLE
from biasforge.families.stereoset import CHECK_KEY, LABELS, option_order
from tests.annotation.helpers import login, question, screenshot, sign_in
from tests.annotation.keyed import TEST_KEY, use_key
from tests.annotation.test_blind_labels import flagged_row
from tests.annotation.test_browser_review import open_dataset, people, submitted
from tests.annotation.test_families import make_run

LABEL_WORD = re.compile(r"anti-stereotype|stereotype|unrelated", re.IGNORECASE)


def hidden_stereotype_row() -> dict:
    """A flagged StereoSet row whose option A is not the stereotype (under ``TEST_KEY``, the
    key the tests give their datasets before pushing them)."""
    rows = (flagged_row(f"blind-{n}") for n in range(50))
    row = next(r for r in rows if option_order(r, key=TEST_KEY)[0] != 0)
    return {**row, "source_id": row["id"]}


def test_an_annotator_labels_shuffled_options_blind_and_pull_maps_them_back(
    connection, browser, artifacts, tmp_path
):
    row = hidden_stereotype_row()
    order = option_order(row, key=TEST_KEY)
    run = make_run(tmp_path / "run", [row], "stereoset")
    use_key(connection, "ss-blind")
    pushed = push_run(run, "ss-blind", connection, min_submitted=1, progress=False)
    remember_run(connection.url, connection.workspace, "ss-blind", run)
    team = people(connection, "blind-ann")

    api = login(connection.url, "blind-ann", team["blind-ann"])
    found = api.post(
        f"/api/v1/me/datasets/{pushed.dataset_id}/records/search",
        params={"include": ["suggestions", "responses"]},
        json={},
    )
    assert found.status_code == 200, found.text
    (item,) = found.json()["items"]
    record = item["record"]
    assert not {"option_order", CHECK_KEY} & set(record.get("metadata") or {})
    assert record["suggestions"], "the correction box's text is part of what annotators get"
    seen = json.dumps(record, ensure_ascii=False)
    assert not LABEL_WORD.search(seen), seen
    fields = api.get(f"/api/v1/datasets/{pushed.dataset_id}/fields").json()["items"]
    meta = api.get(f"/api/v1/me/datasets/{pushed.dataset_id}/metadata-properties")
    assert not LABEL_WORD.search(json.dumps([fields, meta.json()], ensure_ascii=False))

    page = sign_in(browser, connection.url, "blind-ann", team["blind-ann"])
    open_dataset(page, connection.url, pushed.dataset_id, "label_A")
    screenshot(page, artifacts, "stereoset-blind", docs="annotator-stereoset-blind")
    body = page.inner_text("body")
    for own in (RECOGNISED_TITLE, RECOGNISED_HELP):  # SHADES' question says "stereotype"
        body = body.replace(own, "")  # itself (issue 44): no label of any option
    buttons = "".join(
        question(page, f"label_{name}").inner_text() for name in ("A", "B", "C")
    )  # each label question lists the three labels as its answer buttons
    assert len(LABEL_WORD.findall(body)) == len(LABEL_WORD.findall(buttons)) == 9
    rows = page.get_by_role("row").all_inner_texts()
    shown = [r.split("\t")[0].strip() for r in rows[1:4]]
    assert shown == ["A", "B", "C"]
    assert row["sentences"][order[0]]["sentence"] in rows[1]  # option A is the shuffled one
    assert row["sentences"][0]["sentence"] not in rows[1]  # ... and not the stereotype

    question(page, "validity").get_by_text("Valid as is", exact=True).click()
    for j, name in enumerate("ABC"):
        question(page, f"label_{name}").get_by_text(LABELS[order[j]], exact=True).click()
    page.get_by_role("button", name="Submit").click()
    submitted(page, 1)
    page.context.close()

    out = tmp_path / "reviewed"
    manifest = pull("ss-blind", out, connection, policy="unanimous")
    assert manifest["decisions"] == {"accept": 1}
    reviewed = pd.read_parquet(out / "reviewed.parquet")
    labels = [s["label"] for s in reviewed.iloc[0]["sentences"]]
    texts = [s["sentence"] for s in reviewed.iloc[0]["sentences"]]
    assert labels == list(LABELS)  # each sentence keeps the label the annotator gave it
    assert texts == [s["sentence"] for s in row["sentences"]]
    answers = pd.read_parquet(out / "responses.parquet").set_index("question")["value"]
    assert answers["label_A"] == LABELS[order[0]] != "stereotype"


def test_the_card_says_what_annotators_saw_as_the_settings_show(connection, tmp_path):
    row = hidden_stereotype_row()
    run = make_run(tmp_path / "run", [row], "stereoset")
    use_key(connection, "ss-card")
    pushed = push_run(run, "ss-card", connection, min_submitted=1, progress=False)
    remember_run(connection.url, connection.workspace, "ss-card", run)
    from tests.annotation.test_families import answer_as_owner

    order = option_order(row, key=TEST_KEY)
    values = {"validity": "valid", **{f"label_{'ABC'[j]}": LABELS[i] for j, i in enumerate(order)}}
    answer_as_owner(connection, pushed.dataset_id, {row["id"]: values})
    pull("ss-card", tmp_path / "reviewed", connection, policy="unanimous")
    release = make_release(
        [tmp_path / "reviewed"], name="ss-card", version="1.0.0", out=tmp_path / "rel"
    )
    card = (release.path / "README.md").read_text("utf-8")
    (sentence,) = [line for line in card.splitlines() if "Annotators saw the fields" in line]

    api = login(connection.url, *next(iter(people(connection, "card-ann").items())))
    fields = api.get(f"/api/v1/datasets/{pushed.dataset_id}/fields").json()["items"]
    meta = api.get(f"/api/v1/me/datasets/{pushed.dataset_id}/metadata-properties").json()
    visible = [m["title"] for m in meta["items"]]
    for field in fields:
        assert f"*{field['title']}*" in sentence
    for title in visible:
        assert f"*{title}*" in sentence
    assert f"`{CHECK_KEY}`" in sentence and CHECK_KEY not in json.dumps(meta)
    assert "kept from them" in sentence and "blind" in sentence
    assert "Judged questions started empty: annotators saw no suggested answers." in card


def test_every_annotator_gets_the_records_in_the_same_order(connection, becpro_run, tmp_path):
    from tests.annotation.conftest import subset_run
    from tests.annotation.helpers import queue

    run = subset_run(becpro_run, tmp_path / "run", 20)
    pushed = push_run(run, "same-order", connection, min_submitted=3, progress=False)
    team = people(connection, "order-ann1", "order-ann2", "order-ann3")
    orders = [
        [r["external_id"] for r in queue(login(connection.url, name, secret), pushed.dataset_id)]
        for name, secret in team.items()
    ]
    assert len(orders[0]) == 20 and orders[0] == orders[1] == orders[2]


def test_argilla_push_to_hub_is_refused_with_the_release_command(connection, tmp_path):
    import httpx

    run = make_run(tmp_path / "run", [hidden_stereotype_row()], "stereoset")
    pushed = push_run(run, "ss-hub", connection, min_submitted=1, progress=False)
    owner = httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    )
    body = {"name": "someone/ss-hub", "subset": "default", "split": "train", "private": True,
            "token": "hf_not_a_token"}  # fmt: skip
    refused = owner.post(f"/api/v1/datasets/{pushed.dataset_id}/export", json=body)
    assert refused.status_code == 422, refused.text
    assert "biasforge export release" in refused.text


def test_an_annotators_progress_counts_their_own_answers(connection, becpro_run, tmp_path):
    import httpx

    from tests.annotation.conftest import subset_run
    from tests.annotation.helpers import answer, queue

    run = subset_run(becpro_run, tmp_path / "run", 3)
    pushed = push_run(run, "own-progress", connection, min_submitted=3, progress=False)
    team = people(connection, "prog-ann1", "prog-ann2")
    api = login(connection.url, "prog-ann1", team["prog-ann1"])
    first = queue(api, pushed.dataset_id)[0]
    answer(api, first["id"], {"grammatical": "yes", "agreement": "yes"})
    mine = api.get(f"/api/v1/datasets/{pushed.dataset_id}/progress").json()
    assert (mine["total"], mine["completed"], mine["pending"]) == (3, 1, 2)
    other = login(connection.url, "prog-ann2", team["prog-ann2"])
    theirs = other.get(f"/api/v1/datasets/{pushed.dataset_id}/progress").json()
    assert (theirs["completed"], theirs["pending"]) == (0, 3)
    owner = httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    )
    whole = owner.get(f"/api/v1/datasets/{pushed.dataset_id}/progress").json()
    assert whole["completed"] == 0  # the team's figure: no record has its three answers yet
