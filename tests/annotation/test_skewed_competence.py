"""Issue 47, item 1: annotators ranked and flagged right on skewed yes/no questions, on the
real server.

140 English BEC-Pro items (all grammatical, as published) are pushed with six control items
(``--control-share``: a planted misprint, known answer "not grammatical"). Three simulated
annotators answer both questions of every record: ``sk-97`` right with probability 0.97,
``sk-80`` with 0.80 (else the other answer), ``sk-yes`` always "yes"; on the controls they get
6, 5 and 0 of 6 right, as in the issue. About nine answers in ten are "yes", so MACE cannot
tell careful annotators from the one-button one (it gave 0.45, 0.43 and 0.50 and flagged all
three). Now the skewed questions are said not to be identifiable, and the controls decide:
only ``sk-yes`` is flagged, with its control score as the reason.
"""

from __future__ import annotations

import json
import random

import pytest

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.review import controls
from biasforge.annotation.review.pull import pull
from tests.annotation.conftest import subset_run
from tests.annotation.helpers import login
from tests.annotation.quality_helpers import answer_in_bulk, whole_queue
from tests.conftest import run_cli

DATASET = "becpro-skewed"
ACCURACY = {"sk-97": 0.97, "sk-80": 0.80, "sk-yes": None}
CONTROLS_RIGHT = {"sk-97": 6, "sk-80": 5, "sk-yes": 0}


def answer_of(who: str, rid: str, control: int | None) -> dict[str, str]:
    """Both questions' answers: a control's "grammatical" by the plan, the rest simulated."""
    if ACCURACY[who] is None:
        return {"grammatical": "yes", "agreement": "yes"}
    rng = random.Random(f"47.1:{who}:{rid}")
    values = {
        q: "yes" if rng.random() < ACCURACY[who] else "no" for q in ("grammatical", "agreement")
    }
    if control is not None:
        values["grammatical"] = "no" if control < CONTROLS_RIGHT[who] else "yes"
    return values


@pytest.fixture(scope="module")
def pulled(connection, server, becpro_run, tmp_path_factory):
    team = {u.username: u.password for u in add_users(connection, [(w, None) for w in ACCURACY])}
    base = tmp_path_factory.mktemp("skewed")
    run = subset_run(becpro_run, base / "run", 140)
    run_cli("annotate", "push", run, "--dataset", DATASET, "--min-submitted", "3",
            "--control-share", "0.043", "--data-dir", server.data_dir)  # fmt: skip
    planted = {c.id: i for i, c in enumerate(controls.load(connection.url, connection.workspace,
                                                           DATASET))}  # fmt: skip
    assert len(planted) == 6
    given = []
    for who in ACCURACY:
        api = login(connection.url, who, team[who])
        dataset_id = next(d["id"] for d in api.get("/api/v1/me/datasets").json()["items"]
                          if d["name"] == DATASET)  # fmt: skip
        records = whole_queue(api, dataset_id)
        assert len(records) == 140  # 134 items, 6 controls (their 6 items withheld)
        answers = [(r["id"], answer_of(who, r["external_id"], planted.get(r["external_id"])))
                   for r in records]  # fmt: skip
        given += [v for _, values in answers for v in values.values()]
        answer_in_bulk(api, [(rid, values, "submitted") for rid, values in answers])
    out = base / "reviewed"
    pull(DATASET, out, connection, policy="majority", dry_run=True)
    return {"out": out, "given": given}


def test_the_answers_are_skewed_as_in_the_issue(pulled):
    share = pulled["given"].count("yes") / len(pulled["given"])
    assert share >= 0.85, share


def test_only_the_one_button_annotator_is_flagged_by_the_controls(pulled):
    summary = json.loads((pulled["out"] / "agreement.json").read_text())
    assert summary["flagged"] == {
        "sk-yes": ["controls 0/6 right (at most 0.00 beyond chance, 95 %)"]
    }
    people = summary["annotators"]
    accuracy = {w: people[w]["control_accuracy"] for w in ACCURACY}
    assert accuracy == {"sk-97": 1.0, "sk-80": 5 / 6, "sk-yes": 0.0}
    # no competence figure where the answers cannot tell annotators apart, and the report
    # says why instead of ranking them by it
    assert {w: people[w]["competence"] for w in ACCURACY} == dict.fromkeys(ACCURACY)
    for question in ("grammatical", "agreement"):
        notes = " ".join(summary["competence"][question]["notes"])
        assert "of answers are 'yes': the models cannot tell careful annotators" in notes
    report = (pulled["out"] / "report.md").read_text(encoding="utf-8")
    todo = report.split("**To do (annotators):**", 1)[1]
    assert "- sk-yes: controls 0/6 right" in todo
    assert not [line for line in todo.splitlines() if line.startswith(("- sk-97", "- sk-80"))]
    assert "not identifiable" in report
