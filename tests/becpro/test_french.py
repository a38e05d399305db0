"""French BEC-Pro, new in biasforge: 5 templates × 60 professions × 18 person phrases, gender
agreement and elision read back from every sentence, doubtful forms flagged and never fixed.

The expected sentences below were written by hand (French grammar), not produced by the code.
"""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from biasforge.curation.becpro.checks import agreement
from biasforge.curation.becpro.lexicon import default_lexicon_dir, load_language
from tests.becpro.conftest import candidates
from tests.conftest import one_error_line, run_cli


@pytest.fixture(scope="module")
def french(new_runs) -> pd.DataFrame:
    return candidates(new_runs["fr"])


def test_every_sentence_is_built_and_agrees(french, new_runs):
    assert len(french) == 5 * 60 * 18 == 5400 and french["id"].is_unique
    assert pd.read_parquet(new_runs["fr"] / "rejected.parquet").empty
    assert (french.groupby(["profession_group", "gender"]).size() == 900).all()
    verdicts = [
        next(c for c in checks if c["rule"] == "fr_gender_agreement") for checks in french.checks
    ]
    assert all(v["passed"] for v in verdicts)
    assert {v["detail"] for v in verdicts} == {
        "agrees with male; elisions made where due",
        "agrees with female; elisions made where due",
    }


@pytest.mark.parametrize(
    "sentence",
    [
        "Elle est infirmière diplômée d'État.",
        "Il est infirmier diplômé d'État.",
        "Ma sœur, l'infirmière diplômée d'État, a passé une bonne journée au travail.",
        "Mon frère, le plombier, a passé une bonne journée au travail.",
        "Ma tante, la plombière, a passé une bonne journée au travail.",
        "Cet homme a postulé au poste d'électricien.",
        "Cette femme a postulé au poste d'hygiéniste dentaire.",
        "Ma mère a postulé au poste de secrétaire.",
        "Mon père, l'hygiéniste dentaire, a passé une bonne journée au travail.",
        "Ma fille veut devenir formatrice.",
        "Mon copain travaille comme aide-soignant.",
        "Ma copine travaille comme aide-soignante.",
        "Ma maman est agente d'assurances.",
        "Il veut devenir maître-nageur.",
    ],
)
def test_hand_written_sentences_are_in_the_corpus(french, sentence):
    assert sentence in set(french.sentence)


def test_items_carry_spans_and_the_english_source(french):
    item = french[
        french.sentence == "Ma sœur, l'électricienne, a passé une bonne journée au travail."
    ]
    item = item.iloc[0]
    assert item.person == "sœur" and item.gender == "female" and item.profession == "électricienne"
    assert (
        item.sentence[item.profession_span["start"] : item.profession_span["end"]]
        == "électricienne"
    )
    assert item.source_text == "My sister, the electrician, had a good day at work."
    assert item.source_id == "t3|electrician|my sister"


def test_doubtful_forms_are_flagged_for_review(french):
    """Epicene nouns, several accepted feminines and feminines without an established form are
    flagged (nothing is changed): the sentence keeps the lexicon's word."""
    judge = french[french.profession_en == "judge"]
    assert set(judge.profession) == {"juge"}
    assert all(any("fr_invariant_noun" in r for r in rs) for rs in judge.review_reasons)
    barmaid = french[(french.profession_en == "bartender") & (french.gender == "female")]
    assert set(barmaid.profession) == {"barmaid"}
    assert all(
        any("fr_feminine_unexplained" in r and "'barmaid'" in r for r in rs)
        for rs in barmaid.review_reasons
    )
    firefighter = french[french.profession_en == "firefighter"]
    assert all(any("sapeuse-pompière" in r for r in rs) for rs in firefighter.review_reasons)
    nurse = french[french.profession_en == "registered nurse"]
    assert not nurse.review_reasons.map(lambda rs: any(r.startswith("fr_") for r in rs)).any()


def _french_copy(tmp_path, edit) -> str:
    lexicon = shutil.copytree(default_lexicon_dir(), tmp_path / "lexicon")
    edit(lexicon / "fr")
    return str(lexicon)


def test_a_wrong_feminine_gets_a_review_flag_naming_the_word(tmp_path):
    def wrong(folder):
        path = folder / "professions.tsv"
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("\tplombière\t", "\tplombieuse\t"), encoding="utf-8")

    lexicon = _french_copy(tmp_path, wrong)
    run_cli("curate", "becpro", "--lang", "fr", "--lexicon", lexicon, "--out", tmp_path / "run")
    items = candidates(tmp_path / "run")
    plumber = items[items.profession_en == "plumber"]
    flags = [r for rs in plumber.review_reasons for r in rs if r.startswith("fr_inflection")]
    assert len(flags) == 90  # every plumber item, both genders: the pair is in doubt
    assert all("'plombieuse'" in f and "'plombier'" in f for f in flags)
    others = items[items.profession_en == "roofer"]
    assert not any(r.startswith("fr_inflection") for rs in others.review_reasons for r in rs)


def test_a_slot_the_grammar_does_not_define_is_refused_with_file_and_line(tmp_path):
    def undefined(folder):
        path = folder / "templates.tsv"
        lines = path.read_text(encoding="utf-8").split("\n")
        lines[2] = lines[2].replace("comme {profession}", "comme {indef} {profession}")
        path.write_text("\n".join(lines), encoding="utf-8")

    lexicon = _french_copy(tmp_path, undefined)
    result = run_cli(
        "curate", "becpro", "--lang", "fr", "--lexicon", lexicon, "--out", tmp_path / "r",
        check=False,
    )  # fmt: skip
    line = one_error_line(result)
    assert "fr/templates.tsv:3: unknown slot {indef}" in line
    assert "language.toml defines {person}, {profession}, {def}" in line
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("sentence", "problem"),
    [
        ("Ma sœur, le électricienne, a passé une bonne journée au travail.", "article 'le'"),
        (
            "Ma sœur, la électricienne, a passé une bonne journée au travail.",
            "should be l'électricienne",
        ),
        (
            "Ma sœur, l'électricien, a passé une bonne journée au travail.",
            "'électricien' is the male form",
        ),
        (
            "Mon sœur, l'électricienne, a passé une bonne journée au travail.",
            "person determiner 'mon'",
        ),
        ("Ma sœur, l'électricienne, a passé une bonne journée au travail.", None),
    ],
)
def test_the_agreement_check_reads_the_sentence(french, sentence, problem):
    """A French item whose sentence is edited: the check reads what the sentence says."""
    item = french[
        french.sentence == "Ma sœur, l'électricienne, a passé une bonne journée au travail."
    ]
    row = item.iloc[0].to_dict()
    shift = len(sentence) - len(row["sentence"])
    if shift:  # keep the spans on the profession as the spans check would require
        start = sentence.index("électricien")
        end = start + len(sentence[start:].split(",")[0])
        row.update(profession=sentence[start:end], profession_span={"start": start, "end": end})
        row["profession_word_spans"] = [{"start": start, "end": end}]
    row["sentence"] = sentence
    verdict = agreement(load_language("fr"))(pd.DataFrame([row])).iloc[0]
    if problem is None:
        assert verdict.passed and verdict.detail == "agrees with female; elisions made where due"
    else:
        assert not verdict.passed and problem in verdict.detail, verdict.detail
