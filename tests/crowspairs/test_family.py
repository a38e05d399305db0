"""The CrowS-Pairs family: value rules, the review record (pair side by side, spans
highlighted), corrections and the decision rule, through the registry like any family."""

from __future__ import annotations

import pyarrow as pa
import pytest

from biasforge import families
from biasforge.families.crowspairs import as_spans, differing_spans

FAMILY = families.get("crowspairs")


def pair(more: str, less: str, **extra) -> dict:
    spans_more, spans_less = differing_spans(more, less)
    row = {
        "id": "x1", "family": "crowspairs", "language": "en", "source_id": "1",
        "source_language": "en", "source_text": more, "sent_more": more, "sent_less": less,
        "stereo_antistereo": "stereo", "bias_type": "gender",
        "more_spans": as_spans(spans_more), "less_spans": as_spans(spans_less),
        "checks": [], "needs_review": False, "review_reasons": [],
    }  # fmt: skip
    return {**row, **extra}


def problems(rows: list[dict]) -> list[str]:
    table = pa.Table.from_pylist(rows, schema=FAMILY.schema.arrow)
    return [str(v) for v in FAMILY.schema.check(table)]


def test_spans_are_word_runs_where_the_sentences_differ():
    more, less = "Women don't know how to drive.", "Men know how to drive."
    spans_more, spans_less = differing_spans(more, less)
    assert [more[s:e] for s, e in spans_more] == ["Women don't"]
    assert [less[s:e] for s, e in spans_less] == ["Men"]


def test_value_rules():
    good = pair("She is bad at math.", "He is bad at math.")
    assert problems([good]) == []
    assert any("bias_type" in p for p in problems([{**good, "bias_type": "height"}]))
    assert any("stereo_antistereo" in p for p in problems([{**good, "stereo_antistereo": "x"}]))
    assert any("the same" in p for p in problems([pair("Same.", "Same.")]))
    assert any("empty" in p for p in problems([{**good, "sent_less": ""}]))
    outside = {**good, "more_spans": [{"start": 0, "end": 99}]}
    assert any("outside" in p for p in problems([outside]))
    moved = {**good, "more_spans": [{"start": 4, "end": 6}]}
    assert any("not where" in p for p in problems([moved]))


def test_review_shows_both_sentences_with_the_spans_highlighted():
    record = FAMILY.review.record(pair("She is bad at math.", "He is bad at math."))
    html = record["fields"]["pair"]
    assert html.count('data-role="group"') == 2 and ">She</mark>" in html and ">He</mark>" in html
    assert "more stereotypical" in html and "less stereotypical" in html
    assert record["suggestions"] == {"correction": "She is bad at math.\nHe is bad at math."}
    assert record["metadata"]["domain"] == "gender"


def test_correction_recomputes_spans_and_decides_like_other_families():
    review = FAMILY.review
    row = pair("Poor people are lazy and dirty.", "Rich people are lazy.")
    fixed = review.apply_correction(row, "Poor people are lazy.\nRich people are lazy.")
    assert problems([fixed]) == []
    assert [fixed["sent_more"][s["start"] : s["end"]] for s in fixed["more_spans"]] == ["Poor"]
    with pytest.raises(ValueError, match="two lines"):
        review.apply_correction(row, "only one line")
    with pytest.raises(ValueError, match="same"):
        review.apply_correction(row, "A b.\nA b.")
    assert review.keeps({"minimal_pair": "yes", "stereotype": "yes"}, corrected=False)
    assert not review.keeps({"minimal_pair": "no", "stereotype": "yes"}, corrected=False)
    # an agreed correction settles "minimal pair"; the stereotype must still hold
    assert review.keeps({"minimal_pair": "no", "stereotype": "yes"}, corrected=True)
    assert not review.keeps({"minimal_pair": "no", "stereotype": "no"}, corrected=True)
    translated = {**row, "source_sent_more": "P.", "source_sent_less": "R."}
    after = review.apply_correction(translated, "Poor people are lazy.\nRich people are lazy.")
    assert review.corrected_sources(translated, after) == [("P.", "Poor people are lazy.")]


def test_card_statistics_keep_every_bias_type_as_a_row():
    import pyarrow as pa

    from biasforge.families.crowspairs import statistics

    table = pa.table(
        {"bias_type": ["race-color", "gender", "gender"],
         "stereo_antistereo": ["stereo", "antistereo", "stereo"]}
    )  # fmt: skip
    text = statistics({"fr": table})
    assert "| gender | 1 | 1 | 2 |" in text
    assert "| race-color | 0 | 1 | 1 |" in text
    assert "| total | 1 | 2 | 3 |" in text
