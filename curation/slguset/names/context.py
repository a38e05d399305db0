"""What kind of word stands next to a candidate name: title, speech verb, middle dot …

Pure functions of a token (or its word) and the :class:`NameWords` sets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from biasforge.curation.slguset.names.tokens import Token
from biasforge.curation.slguset.names.words import NameWords

CJK = re.compile(r"^[\u3400-\u9fff·]+$")
DIGIT = re.compile(r"^[0-9０-９.．%％]+$")
PUNCT = frozenset("，。、；：？！“”‘’（）《》「」『』—…·,.;:?!()\"' ")

TAG_GROUPS = ("nr", "nrt", "nrfg", "ns", "n", "nz", "oov", "v", "other")
NEXT_KINDS = ("title", "speech", "dot", "punct", "digit", "after_surname", "other", "end")
PREV_KINDS = ("title", "dot", "old_young", "punct", "digit", "other", "start")


def is_person_word(word: str, words: NameWords) -> bool:
    """A title or role, alone or at the end of a longer word (银行行长, 财政部长, 本报记者)."""
    persons = words.persons
    if word in persons:
        return True
    return (
        3 <= len(word) <= 6
        and (word[-2:] in persons or word[-3:] in persons)
        and CJK.match(word) is not None
    )


def next_kind(word: str | None, words: NameWords) -> str:
    """One of :data:`NEXT_KINDS` for the word after a candidate (None: sentence end)."""
    if word is None:
        return "end"
    if is_person_word(word, words):
        return "title"
    if word in words.speech:
        return "speech"
    if word == "·":
        return "dot"
    if word in PUNCT:
        return "punct"
    if DIGIT.match(word):
        return "digit"
    if word in words.after_surname:
        return "after_surname"
    return "other"


def prev_kind(word: str | None, words: NameWords) -> str:
    """One of :data:`PREV_KINDS` for the word before a candidate (None: sentence start)."""
    if word is None:
        return "start"
    if is_person_word(word, words):
        return "title"
    if word == "·":
        return "dot"
    if word in words.old_young:
        return "old_young"
    if word in PUNCT:
        return "punct"
    if DIGIT.match(word):
        return "digit"
    return "other"


def tag_group(tag: str) -> str:
    """jieba's tag folded into one of :data:`TAG_GROUPS`."""
    if tag in TAG_GROUPS:
        return tag
    if tag.startswith("nr"):
        return "nr"
    if tag.startswith("v"):
        return "v"
    return "other"


def place_or_org_word(tok: Token, words: NameWords) -> bool:
    """Whether ``tok`` is a word that follows a place or organisation name (县, 公司, 服装厂,
    太空中心, 指数): a candidate right before it is part of that name, not a person."""
    word = tok.word
    if len(word) == 1:
        return word in words.admin_suffix
    if word in words.persons or tok.tag.startswith("v") or not CJK.match(word):
        return False
    return (
        word[-1] in words.org_suffix
        or word[-1] in words.admin_suffix
        or any(word.endswith(w) for w in words.org_words)
    )


def inside_title(tokens: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` sits inside 《…》 (a title of a work, not a person)."""
    for k in range(i - 1, max(-1, i - 12), -1):
        if tokens[k].word == "》":
            return False
        if tokens[k].word == "《":
            return True
    return False
