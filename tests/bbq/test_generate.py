"""BBQ generated from its templates equals what the authors published.

Every instance draws an "unknown" wording and an answer order (the authors' ``random.choice``
and ``random.shuffle``), so instances are compared in a form without those two draws: the
non-unknown answers with their ``answer_info``, the correct answer's text (or "unknown"),
context, question, polarity, condition and metadata. A template whose instances in that form
do not depend on the seed draws nothing else; its instances must equal the published ones as a
multiset. The others (lexical-diversity words, sampled group words) must have as many instances
as published, with the same fields.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest

from biasforge.curation.bbq.generate import CATEGORIES, generate
from biasforge.curation.bbq.instances import KEYS, UNKNOWN_OPTIONS
from tests.bbq.published import PUBLISHED, instances

#: templates without draws beyond wording and order, per category (found by the test below)
DRAW_FREE = {
    "Age": 18,
    "Disability_status": 19,
    "Nationality": 0,
    "Physical_appearance": 14,
    "Religion": 0,
    "Sexual_orientation": 20,
}


def _canonical(row: dict) -> str:
    unknown = [k for k in KEYS if row["answer_info"][k][1] == "unknown"]
    assert len(unknown) == 1 and row[unknown[0]] in UNKNOWN_OPTIONS, row
    assert row["answer_info"][unknown[0]][0] == row[unknown[0]]
    others = sorted(json.dumps([row[k], row["answer_info"][k]]) for k in KEYS if k != unknown[0])
    answer = KEYS[row["label"]]
    correct = "unknown" if answer == unknown[0] else row[answer]
    fields = ("question_index", "question_polarity", "context_condition", "category")
    return json.dumps(
        [
            [row[f] for f in fields],
            row["context"],
            row["question"],
            others,
            correct,
            row["additional_metadata"],
        ]
    )


def _by_template(rows: list[dict]) -> dict[str, Counter]:
    out: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        out[row["question_index"]][_canonical(row)] += 1
    return out


@pytest.mark.parametrize("category", PUBLISHED)
def test_generation_equals_the_published_instances(category: str) -> None:
    published = instances(category)
    first, second = generate(category, seed=0), generate(category, seed=1)
    assert [list(r) for r in first] == [list(r) for r in published]  # fields, in their order
    assert [r["example_id"] for r in first] == list(range(len(published)))
    ours, other_seed, theirs = _by_template(first), _by_template(second), _by_template(published)
    assert sorted(ours) == sorted(theirs)
    for template in theirs:
        assert sum(ours[template].values()) == sum(theirs[template].values()), template
    draw_free = [t for t in theirs if ours[t] == other_seed[t]]
    assert len(draw_free) == DRAW_FREE[category]
    for template in draw_free:
        assert ours[template] == theirs[template], template


def test_a_seed_gives_one_output() -> None:
    runs = [json.dumps(generate("Sexual_orientation", seed=s)) for s in (7, 7, 8)]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


@pytest.mark.parametrize("category", sorted(set(CATEGORIES) - set(PUBLISHED)))
def test_categories_without_published_files_have_the_papers_counts(category: str) -> None:
    # the paper's Table 1 / the authors' data files (Gender_identity, Race_ethnicity, SES)
    expected = {"Gender_identity": 5672, "Race_ethnicity": 6880, "SES": 6864}
    rows = generate(category, seed=0)
    assert len(rows) == expected[category]
    assert all(_canonical(row) for row in rows)
