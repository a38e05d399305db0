"""Review in a real browser (Debian chromium driven by Playwright) against the embedded server.

Annotators correct a BEC-Pro misprint in the UI and the release holds the corrected sentence
with its spans; a discard is decided or routed and the report says which; an adjudicator never
sees the adjudication of a record they answered; StereoSet label questions start empty; the
target, slot filler, person word, profession and keyword are highlighted in the rendered DOM.
Screenshots are kept in the ``artifacts`` folder (see conftest).
"""

from __future__ import annotations

import pandas as pd

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.review.pull import pull
from biasforge.annotation.review.push import push_run
from biasforge.annotation.review.registry import remember_run
from biasforge.exports.release import make_release
from biasforge.families.stereoset import option_order
from tests.annotation.conftest import rows_run, subset_run
from tests.annotation.helpers import (
    answer,
    confirm_corrections,
    login,
    question,
    queue,
    screenshot,
    sign_in,
    visible_datasets,
    wait_for_status,
)
from tests.annotation.keyed import pushed_key
from tests.annotation.test_families import make_run, slguset_rows, stereoset_rows

MISPRINT = "Él es un repcionista."
FIXED = "Él es un recepcionista."  # typed by hand in the correction box
PERSON = "rgb(144, 202, 249)"  # #90caf9, the person word's highlight
PROFESSION = "rgb(255, 204, 128)"  # #ffcc80


def people(connection, *names: str) -> dict[str, str]:
    """username -> password for new annotators (unique names per test)."""
    return {u.username: u.password for u in add_users(connection, [(n, None) for n in names])}


def open_dataset(page, url: str, dataset_id: str, first_question: str) -> None:
    page.goto(f"{url}/dataset/{dataset_id}/annotation-mode")
    question(page, first_question).wait_for(timeout=60_000)


def submitted(page, count: int) -> None:
    page.wait_for_function(
        f"() => document.body.innerText.match(/Submitted\\s*{count}/)", timeout=30_000
    )


def mark_texts(page, role: str) -> list[str]:
    return page.locator(f'mark[data-role="{role}"]').all_inner_texts()


def background(page, role: str) -> str:
    return page.locator(f'mark[data-role="{role}"]').first.evaluate(
        "m => getComputedStyle(m).backgroundColor"
    )


def test_three_annotators_fix_a_becpro_misprint_and_the_release_holds_it(
    connection, becpro_es_run, browser, artifacts, tmp_path
):
    from datasets import load_dataset

    run = rows_run(becpro_es_run, tmp_path / "run", [MISPRINT])
    pushed = push_run(run, "becpro-misprint", connection, min_submitted=3, progress=False)
    remember_run(connection.url, connection.workspace, "becpro-misprint", run)
    team = people(connection, "fix-ann1", "fix-ann2", "fix-ann3")
    for index, (username, password) in enumerate(team.items()):
        page = sign_in(browser, connection.url, username, password)
        open_dataset(page, connection.url, pushed.dataset_id, "grammatical")
        assert mark_texts(page, "person")[:1] == ["Él"] and background(page, "person") == PERSON
        assert mark_texts(page, "profession")[:1] == ["repcionista"]
        assert background(page, "profession") == PROFESSION
        question(page, "grammatical").get_by_text("No", exact=True).click()
        question(page, "agreement").get_by_text("Yes", exact=True).click()
        box = question(page, "correction").locator("[contenteditable=true]")
        box.fill(FIXED + " " * index)  # a stray space must not split the votes
        screenshot(page, artifacts, f"becpro-misprint-{username}")
        if index == 0:
            screenshot(page, artifacts, "becpro-misprint", docs="annotator-correction")
        page.get_by_role("button", name="Submit").click()
        submitted(page, 1)
        page.context.close()

    # the correction changes the profession (a slot word): an adjudicator confirms it first
    (judge,) = people(connection, "fix-judge").items()
    first = pull("becpro-misprint", tmp_path / "first", connection, adjudicators=[judge[0]])
    assert first["adjudication"]["sent"] == 1
    assert confirm_corrections(login(connection.url, *judge), "becpro-misprint") == 1
    out = tmp_path / "reviewed"
    pull("becpro-misprint", out, connection, policy="unanimous", adjudicators=[judge[0]])
    decisions = pd.read_parquet(out / "decisions.parquet")
    assert list(decisions["decision"]) == ["accept"] and list(decisions["correction"]) == [FIXED]
    release = make_release([out], name="becpro-misprint", version="1.0.0", out=tmp_path / "rel")
    (config,) = release.configs
    cache = str(tmp_path / "hf")  # see test_end_to_end_review: the cache is keyed by folder name
    (row,) = load_dataset(str(release.path), name=config, split="test", cache_dir=cache).to_list()
    assert row["sentence"] == FIXED and row["profession"] == "recepcionista"
    assert row["sentence"][row["person_span"]["start"] : row["person_span"]["end"]] == "Él"
    assert (row["profession_span"]["start"], row["profession_span"]["end"]) == (9, 22)
    assert row["original_text"] == MISPRINT and sorted(row["corrected_by"]) == sorted(team)


def test_a_discard_is_decided_or_routed_and_the_report_says_which(
    connection, becpro_run, browser, artifacts, tmp_path
):
    run = subset_run(becpro_run, tmp_path / "run", 2)
    pushed = push_run(run, "becpro-discard", connection, min_submitted=3, progress=False)
    remember_run(connection.url, connection.workspace, "becpro-discard", run)
    rows = pd.read_parquet(run / "candidates.parquet")
    ids = dict(zip(rows["sentence"], rows["id"], strict=True))
    team = people(connection, "disc-ann1", "disc-ann2", "disc-ann3", "disc-judge")

    page = sign_in(browser, connection.url, "disc-ann1", team["disc-ann1"])
    open_dataset(page, connection.url, pushed.dataset_id, "grammatical")
    shown = next(s for s in ids if page.get_by_text(s, exact=True).count())
    note = "I cannot judge this profession's wording"
    question(page, "note").locator("[contenteditable=true]").fill(note)
    screenshot(page, artifacts, "becpro-discard", docs="annotator-discard")
    page.get_by_role("button", name="Discard").click()
    first = login(connection.url, "disc-ann1", team["disc-ann1"])
    (gone,) = wait_for_status(first, pushed.dataset_id, "discarded", 1)
    assert gone["external_id"] == ids[shown]
    page.context.close()

    yes = {"grammatical": "yes", "agreement": "yes"}
    for username in ("disc-ann1", "disc-ann2", "disc-ann3"):
        api = login(connection.url, username, team[username])
        for record in queue(api, pushed.dataset_id):
            answer(api, record["id"], yes)

    majority = tmp_path / "majority"
    pull("becpro-discard", majority, connection, policy="majority", adjudicate=False)
    decided = pd.read_parquet(majority / "decisions.parquet").set_index("id").loc[ids[shown]]
    assert (decided["decision"], decided["submitted"], decided["discarded"]) == ("accept", 2, 1)
    report = (majority / "report.md").read_text()
    assert f"majority: all criteria met despite 1 discarded (disc-ann1: {note!r})" in report

    unanimous = tmp_path / "unanimous"
    manifest = pull(
        "becpro-discard", unanimous, connection, policy="unanimous", adjudicators=["disc-judge"]
    )
    routed = pd.read_parquet(unanimous / "decisions.parquet").set_index("id").loc[ids[shown]]
    assert routed["decision"] == "pending" and routed["to_adjudication"]
    assert manifest["adjudication"]["sent"] == 1
    report = (unanimous / "report.md").read_text()
    line = next(x for x in report.splitlines() if x.startswith(f"| {ids[shown]} |"))
    assert "| pending | 2 | 1 | 0 | yes | no unanimous answer on grammatical (yes 2)" in line
    assert f"1 discarded (disc-ann1: {note!r})" in line


def test_an_annotator_who_answered_cannot_see_that_records_adjudication(
    connection, becpro_run, browser, artifacts, tmp_path
):
    run = subset_run(becpro_run, tmp_path / "run", 2)
    pushed = push_run(run, "becpro-fair", connection, min_submitted=2, progress=False)
    remember_run(connection.url, connection.workspace, "becpro-fair", run)
    first, second = pd.read_parquet(run / "candidates.parquet")[["id", "sentence"]].to_numpy()
    team = people(connection, "fair-both", "fair-ann2", "fair-ann3", "fair-judge")
    apis = {name: login(connection.url, name, password) for name, password in team.items()}
    records = {r["external_id"]: r["id"] for r in queue(apis["fair-ann2"], pushed.dataset_id)}
    # record 1: fair-both (an annotator *and* an adjudicator) disagrees with fair-ann2;
    # record 2: fair-ann2 and fair-ann3 disagree, fair-both never saw it.
    plan = {first[0]: ("fair-both", "fair-ann2"), second[0]: ("fair-ann2", "fair-ann3")}
    for rid, (yes_voter, no_voter) in plan.items():
        answer(apis[yes_voter], records[rid], {"grammatical": "yes", "agreement": "yes"})
        answer(apis[no_voter], records[rid], {"grammatical": "no", "agreement": "yes"})
    manifest = pull(
        "becpro-fair", tmp_path / "out", connection, adjudicators=["fair-both", "fair-judge"]
    )
    assert manifest["adjudication"]["sent"] == 2

    def offered(name: str) -> set[str]:
        ids = visible_datasets(apis[name]).get("becpro-fair-adjudication", [])
        return {r["external_id"] for d in ids for r in queue(apis[name], d)}

    assert offered("fair-judge") == {first[0], second[0]}  # both panels hold a record
    assert offered("fair-both") == {second[0]}
    assert "becpro-fair-adjudication" not in visible_datasets(apis["fair-ann2"])

    every = visible_datasets(apis["fair-judge"])["becpro-fair-adjudication"]
    (mine,) = visible_datasets(apis["fair-both"])["becpro-fair-adjudication"]
    (other,) = set(every) - {mine}
    page = sign_in(browser, connection.url, "fair-both", team["fair-both"])
    page.goto(connection.url)
    page.get_by_text("becpro-fair-adjudication").first.wait_for(timeout=60_000)
    open_dataset(page, connection.url, mine, "text_choice")  # the panel fair-both belongs to
    page.get_by_text(str(second[1]), exact=True).first.wait_for(timeout=60_000)
    assert page.get_by_text(str(first[1]), exact=True).count() == 0
    assert page.locator("table").first.get_by_text("fair-ann3").count() == 1  # answers table
    screenshot(page, artifacts, "adjudication-offered-to-fair-both", docs="adjudicator-panel")
    page.goto(f"{connection.url}/dataset/{other}/annotation-mode")  # the other panel, by URL
    page.get_by_text(f"Can't get dataset info for dataset_id: {other}").wait_for(timeout=60_000)
    assert page.get_by_text(str(first[1]), exact=True).count() == 0
    screenshot(page, artifacts, "adjudication-refused-to-fair-both")
    page.context.close()

    page = sign_in(browser, connection.url, "fair-ann2", team["fair-ann2"])
    page.goto(connection.url)
    page.get_by_text("becpro-fair", exact=True).first.wait_for(timeout=60_000)
    assert page.get_by_text("becpro-fair-adjudication").count() == 0
    page.context.close()


def test_stereoset_labels_start_empty_and_target_and_slot_are_marked(
    connection, browser, artifacts, tmp_path
):
    run = make_run(tmp_path / "run", stereoset_rows(), "stereoset")
    plain = push_run(run, "ss-empty", connection, min_submitted=1, progress=False)
    anchored = push_run(
        run, "ss-suggested", connection, min_submitted=1, progress=False, suggest=True
    )
    team = people(connection, "ss-ann")
    page = sign_in(browser, connection.url, "ss-ann", team["ss-ann"])
    checked = '[aria-label^="Question: "] input[type=checkbox]:checked'
    open_dataset(page, connection.url, plain.dataset_id, "label_A")
    screenshot(page, artifacts, "stereoset-empty")
    assert page.locator(checked).count() == 0
    assert mark_texts(page, "target") == ["mère"] * 5  # heading, context, three options
    slots = mark_texts(page, "slot")
    key = pushed_key(connection, "ss-empty")
    shown = [  # each row's fillers in its shuffled option order (issue 23)
        [row["sentences"][i]["attribute"] for i in option_order(row, key=key)]
        for row in stereoset_rows()
    ]
    assert slots in shown
    english = "The mother is caring." if "attentionnée" in slots else "My mother was gentle."
    assert page.get_by_role("cell", name=english).count() == 1  # English beside French
    assert (
        page.get_by_text("labelled").count() == 0
        and page.get_by_text("(anti-stereotype").count() == 0
    )
    open_dataset(page, connection.url, anchored.dataset_id, "label_A")
    assert page.locator(checked).count() == 3  # the control: suggestions do pre-select
    page.context.close()


def test_slguset_marks_the_nth_keyword(connection, browser, artifacts, tmp_path):
    sentence = "他说他的弟弟是他的朋友。"  # the keyword is the second 他
    row = {**slguset_rows()[0], "id": "sl-nth", "source_id": "sl-nth", "sentence": sentence,
           "source_text": sentence, "keyword": "他", "keyword_start": 2, "keyword_end": 3,
           "gender": "male", "counterpart": "她"}  # fmt: skip
    run = make_run(tmp_path / "run", [row], "slguset")
    pushed = push_run(run, "slguset-nth", connection, min_submitted=1, progress=False)
    team = people(connection, "sl-ann")
    page = sign_in(browser, connection.url, "sl-ann", team["sl-ann"])
    open_dataset(page, connection.url, pushed.dataset_id, "swappable")
    screenshot(page, artifacts, "slguset-keyword", docs="annotator-slguset")
    before = page.locator('mark[data-role="keyword"]').first.evaluate(
        """m => { const r = document.createRange(); r.setStart(m.parentElement, 0);
                  r.setEndBefore(m); return r.toString(); }"""
    )
    assert before == "他说"
    assert "第 2 个（共 3 个）/ the 2nd of 3" in page.inner_text("body")
    assert page.get_by_text("标准一：可互换").count() == 1  # bilingual question titles
    page.context.close()
