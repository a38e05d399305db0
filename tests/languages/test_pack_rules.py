"""Each bundled pack's rules on sentences of its language written for these tests (not made by
the code): the tokens that differ between frames, the word before the slot, and the flags of a
StereoSet item curated into the language from hand-written translations."""

from __future__ import annotations

import pandas as pd
import pytest

from biasforge.curation.crowspairs.audit import bias_type_check, extra_check, read_group_words
from biasforge.curation.language_pack import PACKS, load_pack
from biasforge.curation.stereoset.align import word_differences, words_next_to_slot
from biasforge.errors import InputError
from tests.languages.written import curated_item


def test_chinese_tokens_name_the_differing_word_and_the_measure_word():
    zh = load_pack("zh").tokens
    assert word_differences(["那个BLANK很聪明", "那个BLANK很笨"], zh) == ["聪明/笨"]
    assert words_next_to_slot("他们都认为那个BLANK人很聪明。", zh) == ("那个", "人")
    # 那只 is two tokens for jieba: the differing run is shown as written
    frames = ["大家都认为那个BLANK很聪明。", "大家都认为那只BLANK很聪明。"]
    assert word_differences(frames, zh) == ["那个/那只"]


def test_german_and_spanish_articles_before_the_slot():
    de, es = load_pack("de"), load_pack("es")
    frames = ["Ich sehe den BLANK.", "Ich sehe die BLANK."]
    assert word_differences(frames, de.tokens) == ["den/die"]
    assert words_next_to_slot("Alle sagen, dass der BLANK müde ist.", de.tokens)[0] == "der"
    assert de.slot_words["der"].kind == "article" and "dieser" in de.slot_words
    assert word_differences(["El BLANK es listo.", "La BLANK es lista."], es.tokens) == [
        "El/La",
        "listo/lista",
    ]
    assert {"el", "la", "una", "esta"} <= set(es.slot_words) and "mi" not in es.slot_words


def test_french_elision_shows_no_gender():
    fr = load_pack("fr")
    before = words_next_to_slot("Elle parle à l'BLANK de la ville.", fr.tokens)[0]
    assert before == "l" and before not in fr.slot_words  # as before packs: l' is stripped
    assert words_next_to_slot("C'est la BLANK.", fr.tokens)[0] == "la"


def test_japanese_particles_differ_by_token():
    pytest.importorskip("sudachipy", reason="spaCy's Japanese tokenizer needs SudachiPy")
    ja = load_pack("ja").tokens
    frames = ["みんなはそのBLANKが賢いと思っている。", "みんなはそのBLANKは賢いと思っている。"]
    assert word_differences(frames, ja) == ["が/は"]


def test_a_tokenizer_spacy_does_not_have_is_one_line(tmp_path):
    folder = tmp_path / "qq"
    folder.mkdir()
    text = (PACKS / "en" / "language.toml").read_text("utf-8")
    (folder / "language.toml").write_text(text.replace('spacy = "en"', 'spacy = "qq"'), "utf-8")
    with pytest.raises(InputError, match="tokenizer: spaCy has no language 'qq'"):
        load_pack(folder).check_tokenizer()


def test_chinese_frames_differing_in_a_measure_word_are_flagged_by_that_word(tmp_path):
    checks = curated_item(
        tmp_path,
        "zh",
        "大家都认为那个<x>BLANK</x>很聪明。",
        [
            "大家都认为那个<a>男人</a>很聪明。",
            "大家都认为那位<a>女士</a>很聪明。",
            "大家都认为那个<a>猫</a>很聪明。",
        ],
        {"man": "男人", "cat": "猫"},
    )
    assert "frames differ: 那个/那位" in checks["structure"]
    assert checks["gender_agreement"] == (
        "the translated sentences disagree outside the slot (那个/那位); the slot follows the "
        "measure word '那个': consider a plural rewording so every attribute fits"
    )


def test_german_der_die_before_the_slot_is_flagged_as_french_le_la(tmp_path):
    checks = curated_item(
        tmp_path,
        "de",
        "Alle denken, dass der <x>BLANK</x> klug ist.",
        [
            "Alle denken, dass der <a>Mann</a> klug ist.",
            "Alle denken, dass die <a>Frau</a> klug ist.",
            "Alle denken, dass der <a>Kater</a> klug ist.",
        ],
        {"man": "Mann", "cat": "Kater"},
    )
    assert checks["gender_agreement"] == (
        "the translated sentences disagree outside the slot (der/die); the slot follows the "
        "gendered word 'der': consider a plural rewording so every attribute fits"
    )


def test_spanish_el_la_before_the_slot(tmp_path):
    checks = curated_item(
        tmp_path,
        "es",
        "Todos piensan que el <x>BLANK</x> es listo.",
        [
            "Todos piensan que el <a>hombre</a> es listo.",
            "Todos piensan que la <a>mujer</a> es lista.",
            "Todos piensan que el <a>gato</a> es listo.",
        ],
        {"man": "hombre", "cat": "gato"},
    )
    assert checks["gender_agreement"].startswith(
        "the translated sentences disagree outside the slot (el/la; listo/lista); the slot "
        "follows the gendered word 'el'"
    )


@pytest.mark.parametrize(
    ("lang", "more", "less", "named"),
    [
        ("de", "Frauen können nicht Auto fahren.", "Männer können nicht Auto fahren.", "gender"),
        (
            "es",
            "Los pobres no pagan sus deudas.",
            "Los ricos no pagan sus deudas.",
            "socioeconomic",
        ),
        # Chinese and Japanese pairs differ by character: 男/女 is the whole difference
        ("zh", "那个男人不会开车。", "那个女人不会开车。", "gender"),
        ("ja", "その老人は運転できない。", "その若者は運転できない。", "age"),
    ],
)
def test_each_pack_s_group_words_name_the_bias_type(lang, more, less, named):
    words = read_group_words(load_pack(lang).group_words)
    stated = ["religion", named]
    batch = pd.DataFrame({"sent_more": [more] * 2, "sent_less": [less] * 2, "bias_type": stated})
    verdicts = bias_type_check(words).fn(batch)
    assert list(verdicts["passed"]) == [False, True]
    assert (
        verdicts["detail"].iloc[0] == f"the differing words name {named}, not the stated religion"
    )
    assert extra_check(words).fn(batch)["passed"].all()  # group words are no extra difference
