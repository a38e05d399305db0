"""jieba tokens with tags and dictionary frequencies, from a tokenizer each caller owns.

Two token sources, same :class:`Token`: ``fast`` uses jieba's segmentation (HMM on; run by
jieba-next, see :func:`_build`) plus the dictionary's tag of each word (about 15x faster than
POS tagging), ``posseg`` uses ``jieba.posseg`` with HMM (the paper's tool). A :class:`Tokenizer` builds its private jieba
tokenizer on first use (never touching jieba's global one) and pickles without it, so a
datatrove task or a worker process rebuilds its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

MODES = ("fast", "posseg")
EXTRA_WORD_FREQ = 2000  # frequency given to extra words so that segmentation keeps them whole


class Token(NamedTuple):
    """A jieba token (a NamedTuple: millions are made, a dataclass would be slower)."""

    word: str
    tag: str  # jieba tag; "oov" for a word the dictionary does not know
    start: int
    freq: int  # jieba dictionary frequency, 0 when unknown


class Tokenizer:
    """A private jieba tokenizer + POS tagger and its word-frequency table.

    ``extra_words`` (e.g. the non-gender words of the lexicon) are added to this tokenizer's
    dictionary so that segmentation keeps them whole; they also raise their frequency in
    :attr:`freq`, which the name features read.
    """

    def __init__(self, extra_words: Sequence[str] = ()) -> None:
        self.extra_words = tuple(extra_words)
        self._jieba: tuple[Any, Any] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"extra_words": self.extra_words, "_jieba": None}

    def _tools(self) -> tuple[Any, Any]:
        if self._jieba is None:
            self._jieba = _build(self.extra_words)
        return self._jieba

    @property
    def freq(self) -> dict[str, int]:
        """Word → dictionary frequency of this tokenizer."""
        return self._tools()[0].FREQ

    @property
    def word_tags(self) -> dict[str, str]:
        """Word → POS tag of jieba's dictionary (read only)."""
        return self._tools()[1].word_tag_tab

    def tokens(self, sentence: str, mode: str = "fast") -> list[Token]:
        """Tokens with tags: ``fast`` = segmentation + dictionary tag; ``posseg`` = jieba POS."""
        tokenizer, tagger = self._tools()
        if mode == "posseg":
            pairs = [(p.word, p.flag) for p in tagger.cut(sentence, HMM=True)]
        elif mode == "fast":
            tags = tagger.word_tag_tab
            pairs = [(w, tags.get(w, "oov")) for w in tokenizer.cut(sentence, HMM=True)]
        else:
            raise ValueError(f"unknown tagger {mode!r}: choose fast or posseg")
        freq = tokenizer.FREQ
        out: list[Token] = []
        pos = 0
        for word, tag in pairs:
            out.append(Token(word, tag, pos, freq.get(word, 0)))
            pos += len(word)
        return out


def _build(extra_words: tuple[str, ...]) -> tuple[Any, Any]:
    """jieba-next's tokenizer (jieba's dictionary and algorithms, the prefix dictionary and
    the segmentation in Rust: the same tokens as jieba 0.42.1 at about three times its speed,
    checked by ``tests/slguset/test_tokens.py`` on real news) and jieba's own POS
    tagger over it, with jieba's word-tag table."""
    import logging

    import jieba
    import jieba.posseg
    import jieba_next

    jieba.setLogLevel(logging.WARNING)
    jieba_next.set_log_level(logging.WARNING)
    tokenizer = jieba_next.Tokenizer()
    tokenizer.initialize()
    for word in extra_words:
        if tokenizer.FREQ.get(word, 0) < EXTRA_WORD_FREQ:
            tokenizer.add_word(word, freq=EXTRA_WORD_FREQ)
    # share the module tagger's word-tag table (read only) instead of parsing dict.txt again
    tagger = jieba.posseg.POSTokenizer.__new__(jieba.posseg.POSTokenizer)
    tagger.tokenizer = tokenizer
    tagger.word_tag_tab = jieba.posseg.dt.word_tag_tab
    return tokenizer, tagger
