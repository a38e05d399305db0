"""BBQ's intersectional categories: the authors' published totals, three contrasts in equal
numbers, a seed gives one output. (Their published files are not in the bundled snapshot, so
no instance-level comparison here.)"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from biasforge.curation.bbq.intersectional import generate

#: the authors' data/Race_x_gender.jsonl and data/Race_x_SES.jsonl line counts (the paper's 58,492)
PUBLISHED_COUNTS = {"Race_x_gender": 15960, "Race_x_SES": 11160}
TEMPLATES = {"Race_x_gender": 42, "Race_x_SES": 26}


@pytest.mark.parametrize("category", sorted(PUBLISHED_COUNTS))
def test_intersectional_counts_and_structure(category: str) -> None:
    rows = generate(category, seed=0)
    assert len(rows) == PUBLISHED_COUNTS[category]
    assert [r["example_id"] for r in rows] == list(range(len(rows)))
    assert len({r["question_index"] for r in rows}) == TEMPLATES[category]
    thirds = Counter(r["additional_metadata"]["subcategory"] for r in rows)
    assert set(thirds.values()) == {len(rows) // 3}
    for quartet in zip(rows[::4], rows[1::4], rows[2::4], rows[3::4], strict=True):
        ambiguous = quartet[0]["context"]
        assert quartet[1]["context"].startswith(ambiguous)
        assert quartet[2]["context"] == ambiguous
        assert len({json.dumps(r["answer_info"]) for r in quartet}) == 1
        unknown = [k for k, v in quartet[0]["answer_info"].items() if v[1] == "unknown"]
        assert quartet[0]["label"] == quartet[2]["label"] == int(unknown[0][-1])
        assert "{{" not in json.dumps(quartet)


def test_an_intersectional_seed_gives_one_output() -> None:
    runs = [json.dumps(generate("Race_x_SES", seed=s)) for s in (5, 5, 6)]
    assert runs[0] == runs[1] != runs[2]
