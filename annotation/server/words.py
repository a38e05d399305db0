"""Words as Argilla's Elasticsearch index sees them, and how the search index stores them.

Argilla maps every text field with Elasticsearch's ``standard`` analyzer: the text is cut at
the Unicode word boundaries of UAX #29 (``l'ingénieur``, ``don't``, ``3.14`` and ``foo_bar``
stay one word; ``e-mail`` is two), lower-cased, accents kept. The ``regex`` package draws the
same boundaries (its ``WORD`` flag implements UAX #29), so a word here is a word there.

Chinese, Japanese and Korean text is the exception (``CJK``): the standard analyzer cuts
Chinese into single characters, so Elasticsearch matches ``母亲`` wherever both characters
occur, adjacent or not. biasforge keeps matching such a term as a substring instead (the
characters adjacent, in that order), through the trigram and gram indexes of ``sql_index``;
words written in these scripts are therefore left out of the word index.

The word index (``bf_words``, FTS5 with the ``ascii`` tokenizer) stores each word as one
token: ASCII letters and digits as they are, non-ASCII characters as they are (the ``ascii``
tokenizer takes them as token characters), every other ASCII character (``'`` ``.`` ``_`` …)
and ``x`` itself as ``x`` + two hex digits, so FTS5 never splits a word, a prefix of a word is a
prefix of its token, and tokens starting ``xq`` (``q`` is no hex digit) are free for markers.
"""

from __future__ import annotations

import regex

#: scripts matched as substrings (see the module docstring)
CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]")
_BOUNDARY = regex.compile(r"(?wV1)\b")
_HAS_WORD = regex.compile(r"[\p{L}\p{N}]")
_PLAIN = frozenset("abcdefghijklmnopqrstuvwyz0123456789")  # ASCII kept as is (not "x")

#: marker token of the row holding all the fields of a record
ALL_FIELDS = "xqall"
#: marker token between two fields inside that row (no phrase runs across it)
FIELD_BREAK = "xqbreak"
#: a token no row holds (a fuzzy term with no word near it)
NOTHING = "xqnone"


def words(text: str) -> list[str]:
    """The lower-cased words of ``text`` (UAX #29), CJK words included."""
    return [part for part in _BOUNDARY.split(text.lower()) if _HAS_WORD.search(part)]


def is_cjk(text: str) -> bool:
    return CJK.search(text) is not None


def encode(word: str) -> str:
    """The FTS5 token of a word (or of the start of one)."""
    return "".join(c if c in _PLAIN or ord(c) > 127 else f"x{ord(c):02x}" for c in word)


def field_marker(name: str) -> str:
    """Marker token of the row of one field (``xqf`` + the name's UTF-8 in hex)."""
    return "xqf" + name.encode("utf-8").hex()


def row_tokens(texts: list[str], markers: list[str]) -> tuple[str, list[str]]:
    """The ``bf_words`` text of one row (the markers, then the words of each text, a break
    between texts) and the row's distinct non-CJK words (for the vocabulary)."""
    tokens = list(markers)
    seen: set[str] = set()
    for i, text in enumerate(texts):
        if i:
            tokens.append(FIELD_BREAK)
        for word in words(text):
            if not is_cjk(word):
                tokens.append(encode(word))
                seen.add(word)
    return " ".join(tokens), sorted(seen)
