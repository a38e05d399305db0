"""The rule protocol (issue 46, item 1): one verdict per item with its reason, recorded the
same way by the pandas driver (``run_checks``) and the datatrove driver (``RuleStep``), so a
rule written for one runs in the other; and review's recomputed state reads the same record.
"""

from __future__ import annotations

import pandas as pd
from datatrove.data import Document

from biasforge.curation.checks import Check, run_checks
from biasforge.curation.rule_steps import CheckStep
from biasforge.rules import review_state
from tests.core.test_checks import short, shouting

TEXTS = ["ok text", "no", "LOUD", "X", "fine"]
RULES = [
    Check("min_length", short, "reject", "at least 3 characters"),
    Check("no_shouting", shouting, "review", "not all capitals"),
]


def through_datatrove(texts: list[str]) -> tuple[list[Document], list[Document]]:
    """The same checks as datatrove steps, chained as a pipeline chains them."""
    docs = [
        Document(text=t, id=str(i), metadata={"checks": [], "review_reasons": []})
        for i, t in enumerate(texts)
    ]
    stream = iter(docs)
    for rule in RULES:
        stream = CheckStep(rule).run(stream)
    kept = list(stream)
    return kept, [d for d in docs if d not in kept]


def test_both_drivers_record_the_same_verdicts_and_reasons():
    by_pandas = run_checks(pd.DataFrame({"text": TEXTS}), RULES)
    kept, dropped = through_datatrove(TEXTS)
    assert [d.text for d in kept] == list(by_pandas.kept["text"]) == ["ok text", "LOUD", "fine"]
    assert [d.text for d in dropped] == list(by_pandas.rejected["text"]) == ["no", "X"]
    for doc, row in zip(kept, by_pandas.kept.to_dict("records"), strict=True):
        assert doc.metadata["checks"] == row["checks"]
        assert doc.metadata["review_reasons"] == row["review_reasons"]
        assert "reasons" not in doc.metadata
    for doc, row in zip(dropped, by_pandas.rejected.to_dict("records"), strict=True):
        assert doc.metadata["checks"] == row["checks"]  # a dropped item meets no later rule
        assert (
            doc.metadata["reasons"] == row["reasons"] == ["min_length: shorter than 3 characters"]
        )
    assert kept[1].metadata["review_reasons"] == ["no_shouting: all capitals"]


def test_datatrove_counts_flags_and_drops_by_severity():
    steps = [CheckStep(rule) for rule in RULES]
    stream = iter([Document(text=t, id=t, metadata={"checks": []}) for t in TEXTS])
    for step in steps:
        stream = step.run(stream)
    list(stream)

    def count(step, key):
        found = step.stats.stats  # datatrove: counter name -> MetricStats
        return found[key].total if key in found else 0

    counts = [tuple(count(s, k) for k in ("total", "dropped", "flagged")) for s in steps]
    assert counts == [(5, 2, 0), (3, 0, 1)]


def test_review_state_is_recomputed_from_the_recorded_verdicts():
    result = run_checks(pd.DataFrame({"text": TEXTS}), RULES)
    for row in result.kept.to_dict("records"):
        state = review_state(row["checks"])
        assert (state["needs_review"], state["review_reasons"]) == (
            row["needs_review"], row["review_reasons"],
        )  # fmt: skip
    failed = [{"rule": "r", "passed": False, "severity": "reject", "detail": "d"}]
    assert review_state(failed)["needs_review"] is False  # a reject is no review reason
