"""The rules on hand-written sentences, with real jieba and the shipped name model."""

import pytest

from curation.slguset.mine import Miner


def mine(lexicon, model, *sentences):
    miner = Miner(lexicon, model)
    for line, sentence in enumerate(sentences, 1):
        list(miner.feed(sentence, "t.txt", line))
    [(kept, rejected)] = list(miner.finish())
    return kept, rejected, miner.stats


def reasons_of(rejected, sentence):
    row = rejected[rejected["sentence"] == sentence]
    assert len(row) == 1, f"{sentence} not rejected"
    return list(row.iloc[0]["reasons"])


@pytest.mark.parametrize(
    ("sentence", "word"),
    [
        ("吉他是一种很受欢迎的乐器。", "吉他"),
        ("警方排除了他杀的可能。", "他杀"),
        ("家长要关心子女的学习。", "子女"),
        ("过去农民讲究生儿育女。", "生儿育女"),
        ("其他单位也来参观了。", "其他"),
    ],
)
def test_gender_character_inside_a_non_gender_word_is_rejected(lexicon, model, sentence, word):
    kept, rejected, _ = mine(lexicon, model, sentence)
    assert kept.empty
    [reason] = reasons_of(rejected, sentence)
    assert reason.startswith("non_gender_word:") and word in reason


def test_genuine_keyword_kept_with_span_gender_and_counterpart(lexicon, model):
    sentence = "这位女教师每天很早就到学校。"
    kept, rejected, _ = mine(lexicon, model, sentence)
    assert rejected.empty
    row = kept.iloc[0]
    assert (row.keyword, row.keyword_start, row.keyword_end) == ("女", 2, 3)
    assert sentence[row.keyword_start : row.keyword_end] == row.keyword
    assert (row.gender, row.counterpart) == ("female", "男")
    assert [c["rule"] for c in row.checks] == [
        "preprocess",
        "non_gender_word",
        "person_name",
        "other_gender_term",
        "biological_sex",
        "counterpart_sense",
    ]
    assert not row.needs_review


def test_keyword_after_a_non_gender_word_becomes_the_target(lexicon, model):
    sentence = "其他人都走了，他还在工地上忙碌。"
    kept, _, _ = mine(lexicon, model, sentence)
    row = kept.iloc[0]
    assert (row.keyword, row.keyword_start) == ("他", 7)


def test_sentence_with_a_person_name_is_rejected(lexicon, model):
    sentence = "市委书记张敬涛说，他一定会把工作做好。"
    kept, rejected, _ = mine(lexicon, model, sentence)
    assert kept.empty
    [reason] = reasons_of(rejected, sentence)
    assert reason.startswith("person_name:") and "张敬涛" in reason


def test_criteria_two_and_three_flag_for_review_without_dropping(lexicon, model):
    coref = "见弟弟冬天穿了一条单裤，兄弟俩抱头痛哭。"
    bio = "女职工在经期、孕期、产期、哺乳期依法享受特殊保护。"
    sense = "好男儿志在四方。"
    kept, rejected, _ = mine(lexicon, model, coref, bio, sense)
    assert rejected.empty
    by_sentence = {row.sentence: list(row.review_reasons) for row in kept.itertuples()}
    assert any(r.startswith("other_gender_term:") and "兄弟" in r for r in by_sentence[coref])
    assert any(r.startswith("biological_sex:") and "哺乳期" in r for r in by_sentence[bio])
    assert any(r.startswith("counterpart_sense:") and "女儿" in r for r in by_sentence[sense])
    assert kept["needs_review"].all()


def test_exact_duplicates_and_sentences_without_keywords_never_become_rows(lexicon, model):
    kept, _, stats = mine(lexicon, model, "他每天骑车上班。今天天气很好。", "他每天骑车上班。")
    assert list(kept["sentence"]) == ["他每天骑车上班。"]
    assert stats.duplicates == 1
    assert stats.sentences_without_keyword == 1
