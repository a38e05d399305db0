"""Scripts written without spaces between words (Chinese, Japanese).

Several stages need to know where a text has no word boundaries to split on: CrowS-Pairs'
spans are compared character by character there, a causal model reads a continuation glued to
its context without the space lm-evaluation-harness puts between English texts, and
StereoSet's official procedure (which splits on spaces) cannot find a word in such a context.
One definition, from the Unicode script properties of the ``regex`` package.
"""

from __future__ import annotations

import regex

#: the scripts whose words are not separated by spaces, as a ``regex`` character-class body
UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}"
#: their punctuation (。、「」！？ and the full-width forms), which is not spaced either
_UNSPACED_PUNCTUATION = r"\u3000-\u303f\uff01-\uff60"
_EDGE = regex.compile(rf"[{UNSPACED}{_UNSPACED_PUNCTUATION}]")


def joins_without_space(left: str, right: str) -> bool:
    """Whether ``left`` and ``right`` run on without a space: both sides of the join are
    characters of an unspaced script (or its punctuation)."""
    left, right = left.rstrip(), right.lstrip()
    return bool(left and right and _EDGE.match(left[-1]) and _EDGE.match(right[0]))


def has_unspaced(text: str) -> bool:
    """Whether ``text`` holds any character of an unspaced script."""
    return bool(regex.search(rf"[{UNSPACED}]", text))
