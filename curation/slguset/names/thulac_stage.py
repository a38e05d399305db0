"""THULAC as a slow second stage of the person-name filter (``--tagger thulac``).

THULAC (Tsinghua, ``pip install thulac``: pure Python, ships its model) tags person names
``np``. It is about two orders of magnitude slower than jieba, so it never sees the corpus:
the pipeline runs it only on the sentences that passed every other rule, the fast name model
included (:class:`biasforge.curation.slguset.filters.ThulacNameFilter`), and rejects those where it
finds a name. Its model loads on first use in each task and is never pickled.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

NAME_TAG = "np"


class LazyTagger:
    """A tagger built on first use in the process that uses it: the model is never pickled
    (datatrove ships steps to worker processes), only rebuilt there; ``_build`` makes it."""

    def __init__(self) -> None:
        self._model: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._model = None

    def load(self) -> None:
        self._tagger()

    def _tagger(self) -> Any:
        if self._model is None:
            self._model = self._build()
        return self._model

    def _build(self) -> Any:
        raise NotImplementedError


class ThulacNames(LazyTagger):
    """Person names (``np`` tokens) found by THULAC in a sentence, with their spans."""

    def _build(self) -> Any:
        import thulac

        with contextlib.redirect_stdout(io.StringIO()):  # it prints a banner
            return thulac.thulac()

    def tokens(self, sentence: str) -> list[tuple[str, str]]:
        return [(w, t) for w, t in self._tagger().cut(sentence) if w]

    def find_many(self, sentences: list[str]) -> list[list[tuple[str, int, int]]]:
        return [self.find(s) for s in sentences]

    def find(self, sentence: str) -> list[tuple[str, int, int]]:
        """(name, start, end) of every ``np`` token."""
        out, pos = [], 0
        for word, tag in self.tokens(sentence):
            if tag == NAME_TAG:
                out.append((word, pos, pos + len(word)))
            pos += len(word)
        return out
