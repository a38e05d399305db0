"""The checks framework: verdicts per row, reject vs review, reasons kept, inputs untouched."""

from __future__ import annotations

import pandas as pd

from biasforge.curation.checks import Check, run_checks, verdicts
from biasforge.spans import mask_spans


def short(batch: pd.DataFrame) -> pd.DataFrame:
    ok = batch["text"].str.len() >= 3
    return verdicts(
        ok, ["long enough" if o else "shorter than 3 characters" for o in ok], batch.index
    )


def shouting(batch: pd.DataFrame) -> pd.DataFrame:
    ok = ~batch["text"].str.isupper()
    return verdicts(ok, ["" if o else "all capitals" for o in ok], batch.index)


def test_reject_and_review_verdicts():
    batch = pd.DataFrame({"text": ["ok text", "no", "LOUD", "X"]})
    original = batch.copy()
    seen_by_second = []

    def spy(b):
        seen_by_second.extend(b["text"])
        return shouting(b)

    result = run_checks(
        batch,
        [
            Check("min_length", short, "reject", "at least 3 characters"),
            Check("no_shouting", spy, "review", "not all capitals"),
        ],
    )
    pd.testing.assert_frame_equal(batch, original)  # input not mutated
    assert list(result.kept["text"]) == ["ok text", "LOUD"]
    assert list(result.rejected["text"]) == ["no", "X"]
    assert list(result.rejected["reasons"]) == [["min_length: shorter than 3 characters"]] * 2
    assert seen_by_second == ["ok text", "LOUD"]  # rejected rows are not shown to later checks
    loud = result.kept.iloc[1]
    assert loud["needs_review"] and loud["review_reasons"] == ["no_shouting: all capitals"]
    assert [c["rule"] for c in loud["checks"]] == ["min_length", "no_shouting"]
    stats = {s.name: (s.seen, s.failed) for s in result.stats}
    assert stats == {"min_length": (4, 2), "no_shouting": (2, 1)}


def test_mask_spans_replaces_exactly_the_spans():
    text = "He is a steel worker."
    assert (
        mask_spans(text, [{"start": 8, "end": 13}, {"start": 14, "end": 20}], "[MASK]")
        == "He is a [MASK] [MASK]."
    )
    assert mask_spans(text, [{"start": 0, "end": 2}], "<mask>") == "<mask> is a steel worker."
