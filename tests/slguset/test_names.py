"""The person-name filter against the gold People's Daily names.

The dev file is cut into 5 parts by a salted hash of each id; the shipped models were fitted on
the PKU People's Daily 1998-01 corpus plus parts 1-4 and chosen by 4-fold cross-validation over
parts 1-4 and by the PKU corpus's quarters, each predicted by a model fitted without it
(``benchmarks/train_slguset_names.py``); part 0 is held out. Measured (sentence level, Wilson
95 % intervals):

* ``fast`` (default): CV P 0.836 [0.802, 0.864] R 0.985 [0.969, 0.993]; PKU quarters P 0.880
  [0.874, 0.886] R 0.962 [0.958, 0.965]; held-out (451 sentences, 117 with a name) P 0.895
  [0.829, 0.938] R 0.949 [0.893, 0.976];
* ``thulac`` (fast model at a stricter threshold, then THULAC on what it lets through): CV P
  0.918 [0.890, 0.939] R 0.972 [0.952, 0.983]; held-out P 0.917 [0.853, 0.954] R 0.940
  [0.882, 0.971].

The goals (recall ≥ 0.96, precision ≥ 0.80 on unseen data) hold for the cross-validated and
the PKU figures; on the small held-out part recall is below 0.96, inside the interval. The
tests pin the held-out counts (a change of model or features shows here) and the recorded
figures.
"""

import json
import shutil

import pytest

from biasforge.curation.slguset.name_eval import (
    HELDOUT_PART,
    part_of,
    read_gold,
    sentence_pr,
    split_of,
)
from biasforge.curation.slguset.names import (
    FEATURES,
    MODEL_PATH,
    NameFinder,
    ThulacNames,
    Tokenizer,
    jieba_nr_names,
    load_models,
    load_name_words,
)
from biasforge.curation.slguset.names.words import DATA_DIR
from biasforge.errors import InputError


@pytest.fixture(scope="module")
def heldout(peoples_daily):
    gold = read_gold(peoples_daily)
    parts = [part_of(g.id) for g in gold]
    assert parts.count(HELDOUT_PART) == 451 and len(parts) == 2318  # fixed parts
    return [g for g, part in zip(gold, parts, strict=True) if part == HELDOUT_PART]


def test_fast_filter_on_the_heldout_part(heldout, finder):
    pr = sentence_pr(heldout, lambda s: bool(finder.find_in(s)))
    assert (pr.positives, pr.flagged, pr.true_positives) == (117, 124, 111)
    assert pr.precision >= 0.80  # recall 0.949: below the 0.96 goal (see the module docstring)


def test_recorded_cross_validation_meets_the_goals():
    evaluation = json.loads(MODEL_PATH.read_text(encoding="utf-8"))["evaluation"]
    for tagger in ("fast", "thulac"):
        cv = evaluation[tagger]["cv"]
        assert cv["sentences"] == 1867 and cv["positives"] == 459
        assert cv["recall"] >= 0.96 and cv["precision"] >= 0.80, tagger
        low, high = cv["recall_ci95"]
        assert low < cv["recall"] < high
    assert evaluation["heldout_sentences"] == 451
    extra = evaluation["fast"]["extra_corpus_cv"]  # the PKU quarters: text never fitted on
    assert extra["sentences"] == evaluation["extra_training"]["sentences"] == 43628
    assert extra["recall"] >= 0.96 and extra["precision"] >= 0.80
    assert extra["passed_naming_a_person_share"] <= 0.03


def test_thulac_second_stage_on_the_heldout_part(heldout):
    finder = NameFinder(load_models()["thulac"])
    thulac = ThulacNames()
    flagged = {g.id for g in heldout if finder.find_in(g.text) or thulac.find(g.text)}
    pr = sentence_pr(heldout, lambda s: False)
    tp = sum(bool(g.names) for g in heldout if g.id in flagged)
    assert (pr.positives, len(flagged), tp) == (117, 120, 110)


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
    assert {split_of(f"x{i}") for i in range(40)} == {"cv", "heldout"}
    assert {part_of(f"x{i}") for i in range(100)} == {0, 1, 2, 3, 4}


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
        from biasforge.curation.slguset.names import Token

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


def test_a_model_may_share_another_models_weights(tmp_path):
    """``weights_of`` names the model whose weights are reused (the THULAC stage's first model
    is often ``fast`` at another threshold); the thresholds stay each model's own."""
    path = tmp_path / "name_model.json"
    models = {
        "fast": {"weights": {"bias": -1.5, "w=江泽民": 4.0}, "threshold": 0.3, "tokens": "fast"},
        "thulac": {"weights_of": "fast", "threshold": 0.9, "tokens": "fast"},
    }
    path.write_text(json.dumps({"features": FEATURES, "models": models}), encoding="utf-8")
    loaded = load_models(path)
    assert loaded["thulac"].weights == {"bias": -1.5, "w=江泽民": 4.0}
    assert (loaded["fast"].threshold, loaded["thulac"].threshold) == (0.3, 0.9)


def test_the_shipped_model_reads_the_neighbouring_words(finder):
    """Context words are features of their own (``p=`` the word before, ``n=`` the word after),
    learned from the training corpus; the shipped model gives some of them weight."""
    weights = finder.model.weights
    assert any(k.startswith("p=") for k in weights) and any(k.startswith("n=") for k in weights)
    tokens = finder.tokens("记者张敬涛报道。")
    i = next(i for i, t in enumerate(tokens) if t.word.startswith("张"))
    x = finder.features.features(tokens, i)
    assert x["p=" + tokens[i - 1].word] == 1.0 and x["n=" + tokens[i + 1].word] == 1.0


def test_candidate_share_counts_what_each_stage_lets_through():
    """Hand-made gold: 6 sentences, 5 with a gender form, 2 of them flagged by the first
    stage; of the 3 survivors, 1 names someone (the second stage catches it) and 2 are clean
    (the second stage drops one)."""
    from biasforge.curation.slguset.name_eval import GoldSentence, candidate_share

    gold = [
        GoldSentence("a", "他A", ((0, 1),)),  # first stage flags it
        GoldSentence("b", "他B", ()),  # first stage flags it (a false positive)
        GoldSentence("c", "他C", ((0, 1),)),  # survivor naming someone; second stage catches it
        GoldSentence("d", "他D", ()),  # clean survivor; the second stage drops it
        GoldSentence("e", "他E", ()),  # clean survivor, kept
        GoldSentence("f", "F", ((0, 1),)),  # no gender form: never a candidate
    ]
    out = candidate_share(
        gold,
        lambda s: "他" in s,
        lambda s: s[-1] in "AB",
        lambda s: s[-1] in "CD",
    )
    assert (out["named_share_first_stage"]["k"], out["named_share_first_stage"]["n"]) == (1, 3)
    assert (out["named_share"]["k"], out["named_share"]["n"]) == (0, 1)
    assert (out["clean_lost"]["k"], out["clean_lost"]["n"]) == (1, 2)
    low, high = out["named_share_first_stage"]["ci95"]
    assert low < 1 / 3 < high
    without = candidate_share(gold, lambda s: "他" in s, lambda s: s[-1] in "AB", None)
    assert without["named_share"] == without["named_share_first_stage"]
    assert without["clean_lost"]["k"] == 0


def test_lac_second_stage_on_the_heldout_part(heldout, finder):
    """Part 0 was never used to choose the check: among the sentences with a gender form the
    fast model lets through, LAC lowers the share naming a person and drops at most 5 % of the
    clean ones."""
    from biasforge.curation.slguset.lexicon import load_lexicon
    from biasforge.curation.slguset.name_eval import candidate_share
    from biasforge.curation.slguset.names import LacNames

    lac, pattern = LacNames(), load_lexicon().pattern
    out = candidate_share(
        heldout,
        lambda s: pattern.search(s) is not None,
        lambda s: bool(finder.find_in(s)),
        lambda s: bool(lac.find(s)),
    )
    assert out["named_share"]["k"] < out["named_share_first_stage"]["k"]
    assert out["clean_lost"]["share"] <= 0.05


def test_recorded_second_stage_choice_and_its_unseen_figures():
    """``second_stage.json``: LAC was chosen on the CV parts; on the PKU quarters (never used
    to choose) it meets the issue's targets: ≤ 1.5 % of candidates naming a person, ≤ 5 % of
    clean candidates lost, and it catches more named survivors than it loses clean ones in
    share terms."""
    recorded = json.loads((DATA_DIR / "second_stage.json").read_text(encoding="utf-8"))
    assert recorded["chosen_on_cv_parts"] == "lac"
    pku = recorded["pku_quarters"]
    before, after = pku["none"], pku["lac"]
    assert before["candidates_naming_a_person"] == before["first_stage_survivors"]
    assert after["candidates_naming_a_person"]["share"] <= 0.015
    assert after["clean_survivors_lost"]["share"] <= 0.05
    assert after["named_survivors_caught"]["share"] > after["clean_survivors_lost"]["share"]
    low, high = after["candidates_naming_a_person"]["ci95"]
    assert low < after["candidates_naming_a_person"]["share"] < high
    speeds = recorded["estimated_mining_raw_chars_per_s"]
    assert speeds["thulac"] < recorded["min_raw_chars_per_s"] <= speeds["lac"]
