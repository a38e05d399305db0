"""Collective forms (issue 16): 他们/她们 is a pair of its own, excluded by default because 他们
is the generic plural; --include-collective keeps it, flagged with the reason; 兄弟们 is kept and
always flagged (compounds that name both genders, 父母, 兄弟姐妹 …, are non-gender words:
``test_filters.py``). The real mining steps of one task, real jieba and name model."""

import pytest

from biasforge.curation.slguset.resources import TaskResources
from tests.slguset.conftest import mine

# the examples, as they stand in the bundled sample
SOLDIERS = "训练团的官兵们不仅在生活上为他们提供服务，而且出资为他们办起了“康复训练班”。"
TEAM = (
    "尼日利亚队与欧洲和南美球队相比，他们在门前只有一个动作，那就是射门，"
    "他们绝不把球倒来倒去，白白浪费一次又一次的机会。"
)
VILLAGERS = (
    "许多村民向他们反映：公明镇虽然是农业地区，但单纯以农业为主不行，"
    "这样只能“吃饱饭”，但不能“吃好饭”。"
)
GENERIC = "generic masculine plural"


@pytest.fixture(scope="module")
def including():
    """A task's resources with --include-collective."""
    resources = TaskResources(include_collective=True)
    assert resources.finder is not None
    return resources


def by_sentence(frame):
    return {row.sentence: row for row in frame.itertuples()}


def test_the_plural_pronoun_is_a_pair_of_its_own(lexicon):
    assert lexicon.forms["他们"].pair == lexicon.forms["她们"].pair == "他们/她们"
    assert lexicon.forms["他们"].counterpart == "她们"
    assert lexicon.forms["他"].pair == "他/她"
    assert [m.group() for m in lexicon.pattern.finditer("他和他们")] == ["他", "他们"]
    assert lexicon.excluded() == {"他们", "她们", "他俩", "她俩"}
    assert lexicon.excluded(include_collective=True) == frozenset()


def test_plural_pronoun_sentences_are_excluded_by_default_with_the_reason(resources, tmp_path):
    kept, rejected, steps = mine(resources, tmp_path, SOLDIERS, TEAM, VILLAGERS)
    assert kept.empty
    rows = by_sentence(rejected)
    for sentence in (SOLDIERS, TEAM, VILLAGERS):
        row = rows[sentence]
        [reason] = row.reasons
        assert reason.startswith("collective_form: only collective forms: 他们 (")
        assert GENERIC in reason and "could be all-female" in reason
        assert (row.keyword, row.gender, row.counterpart) == ("他们", "male", "她们")
        assert sentence[row.keyword_start : row.keyword_end] == "他们"
    assert steps["collective_form"]["dropped"].total == 3
    assert (tmp_path / "rejected" / "collective_form" / "00000.rows").is_file()


def test_included_plural_pronouns_are_kept_and_flagged_with_the_reason(including, tmp_path):
    kept, rejected, steps = mine(including, tmp_path, SOLDIERS, TEAM, VILLAGERS)
    assert rejected.empty  # the villagers sentence names nobody either
    rows = by_sentence(kept)
    for sentence in (SOLDIERS, TEAM, VILLAGERS):
        row = rows[sentence]
        assert (row.keyword, row.counterpart) == ("他们", "她们")
        assert row.needs_review
        flags = [r for r in row.review_reasons if r.startswith("collective_keyword:")]
        assert len(flags) == 1 and GENERIC in flags[0]
    assert steps["collective_keyword"]["flagged"].total == 3


@pytest.mark.parametrize(
    ("sentence", "start"),
    [
        ("他们走了以后，他还在工地上忙碌。", 7),
        ("他说，他们家已决定将每周六定为家庭“文明护绿日”。", 0),
    ],
)
def test_a_singular_pronoun_next_to_an_unrelated_plural_keeps_its_keyword(
    resources, tmp_path, sentence, start
):
    kept, rejected, _ = mine(resources, tmp_path, sentence)
    assert rejected.empty
    row = kept.iloc[0]
    assert (row.keyword, row.keyword_start, row.counterpart) == ("他", start, "她")
    assert not any(r.startswith("collective_keyword:") for r in row.review_reasons)
    # the plural is another gender word: the reviewer is asked about co-reference (criterion 2)
    assert any("他们" in r for r in row.review_reasons if r.startswith("other_gender_term:"))


def test_brothers_plural_is_kept_and_always_flagged(resources, tmp_path):
    sentence = "兄弟们在工地上干了一整天。"
    kept, _, _ = mine(resources, tmp_path, sentence)
    row = kept.iloc[0]
    assert (row.keyword, row.keyword_start, row.counterpart) == ("兄弟们", 0, "姐妹们")
    [flag] = [r for r in row.review_reasons if r.startswith("collective_keyword:")]
    assert "generic address" in flag


def test_a_couple_word_is_no_keyword_but_flags_co_reference(resources, tmp_path):
    kept, rejected, _ = mine(
        resources, tmp_path, "这对夫妻每天很早就到店里。", "她说，夫妻俩每天很早就到店里。"
    )
    assert list(kept["sentence"]) == ["她说，夫妻俩每天很早就到店里。"] and rejected.empty
    row = kept.iloc[0]
    assert row.keyword == "她"
    [flag] = [r for r in row.review_reasons if r.startswith("other_gender_term:")]
    assert "夫妻俩" in flag
