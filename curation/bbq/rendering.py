"""How BBQ's instances are written in another language: the translated templates and words.

The templates and the vocabulary are translated, not the instances (as KoBBQ, MBBQ and the
other adaptations did): the generator makes exactly the draws it makes in English — same
fillings, same "unknown" wording drawn, same answer order — and writes each instance from the
template's translated fields and the fillers' translations. So each instance keeps its English
twin's label, ``answer_info`` tags and ``target_loc``, and only the words change.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from biasforge.curation.bbq.slots import Slots


@dataclass(frozen=True)
class Rendering:
    """Per template row (its ``index``), the translated text fields; per English filler (group
    word, lexical-diversity word, first name) and "unknown" wording, its translation."""

    texts: dict[int, dict[str, str]] = field(default_factory=dict)
    words: dict[str, str] = field(default_factory=dict)
    unknowns: dict[str, str] = field(default_factory=dict)

    def row(self, row: dict) -> dict:
        """The template ``row`` with its translated fields."""
        return {**row, **self.texts.get(row["index"], {})}

    def word(self, word: Any) -> Any:
        return self.words.get(word, word) if isinstance(word, str) else word

    def slots(self, slots: Slots) -> Slots:
        """The fillers of one instance, translated."""
        w = self.word
        return replace(
            slots, word1=w(slots.word1), word2=w(slots.word2), rand1=w(slots.rand1),
            rand2=w(slots.rand2),
        )  # fmt: skip

    def named(self, names: tuple) -> tuple:
        """The two (group word, tag) pairs ``answer_info`` records: the word translated, the tag
        (the authors' group label, which their analysis reads) kept."""
        return tuple((self.word(word), tag) for word, tag in names)

    def unknown(self, wording: str) -> str:
        return self.unknowns.get(wording, wording)


ENGLISH = Rendering()  # the authors' own words
