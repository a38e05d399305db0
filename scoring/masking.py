"""Render masked variants of an item with a model's own mask token, from character spans.

Items store spans, never masked strings (DESIGN.md); each span becomes as many mask tokens as
the model's tokenizer needs for the word it covers, rendered with ``biasforge.spans.mask_spans``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from biasforge.spans import mask_spans
from scoring.models import LanguageModel


def word_ids(
    lm: LanguageModel, text: str, start: int, end: int, word: str | None = None
) -> list[int]:
    """Token ids of ``word`` (default ``text[start:end]``) as it reads at ``start`` in ``text``.

    Sub-word tokenizers with a space marker (BPE, SentencePiece) tokenise a word differently
    after a space, so the ids are taken as the difference between the tokenised prefix with and
    without the word; when that is not a clean extension, the word is tokenised on its own.
    """
    word = text[start:end] if word is None else word
    prefix = text[:start]
    before = lm.encode(prefix) if prefix else []
    after = lm.encode(prefix + word)
    if after[: len(before)] == before and len(after) > len(before):
        return after[len(before) :]
    return lm.encode(word)


def render(text: str, spans: Sequence[tuple[Mapping[str, int], int]], mask: str) -> str:
    """Replace each (span, n) by ``n`` mask tokens; spans are applied right to left."""
    out = text
    for span, n in sorted(spans, key=lambda item: -int(item[0]["start"])):
        out = mask_spans(out, [span], mask * n)
    return out


def fill(text: str, start: int, end: int, word: str) -> str:
    """``text`` with ``text[start:end]`` replaced by ``word``."""
    return text[:start] + word + text[end:]
