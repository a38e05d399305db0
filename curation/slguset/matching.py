"""Where the gender forms of the lexicon occur in a sentence, and which occurrence is the
candidate's keyword.

The regex pass (:func:`keyword_matches`) is the cheap prefilter; :func:`classify_matches` then
uses the jieba tokens to tell a gender word (他, 女教师's 女) from a gender character inside
another word (吉他, 他杀, 子女), and marks the collective forms a run excludes (他们 …: see
``collective_forms.tsv``), which are gender words but never a candidate's keyword.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from biasforge.curation.slguset.lexicon import Lexicon
from biasforge.curation.slguset.names import Token


@dataclass(frozen=True)
class Match:
    form: str
    start: int
    end: int
    genuine: bool  # inside one token that is not a non-gender word
    token: str
    excluded: bool = False  # a collective form this run excludes (他们 by default)


def keyword_matches(sentence: str, lexicon: Lexicon) -> list[tuple[str, int, int]]:
    """Every occurrence of a gender form (regex, longest form first): the cheap prefilter."""
    return [(m.group(), m.start(), m.end()) for m in lexicon.pattern.finditer(sentence)]


def classify_matches(
    matches: Sequence[tuple[str, int, int]],
    tokens: Sequence[Token],
    lexicon: Lexicon,
    excluded: Collection[str] = (),
) -> list[Match]:
    """Decide with the jieba tokens whether each occurrence is a gender word: it must lie inside
    one token, and no listed non-gender word (吉他, 他杀, 子女 …) inside that token may cover it
    (jieba's own dictionary has longer words such as 其他人 that contain 其他). Forms in
    ``excluded`` are marked so."""
    starts = [t.start for t in tokens]  # tokens are in order: find each one by bisection
    out = []
    for form, start, end in matches:
        at = bisect_right(starts, start) - 1
        token = tokens[at] if at >= 0 and start < tokens[at].start + len(tokens[at].word) else None
        inside = token is not None and end <= token.start + len(token.word)
        word = token.word if token is not None else ""
        genuine = inside and not _covered(word, token.start if token else 0, start, end, lexicon)
        out.append(Match(form, start, end, genuine, word, form in excluded))
    return out


def _covered(word: str, offset: int, start: int, end: int, lexicon: Lexicon) -> bool:
    """Whether a non-gender word inside token ``word`` (at ``offset``) covers [start, end)."""
    if word in lexicon.non_gender_words:
        return True
    for other in lexicon.non_gender_words:
        if len(other) >= len(word):
            continue
        pos = word.find(other)
        while pos >= 0:
            if offset + pos <= start and end <= offset + pos + len(other):
                return True
            pos = word.find(other, pos + 1)
    return False


def target_of(matches: Sequence[Match]) -> Match | None:
    """The candidate's one target keyword: the first genuine occurrence of a form the run does
    not exclude (so a singular 他 after an unrelated 他们 is the keyword)."""
    return next((m for m in matches if m.genuine and not m.excluded), None)


def first_gender_word(matches: Sequence[Match]) -> Match | None:
    """The first genuine occurrence, excluded collective forms included."""
    return next((m for m in matches if m.genuine), None)


def keyword_of(sentence: str, matches: Sequence[Match], lexicon: Lexicon) -> tuple[str, int, int]:
    """The row's keyword and span: the target, or (for a row rejected before or by the
    non-gender rule) the first form the regex finds; ``("", -1, -1)`` if none."""
    target = target_of(matches)
    if target is not None:
        return target.form, target.start, target.end
    found = keyword_matches(sentence, lexicon)
    return found[0] if found else ("", -1, -1)
