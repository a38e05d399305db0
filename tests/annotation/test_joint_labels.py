"""Issue 47, item 11: StereoSet's labels are one answer (a permutation over options A, B, C),
decided as one under every policy, on the real server.

Thirty records of the bundled StereoSet sample (curated to French), three annotators, every
validity answer "valid". ``ss-right`` gives each record's own labels; ``ss-rotated`` always a
valid permutation, the right one rotated by one option; ``ss-mixed`` the right labels on a
seeded 60% of records, elsewhere the rotation the other way. Deciding each label question on
its own (as pulls did) let the models assemble triplets nobody gave, such as
``unrelated, stereotype, stereotype``, and rejected valid items. On the last three records all
three annotators give the same impossible triplet (every option "stereotype"): decided, it
goes to adjudication with that reason, never to rejection.

Expected decisions are written from the plan: a combination given by two of three annotators
is the majority's; unanimous needs all three.
"""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.review.pull import pull
from biasforge.families.stereoset import known_answers
from tests.annotation.conftest import subset_run
from tests.annotation.helpers import login, pushed_run
from tests.annotation.keyed import pushed_key
from tests.annotation.quality_helpers import answer_in_bulk, whole_queue

DATASET = "ss-joint-labels"
TEAM = ("ss-right", "ss-rotated", "ss-mixed")
RECORDS, IMPOSSIBLE = 30, 3
QUESTIONS = ("label_A", "label_B", "label_C")
POLICIES = ("unanimous", "majority", "dawid-skene", "mace")


def rotated(labels: dict[str, str], by: int) -> dict[str, str]:
    values = [labels[q] for q in QUESTIONS]
    return dict(zip(QUESTIONS, values[by:] + values[:by], strict=True))


def labels_of(who: str, index: int, right: dict[str, str]) -> dict[str, str]:
    if index >= RECORDS - IMPOSSIBLE:
        return dict.fromkeys(QUESTIONS, "stereotype")
    if who == "ss-right":
        return right
    if who == "ss-rotated":
        return rotated(right, 1)
    return right if random.Random(f"47.11:{index}").random() < 0.6 else rotated(right, 2)


@pytest.fixture(scope="module")
def pulled(connection, stereoset_fr_run, tmp_path_factory):
    team = {u.username: u.password for u in add_users(connection, [(w, None) for w in TEAM])}
    base = tmp_path_factory.mktemp("joint")
    run = subset_run(stereoset_fr_run, base / "run", RECORDS)
    pushed = pushed_run(connection, run, DATASET, min_submitted=3)
    key = pushed_key(connection, DATASET)
    rows = pd.read_parquet(run / "candidates.parquet").to_dict("records")
    index = {str(r["id"]): i for i, r in enumerate(rows)}
    right = {str(r["id"]): known_answers(r, key=key) for r in rows}
    given: dict[str, dict[str, dict[str, str]]] = {}
    for who in TEAM:
        api = login(connection.url, who, team[who])
        records = whole_queue(api, pushed.dataset_id)
        assert len(records) == RECORDS
        given[who] = {
            r["external_id"]: labels_of(who, index[r["external_id"]], right[r["external_id"]])
            for r in records
        }
        answer_in_bulk(
            api,
            [(r["id"], {"validity": "valid", **given[who][r["external_id"]]}, "submitted")
             for r in records],
        )  # fmt: skip
    for policy in POLICIES:
        pull(DATASET, base / policy, connection, policy=policy, dry_run=True)
    return {"base": base, "given": given, "index": index}


def decisions(pulled, policy: str) -> dict[str, dict]:
    table = pd.read_parquet(pulled["base"] / policy / "decisions.parquet")
    return {d["id"]: d for d in table.to_dict("records")}


def test_the_plan_gives_valid_permutations_that_disagree(pulled):
    """The design's premise, from the answers sent: every answer a permutation outside the
    impossible records, and the three annotators disagree on some records."""
    given, index = pulled["given"], pulled["index"]
    possible = [rid for rid, i in index.items() if i < RECORDS - IMPOSSIBLE]
    for who in TEAM:
        for rid in possible:
            assert sorted(given[who][rid].values()) == sorted(
                ["stereotype", "anti-stereotype", "unrelated"]
            )
    split = [rid for rid in possible if len({str(given[w][rid]) for w in TEAM}) == 3]
    assert 5 <= len(split) <= 20, len(split)


@pytest.mark.parametrize("policy", POLICIES)
def test_no_valid_item_is_rejected_and_labels_are_somebodys_answer(pulled, policy):
    given, index = pulled["given"], pulled["index"]
    found = decisions(pulled, policy)
    assert len(found) == RECORDS
    assert [d["reason"] for d in found.values() if d["decision"] == "reject"] == []
    for rid, d in found.items():
        if d["decision"] != "accept":
            continue
        labels = {q: v for q, v in json.loads(d["decided"]).items() if q in QUESTIONS}
        assert labels in [given[w][rid] for w in TEAM], (rid, labels)
    if policy in ("unanimous", "majority"):
        for rid, i in index.items():
            answers = [str(given[w][rid]) for w in TEAM]
            top = max(answers.count(a) for a in answers)
            wanted = 3 if policy == "unanimous" else 2
            accepted = found[rid]["decision"] == "accept"
            assert accepted == (top >= wanted and i < RECORDS - IMPOSSIBLE), (rid, answers)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_decided_impossible_triplet_goes_to_adjudication_with_the_reason(pulled, policy):
    found = decisions(pulled, policy)
    impossible = [rid for rid, i in pulled["index"].items() if i >= RECORDS - IMPOSSIBLE]
    for rid in impossible:
        d = found[rid]
        assert d["decision"] == "pending", (rid, d["reason"])
        assert (
            "impossible labels (label_A=stereotype, label_B=stereotype, label_C=stereotype)"
            in (d["reason"])
        )
    report = (pulled["base"] / policy / "report.md").read_text(encoding="utf-8")
    assert "impossible labels" in report
