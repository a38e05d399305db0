"""Structure and agreement checks for BEC-Pro items (see ``biasforge.curation.checks``).

Every language gets the structural checks; what else it gets follows from its grammar
(``language.toml``), never from its name: a read-back of gender agreement, elision and
contraction where the grammar declares gendered words or rules, a review flag for each rule
the published corpus does not apply, and a review of profession forms the lexicon does not
decide. A registered language module may add checks of its own.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from biasforge.curation.becpro.build import profession_form
from biasforge.curation.becpro.grammar import inflect, literal_words, pair_review
from biasforge.curation.becpro.language import Elision
from biasforge.curation.becpro.lexicon import Language
from biasforge.curation.becpro.readback import (
    Regions,
    contraction_problems,
    elision_problems,
    flagged_pairs,
    gender_problems,
    profession_problems,
)
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
    # a dict, not counts.loc per row: .loc took a second of a 5,400-item curation
    persons = dict(
        zip(counts.index, zip(counts["male"], counts["female"], strict=True), strict=True)
    )
    passed, detail = [], []
    for key in zip(batch["template_index"], batch["profession_en"], strict=True):
        male, female = persons[key]
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


def _regions(row) -> Regions:
    pf = row.profession_span
    return Regions((0, len(row.person_phrase)), (pf["start"], pf["end"]))


def agreement(language: Language) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """Read each sentence back: the words that show a gender agree with the person, the
    profession is the lexicon's form for the person's gender, and every elision and
    contraction the grammar declares is made where due and only there."""
    grammar = language.grammar
    forms = {
        (p.en, gender): profession_form(language, p, gender)
        for p in language.professions
        for gender in ("male", "female")
    }
    literal = {t.text: literal_words(t.text, grammar) for t in language.templates}
    elisions = [r for r in grammar.elision if r.apply]
    fine = "; elisions made where due" if elisions else ""

    def check(batch: pd.DataFrame) -> pd.DataFrame:
        passed, detail = [], []
        for row in batch.itertuples(index=False):
            other = "female" if row.gender == "male" else "male"
            regions = _regions(row)
            read = row.sentence[regions.profession[0] : regions.profession[1]]
            problems = gender_problems(
                row.sentence,
                row.gender,
                grammar,
                regions,
                row.person_span["end"],
                literal[row.template],
            )
            problems += profession_problems(
                read,
                forms[(row.profession_en, row.gender)],
                forms[(row.profession_en, other)],
                other,
            )
            for rule in elisions:
                problems += elision_problems(row.sentence, rule, regions)
            problems += contraction_problems(row.sentence, grammar, regions)
            passed.append(not problems)
            detail.append(
                f"disagrees with {row.gender}: " + ", ".join(problems)
                if problems
                else f"agrees with {row.gender}{fine}"
            )
        return verdicts(passed, detail, batch.index)

    return check


def kept_as_published(rule: Elision) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """Items where a rule the published corpus does not apply would apply, flagged."""

    def check(batch: pd.DataFrame) -> pd.DataFrame:
        flagged = [
            flagged_pairs(row.sentence, rule, _regions(row))
            for row in batch.itertuples(index=False)
        ]
        return verdicts(
            [not f for f in flagged],
            [rule.flagged if f else rule.fine for f in flagged],
            batch.index,
        )

    return check


def inflection(language: Language) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """Profession forms the lexicon does not decide: no gendered form, a feminine that looks
    missing, or a written-out feminine that none of the grammar's rules explains."""
    grammar, code = language.grammar, language.code
    written = {p.en: p.written for p in language.professions}

    def review(row) -> list[tuple[str, str]]:
        if grammar.profession_forms == "notation":
            return inflect(row.profession_source, row.gender, grammar).review
        forms = written[row.profession_en]
        return pair_review(forms["male"], forms["female"], grammar)

    def check(batch: pd.DataFrame) -> pd.DataFrame:
        passed, detail = [], []
        for row in batch.itertuples(index=False):
            found = review(row)
            passed.append(not found)
            detail.append(
                "; ".join(f"{code}_{rule}: {text}" for rule, text in found) or "gendered form given"
            )
        return verdicts(passed, detail, batch.index)

    return check


def checks_for(language: Language, extra: list[Check] | None = None) -> list[Check]:
    """The checks of one language, cheap and structural first; ``extra`` from its module."""
    grammar, code = language.grammar, language.code
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
    applied = [r for r in grammar.elision if r.apply] or grammar.contraction
    gendered = grammar.profession_forms != "one" or grammar.gender_words("male")
    if gendered or applied:
        what = "articles, determiners and gendered profession words agree with the person"
        if [r for r in grammar.elision if r.apply]:
            what += "; elisions made where due"
        checks.append(Check(f"{code}_gender_agreement", agreement(language), "reject", what))
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
    for rule in (r for r in grammar.elision if not r.apply):
        checks.append(
            Check(f"{code}_{rule.rule}", kept_as_published(rule), "review", str(rule.description))
        )
    if grammar.profession_forms != "one":
        checks.append(
            Check(
                f"{code}_inflection",
                inflection(language),
                "review",
                "profession forms the table does not decide",
            )
        )
    return checks + list(extra or [])
