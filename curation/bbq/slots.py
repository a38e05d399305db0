"""Filling a BBQ template's slots, as the authors' ``utils.py`` does.

``{{NAME1}}``/``{{NAME2}}`` take the two group words, ``{{WORD1}}``/``{{WORD2}}`` a word drawn
from the template's lexical-diversity list; then the authors' three English repairs ("lesbian
man", "Latino woman", "a" before a vowel). Mirrored exactly because the published instances
were made by it, and a generation that differs in one character would not equal them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_VOWEL_START = re.compile("^[aeiou]")
_A_BEFORE_VOWEL = re.compile(r"(\s[aA])(\s[aAeEiIoOuU])")


def _segment_words(segment: str, n: str) -> list[str]:
    for prefix in (f"WORD{n}:", f"{{{{WORD{n}}}}}:", f"NAME{n}:", f"{{{{NAME{n}}}}}:"):
        segment = segment.replace(prefix, "")
    words = segment.strip().replace("[", "").replace("]", "")
    return [w.strip() for w in words.split(",")]


def word_lists(text: str) -> tuple[list[str], list[str] | str]:
    """The two lists of ``WORD1: [a, b]; WORD2: [c, d]`` (or ``NAME1``/``NAME2``).

    As the authors' ``return_list_from_string``: the second list is kept only when the last
    segment names slot 2, otherwise it is the empty string.
    """
    first: list[str] = []
    second: list[str] | str = ""
    for segment in text.split(";"):
        if "WORD1" in segment or "NAME1" in segment:
            first = _segment_words(segment, "1")
        # (sic) a later segment without slot 2 empties the list again
        second = _segment_words(segment, "2") if "WORD2" in segment or "NAME2" in segment else ""
    return first, second


@dataclass(frozen=True)
class Slots:
    """What one instance fills a template's slots with: the two group words, the template's
    lexical-diversity list (the ``WORD`` slots are filled only when it has words), the two
    words drawn from it, and the intersectional templates' gender or SES words."""

    word1: str
    word2: str
    lex_div: str
    rand1: str
    rand2: str
    gs1: str | None = None
    gs2: str | None = None

    def __post_init__(self) -> None:
        if (self.gs1 is None) != (self.gs2 is None):
            raise ValueError("an intersectional template's two gender/SES words come together")


def fill(text: str, slots: Slots, english: bool = True) -> str:
    """One template field with its slots filled (the authors' ``do_slotting`` for one column);
    the authors' English repairs only where the template is the English one."""
    s = slots
    text = text.replace("{{NAME1}}", s.word1).replace("{{NAME2}}", s.word2)
    if s.gs1 is not None:
        for slot in ("GEN", "OCC"):
            text = text.replace(f"{{{{{slot}1}}}}", s.gs1).replace(f"{{{{{slot}2}}}}", s.gs2 or "")
    if len(s.lex_div) > 1:
        text = text.replace("{{WORD1}}", s.rand1).replace("{{WORD2}}", s.rand2)
    if not english:
        return text
    if "lesbian man" in text:
        text = text.replace("lesbian man", "lesbian woman")
    if "Latino woman" in text:
        text = text.replace("Latino woman", "Latina woman")
    # str(None) is "none": it never starts with a vowel, as in the authors' test
    if any(_VOWEL_START.search(str(w).lower()) for w in (s.word1, s.word2, s.gs1, s.gs2)):
        text = _A_BEFORE_VOWEL.sub(r"\1n\2", text)
        text = text.replace(" an European", " a European")
    return text


def fill_row(row: dict, slots: Slots, english: bool = True) -> dict:
    """Every text field of a template row filled; other values (the template id) kept."""
    return {
        key: fill(value, slots, english) if isinstance(value, str) else value
        for key, value in row.items()
    }
