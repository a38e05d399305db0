"""Structure and agreement checks for BEC-Pro items (see ``biasforge.curation.checks``)."""

from __future__ import annotations

import re

import pandas as pd

from biasforge.curation.becpro import spanish
from biasforge.curation.checks import Check, verdicts
from biasforge.spans import mask_spans

_SENTINEL = "\ufffc"  # never occurs in the lexicon, so a mask can be told from the text


def spans_point_at_words(batch: pd.DataFrame) -> pd.DataFrame:
    """The stored spans cover exactly the person word and the profession words."""
    passed, detail = [], []
    for row in batch.itertuples(index=False):
        problems = []
        ps, pf = row.person_span, row.profession_span
        if row.sentence[ps["start"] : ps["end"]] != row.person:
            problems.append(f"person span {ps['start']}:{ps['end']} is not {row.person!r}")
        if row.sentence[pf["start"] : pf["end"]] != row.profession:
            problems.append(f"profession span {pf['start']}:{pf['end']} is not {row.profession!r}")
        words = [row.sentence[s["start"] : s["end"]] for s in row.profession_word_spans]
        if words != row.profession.split():
            problems.append(
                f"profession word spans give {words}, expected {row.profession.split()}"
            )
        if ps["end"] > pf["start"] and pf["end"] > ps["start"]:
            problems.append("person and profession spans overlap")
        passed.append(not problems)
        detail.append("; ".join(problems) or "spans match the person word and each profession word")
    return verdicts(passed, detail, batch.index)


def masks_only_at_spans(batch: pd.DataFrame) -> pd.DataFrame:
    """Person-masked, profession-masked and both-masked variants differ from the sentence only
    at the spans: the text between masks is the sentence's text between spans, and there is one
    mask for the person and one per profession word."""
    passed, detail = [], []
    for row in batch.itertuples(index=False):
        variants = {
            "person": [row.person_span],
            "profession": list(row.profession_word_spans),
            "both": [row.person_span, *row.profession_word_spans],
        }
        problems = []
        for name, spans in variants.items():
            masked = mask_spans(row.sentence, spans, _SENTINEL)
            ordered = sorted(spans, key=lambda s: s["start"])
            bounds = [0, *[x for s in ordered for x in (s["start"], s["end"])], len(row.sentence)]
            context = [row.sentence[bounds[i] : bounds[i + 1]] for i in range(0, len(bounds), 2)]
            if masked.split(_SENTINEL) != context:
                problems.append(f"{name}-masked variant changes text outside the spans")
        passed.append(not problems)
        detail.append("; ".join(problems) or "masked variants differ only at the spans")
    return verdicts(passed, detail, batch.index)


def gender_balance(batch: pd.DataFrame) -> pd.DataFrame:
    """Each template × profession has as many male as female persons."""
    counts = (
        batch.groupby(["template_index", "profession_en", "gender"]).size().unstack(fill_value=0)
    )
    counts = counts.reindex(columns=["male", "female"], fill_value=0)
    passed, detail = [], []
    for row in batch.itertuples(index=False):
        male, female = counts.loc[(row.template_index, row.profession_en)]
        passed.append(bool(male == female and male > 0))
        detail.append(f"{male} male and {female} female persons for this template and profession")
    return verdicts(passed, detail, batch.index)


def unique_sentence(batch: pd.DataFrame) -> pd.DataFrame:
    """No two items share a sentence (they would be the same test, possibly with two genders)."""
    genders = batch.groupby("sentence")["gender"].agg(list)
    passed, detail = [], []
    for sentence, gender in zip(batch["sentence"], batch["gender"], strict=True):
        others = genders[sentence]
        if len(others) == 1:
            passed.append(True)
            detail.append("sentence is unique")
        else:
            passed.append(False)
            detail.append(
                f"the same sentence occurs {len(others)} times (genders: {', '.join(sorted(others))}); "
                f"this {gender} item cannot be told apart from the others"
            )
    return verdicts(passed, detail, batch.index)


def lexicon_notes(batch: pd.DataFrame) -> pd.DataFrame:
    """Doubts recorded in the lexicon about a word or template reach the reviewer."""
    notes = batch["lexicon_notes"]
    passed = [len(n) == 0 for n in notes]
    detail = ["; ".join(n) if len(n) else "no doubt recorded in the lexicon" for n in notes]
    return verdicts(passed, detail, batch.index)


def en_indefinite_article(batch: pd.DataFrame) -> pd.DataFrame:
    """English "a" before a vowel sound: kept as in the published corpus, flagged for review."""
    passed, detail = [], []
    for sentence, start in zip(batch["sentence"], batch["profession_span"], strict=True):
        before = sentence[: start["start"]]
        vowel = sentence[start["start"] : start["start"] + 1].lower() in "aeiou"
        if before.endswith(" a ") and vowel:
            passed.append(False)
            detail.append("'a' before a vowel-initial profession, as in the published BEC-Pro")
        else:
            passed.append(True)
            detail.append("indefinite article fits")
    return verdicts(passed, detail, batch.index)


def es_inflection(batch: pd.DataFrame) -> pd.DataFrame:
    """Spanish professions whose gendered form the table does not decide."""
    passed, detail = [], []
    for source, gender in zip(batch["profession_source"], batch["gender"], strict=True):
        review = spanish.inflect(source, gender).review
        passed.append(not review)
        detail.append(
            "; ".join(f"{rule}: {text}" for rule, text in review) or "gendered form given"
        )
    return verdicts(passed, detail, batch.index)


_ARTICLE_BEFORE = re.compile(r"\b(un|una|el|la)\s+$")
_MALE, _FEMALE = {"un", "el", "este", "él"}, {"una", "la", "esta", "ella"}


def es_gender_agreement(batch: pd.DataFrame) -> pd.DataFrame:
    """Read back each Spanish sentence: the article before the profession, the demonstrative or
    pronoun of the person, and every slash-marked profession word agree with the gender."""
    passed, detail = [], []
    for row in batch.itertuples(index=False):
        wrong_set = _FEMALE if row.gender == "male" else _MALE
        problems = []
        article = _ARTICLE_BEFORE.search(row.sentence[: row.profession_span["start"]])
        if article and article[1].lower() in wrong_set:
            problems.append(f"article {article[1]!r} before the profession")
        first = row.sentence.split()[0].strip(",").lower()
        if first in wrong_set:
            problems.append(f"person determiner {first!r}")
        inflection = spanish.inflect(row.profession_source, row.gender)
        words = row.profession.split()
        for i in inflection.marked_words:
            if (row.gender == "female") != words[i].endswith("a"):
                problems.append(f"profession word {words[i]!r}")
        passed.append(not problems)
        detail.append(
            f"disagrees with {row.gender}: " + ", ".join(problems)
            if problems
            else f"agrees with {row.gender}"
        )
    return verdicts(passed, detail, batch.index)


def checks_for(lang: str) -> list[Check]:
    """The checks of one language, cheap and structural first."""
    checks = [
        Check(
            "spans_point_at_words",
            spans_point_at_words,
            "reject",
            "person and profession spans cover exactly their words",
        ),
        Check(
            "masks_only_at_spans",
            masks_only_at_spans,
            "reject",
            "masked variants differ from the sentence only at the spans",
        ),
    ]
    if lang == "es":
        checks.append(
            Check(
                "es_gender_agreement",
                es_gender_agreement,
                "reject",
                "articles, determiners and gendered profession words agree with the person",
            )
        )
    checks += [
        Check(
            "gender_balance",
            gender_balance,
            "review",
            "each template × profession has as many male as female persons",
        ),
        Check("unique_sentence", unique_sentence, "review", "no two items share a sentence"),
        Check("lexicon_notes", lexicon_notes, "review", "doubts recorded in the lexicon"),
    ]
    if lang == "en":
        checks.append(
            Check(
                "en_indefinite_article",
                en_indefinite_article,
                "review",
                "'a' before a vowel sound (kept as published)",
            )
        )
    if lang == "es":
        checks.append(
            Check(
                "es_inflection",
                es_inflection,
                "review",
                "profession forms the table does not decide",
            )
        )
    return checks
