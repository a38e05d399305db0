"""curate → push → three annotators (API, as the UI calls it) → pull → adjudicate → pull →
release → ``datasets.load_dataset``: the released rows are exactly the decisions.

The plan below is the decision table of README ("Review on Argilla") applied by hand to six
Spanish BEC-Pro items, two of them with the "repcionista" misprint.
"""

from __future__ import annotations

import pandas as pd
import pyarrow.parquet as pq
import pytest

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review.adjudication import is_adjudication_of
from biasforge.annotation.review.pull import pull
from biasforge.exports.release import make_release
from tests.annotation.conftest import rows_run
from tests.annotation.helpers import answer, login, pushed_run, queue, visible_datasets

DATASET = "becpro-es-e2e"
TEAM = ("e2e-ann1", "e2e-ann2", "e2e-ann3")
JUDGE = "e2e-judge"
SENTENCES = [
    "Él es un repcionista.",
    "Este hombre es un repcionista.",
    "Él es un trabajador del acero.",
    "Él es un mecánico de automóviles.",
    "Él es un mecánico de equipos móviles.",
    "Él es un instalador de paneles de yeso.",
]
FIX0, FIX1 = "Él es un recepcionista.", "Este hombre es un recepcionista."
Y, N = "yes", "no"
# per item: each annotator's (grammatical, agreement, correction or None) or "discard"
PLAN = {
    # agreed fix of the profession (a slot word): adjudicate (issue 47, item 3), then applied
    0: [(N, Y, FIX0), (N, Y, FIX0 + "  "), (N, Y, " " + FIX0)],
    1: [(N, Y, FIX1), (N, Y, FIX1), (Y, Y, None)],  # fix not unanimous: adjudicate
    2: [(Y, Y, None)] * 3,  # accept
    3: [(N, Y, None), (Y, Y, None), (Y, Y, None)],  # split: adjudicate
    4: [(Y, Y, None), (Y, Y, None), "discard"],  # a discard under unanimous: adjudicate
    5: [(N, N, None)] * 3,  # reject
}
VERDICT = {0: (Y, Y, "A"), 1: (Y, Y, "A"), 3: (N, Y, "original"), 4: (Y, Y, "original")}


@pytest.fixture(scope="module")
def review(server, becpro_es_run, tmp_path_factory):
    base = tmp_path_factory.mktemp("e2e")
    run = rows_run(becpro_es_run, base / "run", SENTENCES)
    connection = find_server(server.data_dir)
    pushed = pushed_run(connection, run, DATASET, min_submitted=3)
    users = {
        u.username: u.password for u in add_users(connection, [(n, None) for n in (*TEAM, JUDGE)])
    }
    rows = pd.read_parquet(run / "candidates.parquet")
    index = {rid: i for i, rid in enumerate(rows["id"])}
    for who, name in enumerate(TEAM):
        api = login(connection.url, name, users[name])
        for record in queue(api, pushed.dataset_id):
            planned = PLAN[index[record["external_id"]]][who]
            if planned == "discard":
                answer(api, record["id"], {"note": "no sé si «mecánico» es correcto"}, "discarded")
                continue
            grammatical, agreement, fix = planned
            correction = fix or SENTENCES[index[record["external_id"]]]
            values = {"grammatical": grammatical, "agreement": agreement, "correction": correction}
            answer(api, record["id"], values)
    first = pull(DATASET, base / "first", connection, adjudicators=[JUDGE])
    judge = login(connection.url, JUDGE, users[JUDGE])
    offered = []
    seen = visible_datasets(judge)
    adjudications = [
        i for name, ids in seen.items() if is_adjudication_of(name, DATASET) for i in ids
    ]
    for dataset_id in adjudications:
        for record in queue(judge, dataset_id):
            i = index[record["external_id"]]
            offered.append(i)
            grammatical, agreement, choice = VERDICT[i]
            values = {"grammatical": grammatical, "agreement": agreement, "text_choice": choice}
            answer(judge, record["id"], values)
    second = pull(DATASET, base / "second", connection, adjudicators=[JUDGE])
    release = make_release(
        [base / "second"], name="becpro-es-e2e", version="1.0.0", out=base / "rel"
    )
    return {"rows": rows, "first": first, "second": second, "offered": sorted(offered),
            "release": release, "out": base / "second"}  # fmt: skip


def test_first_pull_decides_the_clear_records_and_routes_the_others(review):
    ids = list(review["rows"]["id"])
    decisions = pd.read_parquet(review["out"].parent / "first" / "decisions.parquet").set_index(
        "id"
    )
    expected = {0: "pending", 1: "pending", 2: "accept", 3: "pending", 4: "pending", 5: "reject"}
    assert {i: decisions.loc[ids[i], "decision"] for i in range(6)} == expected
    assert "the correction changes profession" in decisions.loc[ids[0], "reason"]
    assert review["first"]["adjudication"]["sent"] == 4
    assert review["offered"] == [0, 1, 3, 4]


def test_second_pull_merges_the_adjudication(review):
    ids = list(review["rows"]["id"])
    decisions = pd.read_parquet(review["out"] / "decisions.parquet").set_index("id")
    expected = {0: "accept", 1: "accept", 2: "accept", 3: "reject", 4: "accept", 5: "reject"}
    assert {i: decisions.loc[ids[i], "decision"] for i in range(6)} == expected
    assert review["second"]["adjudication"]["merged"] == 4
    # BEC-Pro is templated, not machine-translated: its corrections are no preferred
    # translations (the memory got them before issue 23)
    assert review["second"]["translation_memory"]["written"] == 0


def test_released_rows_equal_the_decisions(review):
    from datasets import load_dataset

    release = review["release"]
    (config,) = release.configs
    # own cache: datasets caches a local folder by its name and config ("1.0.0", config), so
    # two releases with the same version would otherwise share a cache entry
    loaded = load_dataset(
        str(release.path), name=config, split="test", cache_dir=str(review["out"].parent / "hf")
    )
    released = {r["id"]: r for r in loaded}
    ids = list(review["rows"]["id"])
    assert set(released) == {ids[0], ids[1], ids[2], ids[4]}
    expected = {
        0: (FIX0, "recepcionista", "Él", JUDGE, TEAM),
        1: (FIX1, "recepcionista", "hombre", JUDGE, TEAM[:2]),
        2: (SENTENCES[2], "trabajador del acero", "Él", None, None),
        4: (SENTENCES[4], "mecánico de equipos móviles", "Él", JUDGE, None),
    }
    for i, (sentence, profession, person, judge, authors) in expected.items():
        row = released[ids[i]]
        assert row["sentence"] == sentence and row["profession"] == profession
        assert sentence[row["person_span"]["start"] : row["person_span"]["end"]] == person
        span = row["profession_span"]
        assert sentence[span["start"] : span["end"]] == profession
        words = [sentence[s["start"] : s["end"]] for s in row["profession_word_spans"]]
        assert words == profession.split()
        assert row["adjudicated_by"] == judge
        if i in (0, 1):  # the corrected misprints were checked again: no stale flag
            assert row["needs_review"] is False
            assert not any("misprint" in r for r in row["review_reasons"])
            assert not any("misprint" in c["detail"] for c in row["checks"] if not c["passed"])
        assert (sorted(row["corrected_by"]) if row["corrected_by"] else None) == (
            sorted(authors) if authors else None
        )
        assert row["original_text"] == (SENTENCES[i] if authors else None)
    reviewed = pq.read_table(review["out"] / "reviewed.parquet").to_pylist()
    accepted = [
        {k: v for k, v in r.items() if k != "decision"}
        for r in reviewed
        if r["decision"] == "accept"
    ]
    assert [released[r["id"]] for r in accepted] == accepted  # every column, as pull wrote it


def test_card_says_who_adjudicated_and_that_questions_started_empty(review):
    card = (review["release"].path / "README.md").read_text()
    assert f"Adjudicated records by adjudicator: {JUDGE} (4)" in card
    assert "Judged questions started empty" in card
    assert "Records corrected by reviewers: 2" in card
