"""Label preservation on the bundled StereoSet sample (issue 38), on the real server.

The 200 items of the bundled sample (curated to French) are pushed with two validated
StereoSet items as control items (``--controls FILE``, their answers implied by their own
labels). Two annotators answer through their own API, in bulk, by a plan indexed on the run's
order: every tenth item from the 4th has its options A and B swapped by both (labels changed,
with a note), from the 6th both reject it, from the 8th only one swaps (no unanimous answer:
pending); the rest get the source's labels. The expected figures — per domain and overall,
accepted items, preserved ones and the 95% Wilson interval — are computed here from the plan
and the textbook formula, not by the code under test.
"""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import pandas as pd
import pytest

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review.pull import pull
from biasforge.exports.release import make_release
from biasforge.families.base import DatasetKey
from biasforge.families.stereoset import known_answers
from tests.annotation.helpers import login
from tests.annotation.keyed import pushed_key
from tests.annotation.quality_helpers import (
    answer_in_bulk,
    whole_queue,
)
from tests.annotation.test_families import stereoset_rows
from tests.conftest import run_cli

DATASET = "ss-preservation"
TEAM = ("pres-ann1", "pres-ann2")
NOTE = "en France on dirait plutôt l'inverse"


def plan_of(index: int) -> str:
    return {3: "changed", 5: "rejected", 7: "split"}.get(index % 10, "kept")


def answers_of(who: str, row: dict, plan: str, key: DatasetKey) -> tuple[dict, str]:
    right = known_answers(row, key=key)
    values = {"validity": "reject" if plan == "rejected" else "valid", **right}
    if plan == "changed" or (plan == "split" and who == TEAM[0]):
        values["label_A"], values["label_B"] = values["label_B"], values["label_A"]
        values["note"] = NOTE if who == TEAM[0] else None
    return values, "submitted"


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval, from its textbook formula (Wilson 1927)."""
    z = NormalDist().inv_cdf(0.975)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@pytest.fixture(scope="module")
def review(server, stereoset_fr_run, tmp_path_factory):
    base = tmp_path_factory.mktemp("preservation")
    controls = base / "validated.jsonl"
    controls.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in stereoset_rows()))
    run_cli(
        "annotate", "push", stereoset_fr_run, "--dataset", DATASET, "--min-submitted", "2",
        "--controls", controls, "--data-dir", server.data_dir,
    )  # fmt: skip
    connection = find_server(server.data_dir)
    key = pushed_key(connection, DATASET)
    team = {u.username: u.password for u in add_users(connection, [(n, None) for n in TEAM])}
    rows = pd.read_parquet(stereoset_fr_run / "candidates.parquet").to_dict("records")
    plans = {str(r["id"]): plan_of(i) for i, r in enumerate(rows)}
    by_id = {str(r["id"]): r for r in rows}
    for who in TEAM:
        api = login(connection.url, who, team[who])
        dataset_id = next(d["id"] for d in api.get("/api/v1/me/datasets").json()["items"]
                          if d["name"] == DATASET)  # fmt: skip
        answers = []
        for record in whole_queue(api, dataset_id):
            rid = record["external_id"]
            if rid in by_id:
                values, status = answers_of(who, by_id[rid], plans[rid], key)
            else:  # a control item: its source's labels, which are right
                values, status = {"validity": "valid"}, "submitted"
                seen = json.dumps(record, ensure_ascii=False)
                control = next(r for r in stereoset_rows() if r["source_text"] in seen)
                values.update(known_answers({**control, "id": rid}, key=key))
            answers.append((record["id"], values, status))
        assert len(answers) == 202
        answer_in_bulk(api, answers)
    out = base / "reviewed"
    pull(DATASET, out, connection, policy="unanimous")
    return {"base": base, "out": out, "rows": rows, "plans": plans}


def expected_figures(rows: list[dict], plans: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Per domain and overall: (accepted items, items whose labels were kept)."""
    figures: dict[str, list[int]] = {}
    for row in rows:
        plan = plans[str(row["id"])]
        if plan in ("rejected", "split"):
            continue
        for key in (str(row["bias_type"]), "all"):
            counts = figures.setdefault(key, [0, 0])
            counts[0] += 1
            counts[1] += plan == "kept"
    return {k: (n, kept) for k, (n, kept) in figures.items()}


def test_preserved_share_equals_a_hand_computation(review):
    summary = json.loads((review["out"] / "agreement.json").read_text())
    found = summary["preservation"]
    expected = expected_figures(review["rows"], review["plans"])
    assert expected["all"] == (160, 140) and len(expected) == 5  # four domains and all
    shown = {**found["domains"], "all": found["overall"]}
    assert set(shown) == set(expected)
    for key, (n, kept) in expected.items():
        low, high = wilson(kept, n)
        figures = shown[key]
        assert (figures["items"], figures["preserved"]) == (n, kept), key
        assert figures["low"] == pytest.approx(low, abs=1e-12), key
        assert figures["high"] == pytest.approx(high, abs=1e-12), key
    accuracy = summary["controls"]["per_annotator"]
    assert {w: (a["controls"], a["answers"], a["accuracy"]) for w, a in accuracy.items()} == {
        w: (2, 6, 1.0) for w in TEAM
    }


def test_changed_items_are_listed_in_the_report_with_notes(review):
    report = (review["out"] / "report.md").read_text()
    section = report.split("## Label preservation", 1)[1]
    changed = [rid for rid, plan in review["plans"].items() if plan == "changed"]
    assert f"### {len(changed)} items whose labels changed" in section
    table = section.split("### ", 1)[1]
    for rid in changed:
        (line,) = [line for line in table.splitlines() if line.startswith(f"| {rid} |")]
        assert f"{TEAM[0]}: {NOTE}" in line
    others = [rid for rid, plan in review["plans"].items() if plan != "changed"]
    assert not [rid for rid in others if f"| {rid} |" in table]


def test_release_marks_changed_items_and_exclude_changed_leaves_them_out(review):
    plans = review["plans"]
    reviewed = pd.read_parquet(review["out"] / "reviewed.parquet").set_index("id")
    for rid, plan in plans.items():
        expected = {"changed": True, "kept": False}.get(plan)
        assert reviewed.loc[rid, "labels_changed"] == expected or (
            expected is None and pd.isna(reviewed.loc[rid, "labels_changed"])
        ), (rid, plan)
    kept = make_release(
        [review["out"]], name="ss-pres", version="1.0.0", out=review["base"] / "rel"
    )
    released = pd.concat(pd.read_parquet(p) for p in kept.path.glob("*/test.parquet"))
    assert dict(zip(released["id"], released["labels_changed"], strict=True)) == {
        rid: plan == "changed" for rid, plan in plans.items() if plan in ("changed", "kept")
    }
    card = (kept.path / "README.md").read_text()
    assert "whose labels equal the source's are 140 of 160 (87.5%;" in card
    assert "the 20 items whose labels changed are **kept with their new labels**" in card

    run_cli("export", "release", review["out"], "--name", "ss-pres", "--version", "1.1.0",
            "--out", review["base"] / "rel", "--exclude-changed")  # fmt: skip
    excluded = review["base"] / "rel" / "ss-pres" / "1.1.0"
    released = pd.concat(pd.read_parquet(p) for p in excluded.glob("*/test.parquet"))
    assert set(released["id"]) == {rid for rid, plan in plans.items() if plan == "kept"}
    assert not released["labels_changed"].any()
    card = (excluded / "README.md").read_text()
    assert "the 20 items whose labels changed were **excluded** from this release" in card
    assert "`export release --exclude-changed`" in card
