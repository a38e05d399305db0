"""Slots read with a masked LM, built from ``masked_logprobs`` alone: the pieces several
families' procedures share (SlguSet's keyword, BEC-Pro's person word, StereoSet's attribute).

A task renders the text with the model's mask token where a word is hidden, tokenises it with
the model's tokenizer (``lm.tokenize``), finds the mask tokens, and asks for the
log-probabilities of the word's sub-tokens there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from biasforge.errors import BiasforgeError
from biasforge.scoring.interface import MaskedModel, MaskedRead, Slot


def word_ids(
    encode: Callable[[str], list[int]], text: str, start: int, end: int, word: str
) -> list[int]:
    """Token ids of ``word`` as it would read in place of ``text[start:end]``.

    Sub-word tokenizers with a space marker (BPE, SentencePiece) tokenise a word differently
    after a space, so the ids are taken as the difference between the tokenised prefix with and
    without the word; when that is not a clean extension, the word is tokenised on its own.
    """
    prefix = text[:start]
    before = encode(prefix) if prefix else []
    after = encode(prefix + word)
    if after[: len(before)] == before and len(after) > len(before):
        return after[len(before) :]
    return encode(word)


def render(text: str, spans: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each (start, end, replacement) applied; spans must not overlap."""
    pieces, cursor = [], 0
    for start, end, replacement in sorted(spans):
        if start < cursor or end < start or end > len(text):
            raise ValueError(f"bad or overlapping span {start}:{end} in {text!r}")
        pieces += [text[cursor:start], replacement]
        cursor = end
    return "".join([*pieces, text[cursor:]])


def mask_positions(lm: MaskedModel, ids: Sequence[int], wanted: int, text: str) -> list[int]:
    """Positions of the mask tokens in ``ids``; one clear error if fewer than ``wanted``."""
    positions = [i for i, x in enumerate(ids) if x == lm.mask_id]
    if len(positions) < wanted:
        raise BiasforgeError(
            f"{lm.name}: expected {wanted} mask token(s) in {text!r}, found {len(positions)}"
            " (text truncated or mask split by the tokenizer)"
        )
    return positions


def reads(lm: MaskedModel, texts: Sequence[str], targets: Sequence[list[int | None]]):
    """One ``MaskedRead`` per masked text: the k-th mask read for ``targets[k]`` (None: a mask
    that is hidden but not read)."""
    out = []
    for text, ids, wanted in zip(texts, lm.tokenize(texts), targets, strict=True):
        positions = mask_positions(lm, ids, len(wanted), text)
        pairs = tuple((positions[k], t) for k, t in enumerate(wanted) if t is not None)
        out.append(MaskedRead(tuple(ids), pairs))
    return out


def joint_variant(
    lm: MaskedModel, slot: Slot, filler: str, masked: Sequence[tuple[int, int]] = ()
) -> tuple[str, list[int | None]]:
    """The text with one mask per sub-token of ``filler`` (as it tokenises in place) in every
    occurrence of the slot, read at the first; each span of ``masked`` hidden too, unread, by
    one mask per sub-token of its own text."""
    text = slot.text
    ids = word_ids(lm.encode, text, *slot.spans[0], filler)
    spans: list[tuple[int, int, list[int | None]]] = [(*slot.spans[0], list(ids))]
    spans += [(s, e, [None] * len(ids)) for s, e in slot.spans[1:]]
    for s, e in masked:
        spans.append((s, e, [None] * len(word_ids(lm.encode, text, s, e, text[s:e]))))
    spans.sort(key=lambda span: span[0])
    rendered = render(text, [(s, e, lm.mask_token * len(t)) for s, e, t in spans])
    return rendered, [t for _, _, targets in spans for t in targets]


def joint_logprobs(
    lm: MaskedModel, requests: Sequence[tuple[Slot, str, Sequence[tuple[int, int]]]]
) -> list[float]:
    """Per (slot, filler, masked spans): log P(filler in the slot), every sub-token of the
    filler masked at once and the log-probabilities summed (SlguSet, BEC-Pro)."""
    variants = [joint_variant(lm, slot, filler, masked) for slot, filler, masked in requests]
    asked = reads(lm, [text for text, _ in variants], [targets for _, targets in variants])
    return [float(sum(values)) for values in lm.masked_logprobs(asked)]
