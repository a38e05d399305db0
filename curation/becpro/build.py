"""Render the BEC-Pro items of one language and variant from its folder of data.

Row order is the published corpus's: profession group (male, female, balanced), template,
person gender (male, female), person phrase, profession. Each item records character spans of
the person word, the profession and each profession word, so masked variants can be rendered
with any model's mask token later.
"""

from __future__ import annotations

import pandas as pd

from biasforge.curation.becpro import modules
from biasforge.curation.becpro.grammar import Rewrite, inflect, render
from biasforge.curation.becpro.lexicon import (
    GENDERS,
    GROUPS,
    Language,
    Person,
    Profession,
    Template,
)
from biasforge.families.becpro import SCHEMA as FAMILY_SCHEMA
from biasforge.files import stable_id

FAMILY = "becpro"
#: the language BEC-Pro was written in: every item's ``source_text`` is in it
SOURCE_LANGUAGE = "en"

SCHEMA = FAMILY_SCHEMA  # the candidate record, described once in biasforge.families.becpro


def rewrite_of(language: Language) -> Rewrite | None:
    """The rewrite hook of the language's registered module, if it names one."""
    module = language.grammar.module
    return modules.get(module).rewrite if module else None


def profession_form(language: Language, prof: Profession, gender: str) -> str:
    """The profession as the sentence writes it for a person of ``gender``."""
    written = prof.written[gender]
    if language.grammar.profession_forms == "notation":
        return inflect(written, gender, language.grammar).text
    return written


def build_items(language: Language, variant: str, english: Language | None = None) -> pd.DataFrame:
    """All items of one language/variant, in the published order, before any check.

    ``english`` (the lexicon's English) gives each item its ``source_text``: the English
    sentence of the same template number, profession and person.
    """
    templates = language.templates_for(variant)
    rows = []
    for group in GROUPS:
        professions = sorted(
            (p for p in language.professions if p.group == group), key=lambda p: p.order
        )
        for template in templates:
            for gender in GENDERS:
                for person in (p for p in language.persons if p.gender == gender):
                    for prof in professions:
                        rows.append(_row(language, variant, template, person, prof, english))
    return pd.DataFrame(rows)


def _english_source(
    english: Language | None, template: Template, person: Person, prof: Profession
) -> str:
    if english is None:
        return ""
    templates = {t.index: t for t in english.templates_for(english.grammar.variants[0])}
    persons = {p.en_equivalent: p for p in english.persons}
    en_person = persons.get(person.en_equivalent)
    if en_person is None or template.index not in templates:
        return ""
    text = templates[template.index].text
    return render(
        text,
        english.grammar,
        en_person.phrase,
        en_person.word,
        prof.en,
        en_person.gender,
        rewrite_of(english),
    ).sentence


def _row(
    language: Language,
    variant: str,
    template: Template,
    person: Person,
    prof: Profession,
    english: Language | None,
) -> dict:
    lang = language.code
    profession = profession_form(language, prof, person.gender)
    rendered = render(
        template.text,
        language.grammar,
        person.phrase,
        person.word,
        profession,
        person.gender,
        rewrite_of(language),
    )
    sentence, person_span = rendered.sentence, rendered.person_span
    source_id = f"t{template.index}|{prof.en}|{person.en_equivalent}"
    source_text = _english_source(english, template, person, prof)
    notes = [note for note in (prof.note, person.note, template.note) if note]
    return {
        "id": stable_id(FAMILY, lang, variant, source_id),
        "family": FAMILY,
        "language": lang,
        "variant": variant,
        "source_id": source_id,
        "source_language": SOURCE_LANGUAGE,
        "source_text": source_text,
        "sentence": sentence,
        "person": sentence[person_span["start"] : person_span["end"]],
        "person_phrase": person.phrase,
        "person_span": person_span,
        "gender": person.gender,
        "profession": profession,
        "profession_source": prof.written[person.gender],
        "profession_en": prof.en,
        "profession_span": rendered.profession_span,
        "profession_word_spans": rendered.profession_word_spans,
        "profession_group": prof.group,
        "pct_women": prof.pct_women,
        "template": template.text,
        "template_index": template.index,
        "lexicon_notes": notes,
    }
