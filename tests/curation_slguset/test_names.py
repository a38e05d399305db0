"""The person-name filter against the gold People's Daily names, on the held-out half.

The issue's goal: recall ≥ 0.95 at precision ≥ 0.70 (jieba ``nr*`` alone: ~0.92 / 0.57). The
model is fitted on the ``tune`` half only; this test measures the ``heldout`` half. Measured
there (``fast`` tokens): recall 0.971, precision 0.831 (1155 sentences, 274 with a name, 320
flagged, 266 of them right); both goals are asserted.
"""

import pytest

from curation.slguset.name_eval import read_gold, sentence_pr, split_of
from curation.slguset.names import find_names, jieba_nr_names, tokenize


@pytest.fixture(scope="module")
def heldout(peoples_daily):
    gold = read_gold(peoples_daily)
    parts = [split_of(g.id) for g in gold]
    assert parts.count("tune") == 1163 and parts.count("heldout") == 1155  # fixed split
    return [g for g, part in zip(gold, parts, strict=True) if part == "heldout"]


def test_name_filter_meets_recall_goal_on_heldout(heldout, model):
    pr = sentence_pr(heldout, lambda s: bool(find_names(tokenize(s, "fast"), model)))
    assert pr.positives == 274
    assert pr.recall >= 0.95
    assert pr.precision >= 0.70


def test_name_filter_beats_jieba_nr_on_heldout(heldout, model):
    ours = sentence_pr(heldout, lambda s: bool(find_names(tokenize(s, "fast"), model)))
    base = sentence_pr(heldout, lambda s: bool(jieba_nr_names(tokenize(s, "posseg"))))
    assert base.precision < 0.6  # the documented weakness of jieba's tags alone
    assert ours.precision >= base.precision + 0.1
    assert ours.recall >= base.recall


def test_split_is_a_pure_function_of_the_id():
    assert split_of("pd-dev-7") == split_of("pd-dev-7")
    assert {split_of(f"x{i}") for i in range(20)} == {"tune", "heldout"}


def test_names_found_with_spans(model):
    sentence = "市委书记张敬涛召集县市主要负责同志研究信访工作。"
    hits = find_names(tokenize(sentence, "fast"), model)
    assert [(h.text, sentence[h.start : h.end]) for h in hits] == [("张敬涛", "张敬涛")]
    famous = find_names(tokenize("学习马克思主义理论。", "fast"), model)
    assert [h.text for h in famous] == ["马克思"]
    assert find_names(tokenize("这颗卫星今天发射成功。", "fast"), model) == []
