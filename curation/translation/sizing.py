"""Keep every request under the translator's size limit (DeepL: 128 KiB of request body).

Sizes are counted as the client sends them: JSON with non-ASCII characters escaped
(``requests`` encodes ``json=`` with ``ensure_ascii``), so "é" costs 6 bytes, not 1. A text
that does not fit in one request is cut at sentence ends — never inside an XML element, so a
tagged attribute or slot stays whole — and its pieces are translated separately and joined
with the whitespace that separated them. A text with one sentence over the limit cannot be
cut that way: :func:`split_text` says so (None) and the caller refuses it with the reason.
The ``context`` given with texts only guides the translation, so an oversize one is cut down
to its last sentences (:func:`fit_context`) instead of being refused.
"""

from __future__ import annotations

import json
import re

#: whitespace after the end of a sentence: where a long text may be cut
_SENTENCE_GAP = re.compile(r"(?<=[.!?…。！？])\s+")
#: an XML element with its content (the tags biasforge sends hold a few words)
_ELEMENT = re.compile(r"<([\w-]+)[^>]*>.*?</\1\s*>", re.S)


#: a JSON string's quotes and the ", " that separates it from the next
_FRAME = 4


def json_bytes(text: str) -> int:
    """Bytes ``text`` takes in a JSON request body, with its quotes and a separator.

    Each character is escaped on its own, so the size of a concatenation is the sum of the
    sizes less one frame: the loops below add sizes instead of re-encoding growing texts.
    """
    return len(json.dumps(text)) - 2 + _FRAME


def _sentences(text: str, xml: bool) -> tuple[list[str], list[str]]:
    """``text`` cut at every sentence gap outside XML elements: sentences and the gaps."""
    inside = [m.span() for m in _ELEMENT.finditer(text)] if xml else []
    sentences, gaps, start = [], [], 0
    for gap in _SENTENCE_GAP.finditer(text):
        if any(a < gap.start() < b for a, b in inside):
            continue
        sentences.append(text[start : gap.start()])
        gaps.append(gap.group(0))
        start = gap.end()
    sentences.append(text[start:])
    return sentences, gaps


def split_text(text: str, budget: int, *, xml: bool = False) -> tuple[list[str], list[str]] | None:
    """Pieces of ``text`` of at most ``budget`` JSON bytes each, and the whitespace between
    consecutive pieces (``len(gaps) == len(pieces) - 1``); None when a sentence alone is over
    ``budget``. A text that fits is one piece."""
    if json_bytes(text) <= budget:
        return [text], []
    sentences, gaps = _sentences(text, xml)
    pieces, joins, sizes = [sentences[0]], [], [json_bytes(sentences[0])]
    for sentence, gap in zip(sentences[1:], gaps, strict=True):
        size = json_bytes(gap + sentence) - _FRAME
        if sizes[-1] + size <= budget:
            pieces[-1] += gap + sentence
            sizes[-1] += size
        else:
            pieces.append(sentence)
            joins.append(gap)
            sizes.append(json_bytes(sentence))
    if max(sizes) > budget:
        return None
    return pieces, joins


def join_pieces(pieces: list[str], gaps: list[str]) -> str:
    """The inverse of :func:`split_text` on translated pieces."""
    out = pieces[0]
    for gap, piece in zip(gaps, pieces[1:], strict=True):
        out += gap + piece
    return out


def fit_context(context: str, budget: int) -> str:
    """``context`` if it fits in ``budget`` bytes, else its last sentences that do (or, when
    even the last sentence is too long, its last characters): the part nearest the text."""
    if json_bytes(context) <= budget:
        return context
    sentences, gaps = _sentences(context, xml=False)
    start, size = len(sentences) - 1, json_bytes(sentences[-1])
    while start > 0:
        more = json_bytes(sentences[start - 1] + gaps[start - 1]) - _FRAME
        if size + more > budget:
            break
        start, size = start - 1, size + more
    if size <= budget:
        return join_pieces(sentences[start:], gaps[start:])
    tail, size = [], _FRAME  # the last sentence alone is too long: its last characters
    for char in reversed(context):
        size += json_bytes(char) - _FRAME
        if size > budget:
            break
        tail.append(char)
    return "".join(reversed(tail))
