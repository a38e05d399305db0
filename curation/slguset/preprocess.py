"""Sentence extraction as in the SlguSet paper (§ 预处理).

Texts are cut into sentences at 。？！ (full- and half-width ? !), keeping closing quotes and
brackets with the sentence they close; spaces and indentation (ASCII and full-width) are
removed; a quote left open or closed without an opener by the cut is repaired (completed at
the sentence's edge) or, when it dangles at the very edge, deleted; only CJK characters,
digits and punctuation are kept — a sentence with other characters (Latin letters, symbols)
is dropped whole rather than mangled, since deleting 'NBA' from 'NBA球员' changes the meaning.
A sentence longer than :data:`MAX_SENTENCE_CHARS` is not a sentence of news text (a list, a
table, or a text without sentence ends) and is rejected before any costly step reads it
(:func:`length_problem`), so no input line can stall a worker. Everything here is a pure
function of its input, linear in its length.
"""

from __future__ import annotations

import re
import unicodedata

TERMINATORS = "。？！?!"
CLOSERS = "”’」』）)》〉】\"'"
PAIRS = {"“": "”", "‘": "’", "「": "」", "『": "』", "（": "）", "(": ")", "《": "》", "【": "】"}
CLOSING = {v: k for k, v in PAIRS.items()}

#: the longest sentence a candidate may be, in characters after cleaning. The sentences of the
#: bundled People's Daily sample and of the gold file run to 594 characters (99th percentile
#: 150); the segmenter and the name taggers cost more per character on longer input.
MAX_SENTENCE_CHARS = 1000

_SPLIT = re.compile(f"[^{TERMINATORS}]*(?:[{TERMINATORS}]+[{re.escape(CLOSERS)}]*|$)")
_SPACE = re.compile(r"[\s\u3000\u00a0\ufeff\u200b]+")
# CJK ideographs, digits (ASCII and full-width), CJK and general punctuation, full-width
# punctuation (not full-width letters), ASCII punctuation, the middle dot and ℃-like signs
_ALLOWED = re.compile(
    r"^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff0-9\uff10-\uff19"
    r"\u3000-\u303f\u2010-\u206f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
    r"!-/:-@\[-`{-~·×÷℃°]+$"
)
_HAS_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def split_sentences(text: str) -> list[str]:
    """Cut at terminators, keeping trailing closers (。” stays with its sentence)."""
    pieces = [p for p in _SPLIT.findall(text) if p]
    return pieces


def repair_quotes(sentence: str) -> tuple[str, int, bool]:
    """Balance paired quotes/brackets; return (text, repairs made, still_unbalanced).

    An opener never closed gets its closer appended (after the terminator: the quotation went on
    past the cut), unless it is the last character (then it is deleted). A closer with no opener
    gets an opener prepended (the quotation began before the cut), unless it is the first
    character (then it is deleted — it belonged to the previous sentence).
    """
    # drop dangling edges first (one slice each: a run of them costs its length, not its square)
    start, end = 0, len(sentence)
    while start < end and sentence[start] in CLOSING:
        start += 1
    while end > start and sentence[end - 1] in PAIRS:
        end -= 1
    repairs = start + len(sentence) - end
    sentence = sentence[start:end]
    stack: list[str] = []
    unopened: list[str] = []
    for ch in sentence:
        if ch in PAIRS:
            stack.append(ch)
        elif ch in CLOSING:
            if stack and stack[-1] == CLOSING[ch]:
                stack.pop()
            elif CLOSING[ch] in stack:  # crossed nesting: cannot be repaired safely
                return sentence, repairs, True
            else:
                unopened.append(ch)
    if unopened:
        sentence = "".join(CLOSING[c] for c in reversed(unopened)) + sentence
        repairs += len(unopened)
    if stack:
        sentence = sentence + "".join(PAIRS[c] for c in reversed(stack))
        repairs += len(stack)
    return sentence, repairs, False


def character_problem(sentence: str) -> str | None:
    """``no_chinese``, ``non_chinese_characters`` or None: only CJK characters, digits and
    punctuation (any Unicode ``P*`` character, and a few signs: ∶ ℃ ● …) may remain."""
    if not _HAS_CJK.search(sentence):
        return "no_chinese"
    if _ALLOWED.match(sentence):
        return None
    for ch in sentence:
        if _ALLOWED.match(ch) or ch in _SIGNS or unicodedata.category(ch).startswith("P"):
            continue
        return "non_chinese_characters"
    return None


_SIGNS = frozenset("∶％℃°×÷～~●○■□▲△◆◇★☆→※")


def clean(piece: str) -> str:
    return _SPACE.sub("", piece)


def length_problem(sentence: str, limit: int = MAX_SENTENCE_CHARS) -> str | None:
    """Why ``sentence`` is too long to be a candidate (no sentence end for ``limit``
    characters), or None."""
    if len(sentence) <= limit:
        return None
    return (
        f"{len(sentence):,} characters between sentence ends (。？！; at most {limit:,}): "
        "a list, a table or text without punctuation, not a sentence"
    )


def sentence_problem(sentence: str, broken_quotes: bool) -> str | None:
    """Why a cleaned, quote-repaired sentence cannot be used, or None: ``unbalanced_quotes``,
    ``no_terminator`` (a headline or a cut-off line, not a sentence), or a
    :func:`character_problem`."""
    if broken_quotes:
        return "unbalanced_quotes"
    if not any(ch in TERMINATORS for ch in sentence[-3:]):
        return "no_terminator"
    return character_problem(sentence)
