"""Character spans and masking, shared by every stage that renders masked text.

Items store spans, not masked strings: each consumer renders the mask it needs (``[MASK]`` for
the BEC-Pro TSV, ``<mask>`` or a tokenizer's own token at scoring time).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

Span = Mapping[str, int]


def mask_spans(text: str, spans: Iterable[Span], mask: str) -> str:
    """Replace each span of ``text`` by ``mask``; spans must not overlap."""
    ordered = sorted(spans, key=lambda span: span["start"])
    pieces, cursor = [], 0
    for span in ordered:
        start, end = int(span["start"]), int(span["end"])
        if start < cursor or end < start or end > len(text):
            raise ValueError(f"bad or overlapping span {start}:{end} in {text!r}")
        pieces.append(text[cursor:start])
        pieces.append(mask)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)
