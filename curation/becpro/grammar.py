"""Render one BEC-Pro sentence from a template as its language's grammar declares.

A template is cut into pieces — literal words and spaces, the person phrase, the profession
and the gendered word slots — and the grammar's rules rewrite the words between them:
elision first (French ``la infirmière`` → ``l'infirmière``, ``de ingénieur`` →
``d'ingénieur``), then contraction (Spanish ``de el`` → ``del``; French ``de le`` becomes
``du`` only where ``le`` did not elide). Rules never change the person phrase or the
profession, which come from the lexicon as written; the spans of both are measured on the
finished sentence, after the first letter is capitalised.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from biasforge.curation.becpro.language import Grammar, SuffixRule

PERSON, PROFESSION, WORD, TEXT, SPACE = "person", "profession", "word", "text", "space"
_APOSTROPHES = ("'", "’")


@dataclass
class Piece:
    text: str
    role: str  # PERSON, PROFESSION, WORD (a gendered slot), TEXT (template words) or SPACE


Rewrite = Callable[[list[Piece], Grammar, str], list[Piece]]


@dataclass(frozen=True)
class Rendered:
    sentence: str
    person_span: dict[str, int]
    profession_span: dict[str, int]
    profession_word_spans: list[dict[str, int]]


def slot_pattern(grammar: Grammar) -> re.Pattern[str]:
    """``{name}`` slots, and the bare markers (``un/una``) some templates print instead."""
    markers = sorted((w.written for w in grammar.words.values() if w.written), key=len)
    bare = "|".join(re.escape(m) for m in reversed(markers))
    pattern = r"\{([^{}]*)\}"
    if bare:
        pattern += rf"|(?<![\w/])({bare})(?![\w/])"
    return re.compile(pattern)


def template_slots(text: str, grammar: Grammar) -> list[str]:
    """The slot names of a template, bare markers given by the name they stand for."""
    by_marker = {w.written: name for name, w in grammar.words.items() if w.written}
    return [
        m[1] if m[1] is not None else by_marker[m[2]] for m in slot_pattern(grammar).finditer(text)
    ]


def literal_words(text: str, grammar: Grammar) -> set[str]:
    """The lower-cased words a template writes itself (not through a slot)."""
    return {w.lower() for w in _words(slot_pattern(grammar).sub(" ", text))}


def _words(text: str) -> list[str]:
    return re.findall(r"\w+(?:['’](?=\w))?", text)


def pieces(
    template: str, grammar: Grammar, phrase: str, profession: str, gender: str
) -> list[Piece]:
    """The template cut into pieces, slots filled for ``gender``."""
    by_marker = {w.written: name for name, w in grammar.words.items() if w.written}
    out: list[Piece] = []
    position = 0
    for match in slot_pattern(grammar).finditer(template):
        out += _literal(template[position : match.start()])
        name = match[1] if match[1] is not None else by_marker[match[2]]
        if name == PERSON:
            out.append(Piece(phrase, PERSON))
        elif name == PROFESSION:
            out.append(Piece(profession, PROFESSION))
        else:
            out.append(Piece(grammar.words[name].for_gender(gender), WORD))
        position = match.end()
    return out + _literal(template[position:])


def _literal(text: str) -> list[Piece]:
    return [
        Piece(part, SPACE if part.isspace() else TEXT) for part in re.split(r"(\s+)", text) if part
    ]


def _next_word(parts: list[Piece], i: int) -> tuple[int, str] | None:
    """The piece after a single space following ``parts[i]`` and its first word."""
    if i + 2 < len(parts) and parts[i + 1].role == SPACE and parts[i + 1].text == " ":
        words = _words(parts[i + 2].text)
        if words and parts[i + 2].text.startswith(words[0]):
            return i + 2, words[0]
    return None


def _match_case(word: str, form: str) -> str:
    return form[:1].upper() + form[1:] if word[:1].isupper() else form


def elide(parts: list[Piece], grammar: Grammar) -> list[Piece]:
    """Apply the grammar's elisions to template words and word slots (never to the person
    phrase or the profession, which the lexicon writes as they are)."""
    for rule in (r for r in grammar.elision if r.apply):
        forms = {k.lower(): v for k, v in rule.words.items()}
        for i, part in enumerate(parts):
            after = _next_word(parts, i)
            due = after is not None and rule.triggers(after[1])
            if part.role in (TEXT, WORD) and part.text.lower() in forms and due:
                part.text = _match_case(part.text, forms[part.text.lower()])
                if part.text.endswith(_APOSTROPHES):
                    parts[i + 1].text = ""
    return [p for p in parts if p.text or p.role in (PERSON, PROFESSION)]


def contract(parts: list[Piece], grammar: Grammar) -> list[Piece]:
    """Fuse the grammar's word pairs where a template or a slot writes them side by side."""
    for rule in grammar.contraction:
        first, second = (w.lower() for w in rule.words)
        for i, part in enumerate(parts):
            after = _next_word(parts, i)
            if (
                part.role in (TEXT, WORD)
                and part.text.lower() == first
                and after
                and parts[after[0]].role in (TEXT, WORD)
                and parts[after[0]].text.lower() == second
            ):
                part.text = _match_case(part.text, rule.into)
                parts[i + 1].text = parts[after[0]].text = ""
    return [p for p in parts if p.text or p.role in (PERSON, PROFESSION)]


def render(
    template: str,
    grammar: Grammar,
    phrase: str,
    word: str,
    profession: str,
    gender: str,
    rewrite: Rewrite | None = None,
) -> Rendered:
    """The sentence and its spans: ``word`` is the person word inside ``phrase``;
    ``rewrite`` is a language module's (:mod:`~biasforge.curation.becpro.modules`)."""
    parts = contract(elide(pieces(template, grammar, phrase, profession, gender), grammar), grammar)
    if rewrite is not None:
        parts = [
            p for p in rewrite(parts, grammar, gender) if p.text or p.role in (PERSON, PROFESSION)
        ]
    if grammar.capitalise and parts and parts[0].text:
        parts[0].text = parts[0].text[:1].upper() + parts[0].text[1:]
    sentence, offset, person, prof = "", 0, None, None
    for part in parts:
        if part.role == PERSON:
            person = _person_span(part.text, word, offset)
        elif part.role == PROFESSION:
            prof = (offset, offset + len(part.text))
        sentence += part.text
        offset += len(part.text)
    assert person is not None and prof is not None  # every template has both (validated)
    return Rendered(
        sentence,
        person,
        {"start": prof[0], "end": prof[1]},
        word_spans(profession, prof[0]),
    )


def _person_span(phrase: str, word: str, offset: int) -> dict[str, int]:
    words = phrase.split(" ")
    index = [w.lower() for w in words].index(word.lower())
    start = offset + sum(len(w) + 1 for w in words[:index])
    return {"start": start, "end": start + len(words[index])}


def word_spans(text: str, offset: int) -> list[dict[str, int]]:
    """Spans of the whitespace-separated words of ``text`` placed at ``offset``."""
    spans, position = [], 0
    for word in text.split():
        start = text.index(word, position)
        spans.append({"start": offset + start, "end": offset + start + len(word)})
        position = start + len(word)
    return spans


# ---------------------------------------------------------------- profession forms


@dataclass
class Inflection:
    """A profession's form for one gender, and anything a reviewer should look at."""

    text: str
    review: list[tuple[str, str]]  # (rule suffix, detail)


def feminine_of(word: str, rules: list[SuffixRule]) -> str:
    """The feminine of ``word`` by the first rule that matches (the word unchanged if none)."""
    return next((f for f in (r.apply(word) for r in rules) if f is not None), word)


def inflect(notation: str, gender: str, grammar: Grammar) -> Inflection:
    """Read a profession written in the grammar's notation (``profesor/a de guardería``) for
    ``gender``; a form without a marked word is kept for both genders and flagged."""
    spec = grammar.inflection
    assert spec is not None
    out, marked = [], False
    for word in notation.split():
        stem = word[: -len(spec.marker)]
        if word.endswith(spec.marker) and re.fullmatch(r"\w+", stem):
            out.append(stem if gender == "male" else feminine_of(stem, grammar.feminine))
            marked = True
        else:
            out.append(word)
    review: list[tuple[str, str]] = []
    head = notation.split()[0]
    looks_masculine = head.endswith(tuple(spec.masculine_endings)) and not head.endswith(
        tuple(spec.epicene_endings)
    )
    if not marked and looks_masculine and gender == "female":
        review.append(
            (
                "feminine_form_missing",
                f"the table gives only {notation!r}, which looks masculine; the female item "
                "uses it unchanged (a feminine form is not given)",
            )
        )
    elif not marked and not looks_masculine:
        review.append(
            (
                "invariant_noun",
                f"{notation!r} has no gendered form in the table; assumed to serve both genders "
                "(only the article, if any, shows the gender)",
            )
        )
    return Inflection(" ".join(out), review)


def pair_review(male: str, female: str, grammar: Grammar) -> list[tuple[str, str]]:
    """Doubts about a written-out pair: one form for both genders, or a feminine that no
    declared rule makes of its masculine (a misprint, or a form to look at)."""
    if male == female:
        return [
            (
                "invariant_noun",
                f"{male!r} is given for both genders; only the person, and the article if "
                "any, show the gender",
            )
        ]
    pairs = list(zip(male.split(), female.split(), strict=False))
    unexplained = [
        (m, f) for m, f in pairs if m != f and not any(r.apply(m) == f for r in grammar.feminine)
    ]
    if len(male.split()) != len(female.split()):
        unexplained = [(male, female)]
    return [
        (
            "feminine_unexplained",
            f"feminine {f!r} of {m!r} follows none of the feminine rules of language.toml",
        )
        for m, f in unexplained
    ]
