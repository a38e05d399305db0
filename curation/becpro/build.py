"""Render the BEC-Pro items of one language and variant from the lexicon.

Row order is the published corpus's: profession group (male, female, balanced), template,
person gender (male, female), person phrase, profession. Each item records character spans of
the person word, the profession and each profession word, so masked variants can be rendered
with any model's mask token later.
"""

from __future__ import annotations

import pandas as pd

from biasforge.curation.becpro import spanish
from biasforge.curation.becpro.lexicon import (
    GENDERS,
    GROUPS,
    Lexicon,
    Person,
    Profession,
    Template,
    slot,
)
from biasforge.families.becpro import SCHEMA as FAMILY_SCHEMA
from biasforge.files import stable_id

FAMILY = "becpro"

SCHEMA = FAMILY_SCHEMA  # the candidate record, described once in biasforge.families.becpro


def capitalise(phrase: str) -> str:
    """Upper-case the first letter only (the phrase opens the sentence)."""
    return phrase[:1].upper() + phrase[1:]


def word_spans(text: str, offset: int) -> list[dict[str, int]]:
    """Spans of the whitespace-separated words of ``text`` placed at ``offset``."""
    spans, position = [], 0
    for word in text.split():
        start = text.index(word, position)
        spans.append({"start": offset + start, "end": offset + start + len(word)})
        position = start + len(word)
    return spans


def profession_form(prof: Profession, lang: str, gender: str) -> str:
    form = prof.forms[lang]
    return spanish.inflect(form, gender).text if lang == "es" else form


def render(template: Template, person: Person, profession: str) -> tuple[str, dict, dict, list]:
    """The sentence and its spans for one template, person and (already inflected) profession."""
    text = template.text
    if template.lang == "es":
        text = spanish.resolve_articles(text, person.gender)
    phrase = capitalise(person.phrase)
    head, tail = text.split(slot("profession"))
    prefix = head.replace(slot("person"), phrase)
    sentence = prefix + profession + tail.replace(slot("person"), phrase)
    words = phrase.split()
    index = [w.lower() for w in words].index(person.word.lower())
    word_start = sum(len(w) + 1 for w in words[:index])
    person_span = {"start": word_start, "end": word_start + len(words[index])}
    prof_span = {"start": len(prefix), "end": len(prefix) + len(profession)}
    return sentence, person_span, prof_span, word_spans(profession, len(prefix))


def build_items(lexicon: Lexicon, lang: str, variant: str) -> pd.DataFrame:
    """All items of one language/variant, in the published order, before any check."""
    templates = lexicon.templates_for(lang, variant)
    en_templates = lexicon.templates_for("en", "default")
    persons = lexicon.persons_for(lang)
    en_persons = {p.en_equivalent: p for p in lexicon.persons_for("en")}
    rows = []
    for group in GROUPS:
        professions = sorted(
            (p for p in lexicon.professions if p.group == group), key=lambda p: p.order
        )
        for template in templates:
            for gender in GENDERS:
                for person in (p for p in persons if p.gender == gender):
                    for prof in professions:
                        rows.append(
                            _row(lang, variant, template, person, prof, en_templates, en_persons)
                        )
    return pd.DataFrame(rows)


def _row(lang, variant, template, person, prof, en_templates, en_persons) -> dict:
    profession = profession_form(prof, lang, person.gender)
    sentence, person_span, prof_span, prof_words = render(template, person, profession)
    source_id = f"t{template.index}|{prof.en}|{person.en_equivalent}"
    source_text = sentence
    if lang != "en":
        en_person = en_persons.get(person.en_equivalent)
        if en_person is not None and template.index < len(en_templates):
            source_text = render(en_templates[template.index], en_person, prof.en)[0]
        else:
            source_text = ""
    notes = [note for note in (prof.notes.get(lang, ""), person.note, template.note) if note]
    return {
        "id": stable_id(FAMILY, lang, variant, source_id),
        "family": FAMILY,
        "language": lang,
        "variant": variant,
        "source_id": source_id,
        "source_language": "en",
        "source_text": source_text,
        "sentence": sentence,
        "person": sentence[person_span["start"] : person_span["end"]],
        "person_phrase": person.phrase,
        "person_span": person_span,
        "gender": person.gender,
        "profession": profession,
        "profession_source": prof.forms[lang],
        "profession_en": prof.en,
        "profession_span": prof_span,
        "profession_word_spans": prof_words,
        "profession_group": prof.group,
        "pct_women": prof.pct_women,
        "template": template.text,
        "template_index": template.index,
        "lexicon_notes": notes,
    }
