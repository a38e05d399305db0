"""The fake DeepL server speaks each bundled pack's language from a word list
(tests/data/fake_deepl/): the bundled StereoSet and CrowS-Pairs samples go through curation in
German, Spanish, Chinese and Japanese, and come back in that language's words and script."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from biasforge.contract.rundir import read_run
from tests.cli_runner import run_cli
from tests.fake_deepl import fake_translate
from tests.stereoset.conftest import intra, write_jsonl

#: per language: words of its word list the translated samples must hold
SEEN = {
    "de": re.compile(r"\b(der|die|das|den|dem|ein|eine|ist|war|sind|und|nicht|sie|er)\b", re.I),
    "es": re.compile(r"\b(el|la|los|las|un|una|es|era|son|y|no|él|ella)\b", re.I),
    "zh": re.compile(r"[\u4e00-\u9fff]"),  # Han characters
    "ja": re.compile(r"[\u3040-\u309f]"),  # hiragana
}


def test_the_word_lists_agree_words_with_their_nouns():
    ignore = frozenset({"x"})

    def say(text: str, lang: str) -> str:
        return fake_translate(text, target_lang=lang, ignore_tags=ignore)

    assert say("He saw the woman with the man.", "DE") == "Er sah die Frau mit dem Mann."
    assert say("The woman is smart.", "ES") == "La mujer es lista."
    assert say("The chess player was asian.", "ZH") == "那位国际象棋选手是亚洲人。"
    assert say("The <a>cat</a> is smart.", "JA") == "その<a>猫</a>が賢い。"
    assert say("The <x>BLANK</x> is smart.", "JA") == "その<x>BLANK</x>は賢い。"
    assert say("The woman is smart.", "PT-BR") == "A mulher é esperta."
    assert say("The dog is smart.", "IT") == "Le chien est intelligent."  # no list: French


#: per family: the columns whose text is checked, and its score options (Chinese and Japanese
#: contexts have no spaces for the official StereoSet procedure to split: it refuses them)
SAMPLES = {
    "stereoset": (["context"], ["--procedure", "filler"]),
    "crowspairs": (["sent_more", "sent_less"], []),
}


@pytest.mark.parametrize("lang", sorted(SEEN))
def test_the_samples_are_curated_released_and_scored_in_each_language(
    lang, fake_deepl, tiny_models, tmp_path
):
    env = {"DEEPL_AUTH_KEY": fake_deepl.auth_key, "DEEPL_SERVER_URL": fake_deepl.url}
    texts = []
    for family, (columns, score_options) in SAMPLES.items():
        run_cli("curate", family, "--lang", lang, "--limit", "6", "--memory",
                tmp_path / "tm.sqlite", "--out", tmp_path / family, env=env)  # fmt: skip
        candidates = read_run(tmp_path / family).candidates
        assert len(candidates) and set(candidates["language"]) == {lang}
        texts += [t for column in columns for t in candidates[column]]
        run_cli("export", "release", tmp_path / family, "--name", f"{family}-{lang}", "--version",
                "0.1.0", "--out", tmp_path / "releases", "--unreviewed")  # fmt: skip
        scores = tmp_path / f"scores-{family}"
        run_cli("score", family, "--dataset", tmp_path / "releases" / f"{family}-{lang}" / "0.1.0",
                "--model", tiny_models["masked"], "--model", tiny_models["causal"], "--out",
                scores, "--bootstrap", "20", "--no-progress", *score_options)  # fmt: skip
        results = pd.read_csv(scores / "results.csv")
        assert set(results["model"]) == {"tiny-bert", "tiny-gpt2"}
    assert {r["target_lang"] for r in fake_deepl.requests} == {lang.upper()}
    assert sum(bool(SEEN[lang].search(t)) for t in texts) > len(texts) / 2, texts


def _flags(tmp_path, env: dict, lang: str, attributes: tuple[str, str, str]) -> dict[str, str]:
    """The checks of one StereoSet item ("Everyone thinks that the BLANK is smart.", the
    three ``attributes``) curated into ``lang`` through the fake server: rule -> detail."""
    item = intra("person", "Everyone thinks that the BLANK is smart.", *attributes)
    source = write_jsonl(tmp_path / "s.jsonl", [item])
    run_cli("curate", "stereoset", "--lang", lang, "--source", source, "--memory",
            tmp_path / "tm.sqlite", "--out", tmp_path / lang, env=env)  # fmt: skip
    (row,) = read_run(tmp_path / lang).candidates.to_dict("records")
    return {c["rule"]: c["detail"] for c in row["checks"]}


@pytest.mark.parametrize(
    ("lang", "attributes", "differs", "before"),
    [
        # 老师, 教授 take 位 (那位); 机器人 takes 个 (那个), as the context's slot does
        ("zh", ("teacher", "professor", "robot"), "那位/那个", "the measure word '那个'"),
        # 猫 takes が where 男性 and 女性 take は
        ("ja", ("man", "woman", "cat"), "は/が", None),
        # der Mann, die Frau, der Hund: as French le/la
        ("de", ("man", "woman", "dog"), "der/die", "the gendered word 'der'"),
    ],
)
def test_a_frame_differing_in_one_token_is_flagged_by_that_token(
    lang, attributes, differs, before, fake_deepl, tmp_path
):
    if lang == "ja":
        pytest.importorskip("sudachipy", reason="spaCy's Japanese tokenizer needs SudachiPy")
    env = {"DEEPL_AUTH_KEY": fake_deepl.auth_key, "DEEPL_SERVER_URL": fake_deepl.url}
    checks = _flags(tmp_path, env, lang, attributes)
    assert (
        checks["structure"] == f"uniformised on the translated context (frames differ: {differs})"
    )
    agreement = f"the translated sentences disagree outside the slot ({differs})"
    if before:
        agreement += f"; the slot follows {before}"
    assert checks["gender_agreement"] == (
        agreement + ": consider a plural rewording so every attribute fits"
    )
