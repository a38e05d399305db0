"""The person-name filter against the gold People's Daily names, on the held-out half.

The issue's goal: recall ≥ 0.95 at precision ≥ 0.70 (jieba ``nr*`` alone: ~0.92 / 0.57). The
model is fitted on the ``tune`` half only; this test measures the ``heldout`` half. Measured
there (``fast`` tokens): recall 0.971, precision 0.831 (1155 sentences, 274 with a name, 320
flagged, 266 of them right); both goals are asserted.
"""

import shutil

import pytest

from biasforge.errors import InputError
from curation.slguset.name_eval import read_gold, sentence_pr, split_of
from curation.slguset.names import (
    FEATURES,
    NameFinder,
    Tokenizer,
    jieba_nr_names,
    load_models,
    load_name_words,
)
from curation.slguset.names.words import DATA_DIR


@pytest.fixture(scope="module")
def heldout(peoples_daily):
    gold = read_gold(peoples_daily)
    parts = [split_of(g.id) for g in gold]
    assert parts.count("tune") == 1163 and parts.count("heldout") == 1155  # fixed split
    return [g for g, part in zip(gold, parts, strict=True) if part == "heldout"]


def test_name_filter_meets_recall_goal_on_heldout(heldout, finder):
    pr = sentence_pr(heldout, lambda s: bool(finder.find_in(s)))
    assert (pr.positives, pr.flagged, pr.true_positives) == (274, 320, 266)
    assert pr.recall >= 0.95
    assert pr.precision >= 0.70


def test_name_filter_beats_jieba_nr_on_heldout(heldout, finder):
    ours = sentence_pr(heldout, lambda s: bool(finder.find_in(s)))
    base = sentence_pr(
        heldout, lambda s: bool(jieba_nr_names(finder.tokenizer.tokens(s, "posseg")))
    )
    assert base.precision < 0.6  # the documented weakness of jieba's tags alone
    assert ours.precision >= base.precision + 0.1
    assert ours.recall >= base.recall


def test_split_is_a_pure_function_of_the_id():
    assert split_of("pd-dev-7") == split_of("pd-dev-7")
    assert {split_of(f"x{i}") for i in range(20)} == {"tune", "heldout"}


def test_names_found_with_spans(finder):
    sentence = "市委书记张敬涛召集县市主要负责同志研究信访工作。"
    hits = finder.find_in(sentence)
    assert [(h.text, sentence[h.start : h.end]) for h in hits] == [("张敬涛", "张敬涛")]
    assert [h.text for h in finder.find_in("学习马克思主义理论。")] == ["马克思"]
    assert finder.find_in("这颗卫星今天发射成功。") == []


def test_features_depend_on_the_finders_own_tokenizer_not_on_what_ran_before():
    """Two finders in one process, either order: each reads its own frequency table (子弟 is
    an extra word of one tokenizer, which raises its frequency)."""
    model = load_models()["fast"]
    tokens = [("子弟兵", "nr", 0, 32390), ("的", "uj", 3, 0)]

    def head2(finder):
        from curation.slguset.names import Token

        return finder.features.features([Token(*t) for t in tokens], 0)["head2_word"]

    plain, extra = NameFinder(model, Tokenizer()), NameFinder(model, Tokenizer(["子弟"]))
    first = (head2(plain), head2(extra))
    plain, extra = NameFinder(model, Tokenizer()), NameFinder(model, Tokenizer(["子弟"]))
    assert (head2(extra), head2(plain))[::-1] == first
    assert first[0] < first[1]


def test_tokenizer_pickles_without_jieba_and_rebuilds():
    import pickle

    tokenizer = Tokenizer(["子弟"])
    tokenizer.tokens("他来了。")
    copy = pickle.loads(pickle.dumps(tokenizer))
    assert copy._jieba is None and copy.extra_words == ("子弟",)
    assert copy.tokens("他来了。") == tokenizer.tokens("他来了。")


def test_word_lists_come_from_the_data_folder():
    words = load_name_words()
    assert {"主席", "记者"} <= words.persons and "说" in words.speech
    assert "克" in words.translit and "公司" in words.org_words
    assert "欧阳" in words.compound_surnames and "王" in words.surnames
    assert words.famous.search("学习马克思主义。")
    assert len(FEATURES) == len(set(FEATURES))


def test_a_malformed_word_set_row_names_file_and_line(tmp_path):
    folder = tmp_path / "names"
    shutil.copytree(DATA_DIR, folder)
    path = folder / "name_words.tsv"
    lines = [*path.read_text(encoding="utf-8").splitlines(), "titles\tphrases\t同志"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_name_words(folder)
    assert info.value.path == str(path)
    assert info.value.line == len(lines)
