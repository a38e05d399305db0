"""The adaptation decision in a real browser (Debian chromium driven by Playwright) against the
embedded server (issue 44): annotators answer SHADES' question on StereoSet-fr items in the
review page, typing the replacement group or the reason there; ``annotate pull`` decides
``removed`` and ``modified`` with the typed text, and the release carries them in its
``adaptation`` column. Nothing in the page shows the source's labels or another annotator's
answer.

How the answers decide: two datasets, both decided ``unanimous``. ``ss-adapt-one`` asks one
answer a record (``min_submitted=1``): the one annotator's *no* (with a reason) decides
``removed``. ``ss-adapt-two`` asks two (``min_submitted=2``): both annotators' *yes, but about
another group* with the same group typed decides ``modified``. The release is made from both
reviewed folders.
"""

from __future__ import annotations

import re

import pyarrow.parquet as pq

from biasforge.annotation.review.pull import pull
from biasforge.exports.release import make_release
from biasforge.families.base import RECOGNISED_HELP, RECOGNISED_LABELS, RECOGNISED_TITLE
from tests.annotation.helpers import pushed_run, question, screenshot, sign_in
from tests.annotation.test_browser_review import open_dataset, people, submitted
from tests.annotation.test_families import make_run, stereoset_rows

REASON = "En France, on ne dit pas cela des mères."
GROUP = "les belles-mères"
LABEL_WORDS = re.compile(r"\b(anti-stereotype|stereotype|unrelated)\b")
CHECKED = '[aria-label^="Question: "] input[type=checkbox]:checked'


def answer_item(page, recognised: str, text: str, seen_before: list[str]) -> None:
    """Answer the shown item: valid, a label permutation, SHADES' question and its text box;
    first check that the page shows no label but the label questions' own options, no answer
    already given, and none of ``seen_before`` (what other annotators typed)."""
    body = page.inner_text("body")
    asked = body.replace(RECOGNISED_TITLE, "").replace(RECOGNISED_HELP, "")  # its own words
    assert len(LABEL_WORDS.findall(asked)) == 9  # 3 options × the 3 label questions, no more
    assert page.locator(CHECKED).count() == 0
    assert not [t for t in seen_before if t in body]
    assert RECOGNISED_TITLE in body
    question(page, "validity").get_by_text("Valid as is", exact=True).click()
    for name, label in zip("ABC", ("stereotype", "anti-stereotype", "unrelated"), strict=True):
        question(page, f"label_{name}").get_by_text(label, exact=True).click()
    question(page, "recognised").get_by_text(RECOGNISED_LABELS[recognised], exact=True).click()
    question(page, "adaptation_text").locator("[contenteditable=true]").fill(text)


def review(connection, browser, artifacts, dataset_id, who, password, recognised, text, seen):
    page = sign_in(browser, connection.url, who, password)
    open_dataset(page, connection.url, dataset_id, "recognised")
    answer_item(page, recognised, text, seen)
    screenshot(page, artifacts, f"adaptation-{who}")
    page.get_by_role("button", name="Submit").click()
    submitted(page, 1)
    page.context.close()


def test_removed_and_modified_are_decided_in_the_page_and_released(
    connection, browser, artifacts, tmp_path
):
    one, two = stereoset_rows()  # StereoSet-fr items (French, translated from English)
    run_one = make_run(tmp_path / "run-one", [one], "stereoset")
    run_two = make_run(tmp_path / "run-two", [two], "stereoset")
    pushed_one = pushed_run(connection, run_one, "ss-adapt-one", min_submitted=1)
    pushed_two = pushed_run(connection, run_two, "ss-adapt-two", min_submitted=2)
    team = people(connection, "adapt-ann1", "adapt-ann2", "adapt-ann3")
    (a1, p1), (a2, p2), (a3, p3) = team.items()
    review(connection, browser, artifacts, pushed_one.dataset_id, a1, p1, "no", REASON, [])
    review(connection, browser, artifacts, pushed_two.dataset_id, a2, p2, "other", GROUP, [])
    review(connection, browser, artifacts, pushed_two.dataset_id, a3, p3, "other", GROUP, [GROUP])

    outs = [tmp_path / "reviewed-one", tmp_path / "reviewed-two"]
    for dataset, out in zip(("ss-adapt-one", "ss-adapt-two"), outs, strict=True):
        pull(dataset, out, connection, policy="unanimous")
    decided = [pq.read_table(o / "decisions.parquet").to_pylist()[0] for o in outs]
    assert [(d["decision"], d["adaptation"], d["adaptation_note"]) for d in decided] == [
        ("accept", "removed", REASON),
        ("accept", "modified", GROUP),
    ]
    assert "Adaptation of the accepted items (SHADES' question): removed: 1" in (
        outs[0] / "report.md"
    ).read_text("utf-8")
    release = make_release(outs, name="ss-adapt", version="1.0.0", out=tmp_path / "rel")
    rows = {
        r["id"]: r for c in release.configs
        for r in pq.read_table(release.path / c / "test.parquet").to_pylist()
    }  # fmt: skip
    assert {
        rid: (r["adaptation"], r["adaptation_note"], r["origin"]) for rid, r in rows.items()
    } == {
        one["id"]: ("removed", REASON, "translated"),
        two["id"]: ("modified", GROUP, "translated"),
    }
    card = (release.path / "README.md").read_text("utf-8")
    assert "| gender | 0 | 1 | 1 | 0 | 2 |" in card and REASON in card
