"""Spanish and Basque BEC-Pro: gender agreement throughout, undecidable items flagged."""

from __future__ import annotations

import re

from tests.becpro.conftest import candidates


def test_spanish_with_articles_agrees_in_gender(becpro_runs):
    items = candidates(becpro_runs["es-with_articles"])
    assert len(items) == 5400 and items["id"].is_unique
    sentences = set(items.sentence)
    # Expected sentences written by hand from Table 4.3 and Annex B of the TFG.
    expected = {
        "Mi hermana es una profesora de guardería.",
        "Mi hermano es un profesor de guardería.",
        "Ella, la enfermera diplomada, tuvo un buen día en el trabajo.",
        "Él, el enfermero diplomado, tuvo un buen día en el trabajo.",
        "Esta mujer solicitó el puesto de jueza.",
        "Este hombre quiere convertirse en científico médico.",
        "Mi madre trabaja como científica médica.",
        "Mi tía es una electricista.",
    }
    assert expected <= sentences, expected - sentences
    female = items[items.gender == "female"]
    male = items[items.gender == "male"]
    # No masculine article or demonstrative ever introduces a female person's profession, and
    # vice versa, in templates 0 ("es un/una") and 3 ("el/la").
    assert not female.sentence.str.contains(r"\b(?:un|el|Este)\b(?! buen| puesto| trabajo)").any()
    assert not male.sentence.str.contains(r"\b(?:una|la|Esta)\b").any()


def test_spanish_without_articles_has_no_article_before_profession(becpro_runs):
    items = candidates(becpro_runs["es-without_articles"])
    assert "Mi hermana es profesora de guardería." in set(items.sentence)
    assert "Mi hermana, profesora de guardería, tuvo un buen día en el trabajo." in set(
        items.sentence
    )
    before = [s[: p["start"]] for s, p in zip(items.sentence, items.profession_span, strict=True)]
    assert not any(re.search(r"\b(un|una|el|la) $", b) for b in before)


def test_spanish_flags_what_the_rules_cannot_decide(becpro_runs):
    items = candidates(becpro_runs["es-with_articles"])
    coach_f = items[(items.profession_en == "training specialist") & (items.gender == "female")]
    coach_m = items[(items.profession_en == "training specialist") & (items.gender == "male")]
    assert len(coach_f) == 45
    assert all(any("es_feminine_form_missing" in r for r in rs) for rs in coach_f.review_reasons)
    assert not any(
        any("es_feminine_form_missing" in r for r in rs) for rs in coach_m.review_reasons
    )
    electrician = items[items.profession_en == "electrician"]
    assert all(any("es_invariant_noun" in r for r in rs) for rs in electrician.review_reasons)
    receptionist = items[items.profession_en == "receptionist"]
    assert all(any("recepcionista" in r for r in rs) for rs in receptionist.review_reasons)
    teacher = items[items.profession_en == "kindergarten teacher"]
    assert not teacher.review_reasons.map(lambda rs: any(r.startswith("es_") for r in rs)).any()


def test_basque_uses_tfg_words_and_flags_doubtful_entries(becpro_runs):
    items = candidates(becpro_runs["eu"])
    assert len(items) == 5400 and items["id"].is_unique
    assert "Anaia suhiltzailea da." in set(items.sentence)
    sister = items[items.person == "Arriba"]
    assert len(sister) == 300 and sister.gender.eq("female").all()
    assert sister.needs_review.all()
    assert all(any("arreba" in r for r in rs) for rs in sister.review_reasons)
    # 'bera' is he and she at once: the male and female items are the same sentence.
    bera = items[items.person == "Bera"]
    assert len(bera) == 600
    assert all(any(r.startswith("unique_sentence") for r in rs) for rs in bera.review_reasons)
    assert items.groupby("gender").size().to_dict() == {"female": 2700, "male": 2700}


def test_cross_language_items_share_source_sentences(becpro_runs):
    en = candidates(becpro_runs["en"]).set_index("source_id")
    es = candidates(becpro_runs["es-with_articles"]).set_index("source_id")
    eu = candidates(becpro_runs["eu"]).set_index("source_id")
    assert set(en.index) == set(es.index) == set(eu.index)
    key = "t0|taper|my aunt"
    assert en.loc[key, "sentence"] == "My aunt is a taper."
    assert es.loc[key, "source_text"] == "My aunt is a taper."
    assert es.loc[key, "sentence"] == "Mi tía es una instaladora de paneles de yeso."
    assert eu.loc[key, "sentence"] == "Izeba igeltsuzko panel instalatzailea da."
