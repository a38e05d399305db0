"""Read a BEC-Pro sentence back: which words show a gender, which elide or contract.

The agreement check does not trust the renderer: it reads the sentence itself — the words of
the person phrase, the word before the profession, the gendered words the template did not
write literally, the profession's words — and compares them with the person's gender, and it
finds every pair of words the grammar's elision and contraction rules cover. Pairs that lie
inside the person phrase or the profession are the lexicon's text and are not judged here.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from biasforge.curation.becpro.language import Elision, Grammar

_WORD = re.compile(r"\w+(?:['’](?=\w))?")
_APOSTROPHES = ("'", "’")


@dataclass(frozen=True)
class Word:
    text: str
    start: int
    end: int


def words(sentence: str) -> list[Word]:
    """The words of a sentence; an elided form keeps its apostrophe (``l'`` of ``l'infirmière``)."""
    return [Word(m[0], m.start(), m.end()) for m in _WORD.finditer(sentence)]


@dataclass(frozen=True)
class Regions:
    """Where the lexicon's text lies: the person phrase and the profession."""

    phrase: tuple[int, int]
    profession: tuple[int, int]

    def lexical(self, first: Word, second: Word) -> bool:
        """Both words inside the person phrase, or both inside the profession."""
        return any(a <= first.start and second.end <= b for a, b in (self.phrase, self.profession))


def gender_problems(
    sentence: str,
    gender: str,
    grammar: Grammar,
    regions: Regions,
    person_end: int,
    literal: set[str],
) -> list[str]:
    """Gendered words of the other gender: in the person phrase, right before the profession,
    or anywhere else the template did not write them itself (``literal``)."""
    other = "female" if gender == "male" else "male"
    wrong = grammar.gender_words(other)
    found = words(sentence)
    problems = [
        f"person determiner {w.text.lower()!r}"
        for w in found
        if w.end <= person_end and w.text.lower() in wrong
    ]
    before = [w for w in found if w.end <= regions.profession[0]]
    if before and before[-1].end > person_end and before[-1].text.lower() in wrong:
        problems.append(f"article {before[-1].text!r} before the profession")
    for w in found:
        outside = w.start >= person_end and not (
            regions.profession[0] <= w.start < regions.profession[1]
        )
        last_before = bool(before) and w is before[-1]
        if (
            outside
            and not last_before
            and w.text.lower() in wrong
            and w.text.lower() not in literal
        ):
            problems.append(f"word {w.text!r}")
    return problems


def profession_problems(read: str, expected: str, other: str, other_gender: str) -> list[str]:
    """The profession as the sentence writes it against the lexicon's two forms."""
    if len(read.split()) != len(expected.split()):
        return [f"profession {read!r} is not the lexicon's {expected!r}"]
    problems = []
    for got, want, alternative in zip(read.split(), expected.split(), other.split(), strict=False):
        if got == want:
            continue
        if got == alternative:
            problems.append(f"profession word {got!r} is the {other_gender} form")
        else:
            problems.append(f"profession word {got!r} is not the lexicon's {want!r}")
    return problems


def _pairs(sentence: str, regions: Regions) -> Iterator[tuple[Word, Word, str]]:
    """Neighbouring words outside the lexicon's text, with what separates them."""
    found = words(sentence)
    for first, second in itertools.pairwise(found):
        if not regions.lexical(first, second):
            yield first, second, sentence[first.end : second.start]


def elision_problems(sentence: str, rule: Elision, regions: Regions) -> list[str]:
    """Where ``rule`` should have applied and did not, or applied where it should not."""
    forms = {k.lower(): v for k, v in rule.words.items()}
    elided = {v.lower() for v in rule.words.values() if v.endswith(_APOSTROPHES)}
    problems = []
    for first, second, gap in _pairs(sentence, regions):
        form = forms.get(first.text.lower())
        if gap == " " and form is not None and rule.triggers(second.text):
            joined = form + second.text if form.endswith(_APOSTROPHES) else f"{form} {second.text}"
            problems.append(f"{first.text} {second.text} should be {joined}")
        elif gap == "" and first.text.lower() in elided and not rule.triggers(second.text):
            problems.append(f"{first.text}{second.text} elides before a word that does not take it")
    return problems


def contraction_problems(sentence: str, grammar: Grammar, regions: Regions) -> list[str]:
    """Word pairs the grammar fuses that the sentence writes apart."""
    problems = []
    for rule in grammar.contraction:
        pair = tuple(w.lower() for w in rule.words)
        for first, second, gap in _pairs(sentence, regions):
            if gap == " " and (first.text.lower(), second.text.lower()) == pair:
                problems.append(f"{first.text} {second.text} should be {rule.into}")
    return problems


def flagged_pairs(sentence: str, rule: Elision, regions: Regions) -> bool:
    """Whether a rule the corpus does not apply (``apply = false``) would apply somewhere."""
    forms = {k.lower() for k in rule.words}
    return any(
        gap == " " and first.text.lower() in forms and rule.triggers(second.text)
        for first, second, gap in _pairs(sentence, regions)
    )
