"""A StereoSet dataset pushed before the adaptation question existed (issue 44) pulls as it did:
no ``recognised`` question on the server, no adaptation columns in its reviewed records, the
same decisions, and a release whose items count as ``transferred`` with a card that says so."""

from __future__ import annotations

import dataclasses

import pyarrow.parquet as pq

from biasforge import families
from biasforge.annotation.client.api import http, questions
from biasforge.annotation.review.pull import pull
from biasforge.exports.release import make_release
from biasforge.families.base import RECOGNISED
from biasforge.families.stereoset import known_answers
from tests.annotation.helpers import pushed_run
from tests.annotation.keyed import pushed_key
from tests.annotation.test_families import answer_as_owner, make_run, stereoset_rows


def test_a_dataset_pushed_before_the_question_pulls_as_before(connection, tmp_path):
    rows = stereoset_rows()
    run = make_run(tmp_path / "run", rows, "stereoset")
    current = families.get("stereoset")
    before = dataclasses.replace(
        current, review=dataclasses.replace(current.review, adaptation=None)
    )  # the family as it was before the question
    families.register(before, replace=True)
    try:
        pushed = pushed_run(connection, run, "ss-before-adaptation", min_submitted=1)
    finally:
        families.register(current, replace=True)
    with http(connection) as api:
        assert RECOGNISED not in {q["name"] for q in questions(api, pushed.dataset_id)}
    key = pushed_key(connection, "ss-before-adaptation")
    answer_as_owner(
        connection, pushed.dataset_id,
        {r["id"]: {"validity": "valid", **known_answers(r, key=key)} for r in rows},
    )  # fmt: skip
    out = tmp_path / "reviewed"
    pull("ss-before-adaptation", out, connection, policy="unanimous")
    reviewed = pq.read_table(out / "reviewed.parquet")
    assert "adaptation" not in reviewed.column_names
    assert reviewed.column("decision").to_pylist() == ["accept", "accept"]
    assert reviewed.column("labels_changed").to_pylist() == [False, False]
    release = make_release([out], name="ss-before", version="1.0.0", out=tmp_path / "rel")
    (config,) = release.configs
    released = pq.read_table(release.path / config / "test.parquet")
    assert released.column("adaptation").to_pylist() == ["transferred"] * 2
    card = (release.path / "README.md").read_text("utf-8")
    assert "2 of the 2 items carry no adaptation decision" in card
