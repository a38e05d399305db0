"""Masked LMs (BERT-style): slots are filled by reading probabilities at the model's mask token.

A ``SlotFill`` becomes one or more *masked variants* (text with mask tokens, the token id to
read at each mask); identical variants are computed once (StereoSet's three sentences share
their first one), so the official one-sentence-per-forward numbers come out of few batches.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from biasforge.errors import BiasforgeError
from biasforge.scoring.adapters.base import ModelOptions, TransformersLM, pad, torch_dtype
from biasforge.scoring.interface import Capability, MaskedPair, MinimalPair, SlotFill, SlotRule

if TYPE_CHECKING:
    import torch

# a masked input and, per mask token in it, the token id to read there (None: masked, unread)
Variant = tuple[str, list[int | None]]


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


class MaskedLM(TransformersLM):
    """BERT-style models: probabilities at mask tokens; NSP head when the checkpoint has one."""

    kind = "masked"
    capabilities: ClassVar[Mapping[Capability, str]] = {
        **TransformersLM.capabilities,
        Capability.FILL_SLOT: "probabilities read at the model's mask token(s) in the slot",
        Capability.READ_MASKED_PAIR: "Bartl et al.'s reading: one mask per hidden span, inputs "
        "cut or padded to a fixed width with the mask token (attended), the sentence's token "
        "read at the prior's first mask",
        Capability.SCORE_PAIR: "CrowS-Pairs' metric.py: the tokens the two sentences share, "
        "masked one at a time, log-probabilities summed (first and last shared tokens skipped)",
    }

    def __init__(
        self, name: str, model: Any, tokenizer: Any, options: ModelOptions, path: str = ""
    ) -> None:
        super().__init__(name, model, tokenizer, options, path)
        if tokenizer.mask_token is None or tokenizer.mask_token_id is None:
            raise BiasforgeError(f"{name}: a masked LM whose tokenizer has no mask token")
        self.mask_token = str(tokenizer.mask_token)
        self.mask_id = int(tokenizer.mask_token_id)

    def _output_head(self) -> Callable | None:
        base = self.model.base_model
        others = [m for _, m in self.model.named_children() if m is not base]
        return others[0] if len(others) == 1 else None

    def _encode_many(self, texts: Sequence[str]) -> dict[str, list[int]]:
        """Token ids (no special tokens) of each distinct text, in one batched call."""
        distinct = list(dict.fromkeys(texts))
        if not distinct:
            return {}
        ids = self.tokenizer(distinct, add_special_tokens=False)["input_ids"]
        return dict(zip(distinct, (list(x) for x in ids), strict=True))

    # -- SlotFill -> masked variants -> log-probabilities --------------------------------------
    def slot_logprobs(self, requests: Sequence[SlotFill]) -> list[tuple[float, ...]]:
        stereoset = [f for r in requests if r.rule is SlotRule.STEREOSET for f in r.fillers]
        ids = self._encode_many(stereoset)
        plans = [[self._variants(r, filler, ids) for filler in r.fillers] for r in requests]
        values = iter(self._mask_logprobs([v for per in plans for plan in per for v in plan]))
        out = []
        for request, per in zip(requests, plans, strict=True):
            read = [[next(values) for _ in plan] for plan in per]
            out.append(tuple(_combine(request.rule, r) for r in read))
        return out

    def _variants(
        self, request: SlotFill, filler: str, encoded: Mapping[str, list[int]]
    ) -> list[Variant]:
        if request.rule is SlotRule.STEREOSET:
            return self._incremental_variants(request, filler, encoded.get(filler))
        return [self._joint_variant(request, filler)]

    def _incremental_variants(
        self, request: SlotFill, filler: str, tokens: list[int] | None = None
    ) -> list[Variant]:
        """The official StereoSet ``IntrasentenceLoader``: for each sub-token i of the filler
        (tokenised on its own), the decoded sub-tokens before i and one mask fill every
        occurrence of the slot; P(sub-token i) is read at the first mask."""
        tokens = self.encode(filler) if tokens is None else tokens
        if not tokens:
            raise BiasforgeError(f"{self.name}: the filler {filler!r} has no tokens")
        slot = request.slot
        return [
            (
                slot.filled(f"{self.tokenizer.decode(tokens[:i]) if i else ''}{self.mask_token}"),
                [tokens[i]],
            )
            for i in range(len(tokens))
        ]

    def _joint_variant(self, request: SlotFill, filler: str) -> Variant:
        """One mask per sub-token of the filler (as it tokenises in place) in every occurrence
        of the slot, read at the first; each extra masked span gets one mask per sub-token."""
        slot, text = request.slot, request.slot.text
        ids = word_ids(self.encode, text, *slot.spans[0], filler)
        spans: list[tuple[int, int, list[int | None]]] = [(*slot.spans[0], list(ids))]
        spans += [(s, e, [None] * len(ids)) for s, e in slot.spans[1:]]
        for s, e in request.masked:
            spans.append((s, e, [None] * len(word_ids(self.encode, text, s, e, text[s:e]))))
        spans.sort(key=lambda span: span[0])
        masked = render(text, [(s, e, self.mask_token * len(t)) for s, e, t in spans])
        return masked, [t for _, _, targets in spans for t in targets]

    def _mask_logprobs(self, variants: Sequence[Variant]) -> list[list[float | None]]:
        """log P(target) at each mask of each variant; identical texts are computed once."""
        texts = list(dict.fromkeys(text for text, _ in variants))
        index = {text: u for u, text in enumerate(texts)}
        needs: list[dict[int, set[int]]] = [{} for _ in texts]
        wanted = [0] * len(texts)
        for text, targets in variants:
            u = index[text]
            wanted[u] = max(wanted[u], len(targets))
            for k, t in enumerate(targets):
                if t is not None:
                    needs[u].setdefault(k, set()).add(int(t))
        values = self._read_masks(texts, needs, wanted)
        return [
            [None if t is None else values[(index[text], k, int(t))] for k, t in enumerate(targets)]
            for text, targets in variants
        ]

    def _mask_positions(self, ids: Sequence[int], wanted: int, text: str) -> list[int]:
        positions = [i for i, x in enumerate(ids) if x == self.mask_id]
        if len(positions) < wanted:
            raise BiasforgeError(
                f"{self.name}: expected {wanted} mask token(s) in {text!r}, found {len(positions)}"
                " (text truncated or mask split by the tokenizer)"
            )
        return positions

    def _read_masks(
        self, texts: list[str], needs: list[dict[int, set[int]]], wanted: list[int]
    ) -> dict[tuple[int, int, int], float]:
        """(text index, mask index, token id) -> log-probability, in length-sorted batches.

        One batched tokenizer call; per batch, every (mask, token) read is gathered on the
        device; one copy to the host at the end."""
        import torch

        encoded = self.tokenizer(
            texts, add_special_tokens=True, truncation=True, max_length=self.max_length
        )
        ids_list, types_list = encoded["input_ids"], encoded.get("token_type_ids")
        positions = [
            self._mask_positions(ids, wanted[u], texts[u]) for u, ids in enumerate(ids_list)
        ]
        order: list[tuple[int, int, int]] = []
        parts = []
        with torch.inference_mode():
            for batch in self.batches([len(x) for x in ids_list], "masks"):
                ids, att = self.batch_inputs([ids_list[u] for u in batch], self.pad_id)
                extra = {}
                if types_list is not None:
                    types = pad([types_list[u] for u in batch], 0)[0]
                    extra["token_type_ids"] = self.to_device(types)
                rows, cols, target_rows, targets = [], [], [], []
                for r, u in enumerate(batch):
                    for k, tokens in needs[u].items():
                        for t in sorted(tokens):
                            target_rows.append(len(rows))
                            targets.append(t)
                            order.append((u, k, t))
                        rows.append(r)
                        cols.append(positions[u][k])
                parts.append(
                    self.logprobs_at(
                        ids,
                        att,
                        self.index(rows),
                        self.index(cols),
                        extra,
                        targets=self.index(targets),
                        target_rows=np.array(target_rows, dtype=np.int64),
                    )
                )
            flat = torch.cat(parts).double().cpu().tolist() if parts else []
        return dict(zip(order, flat, strict=True))

    # -- MaskedPair: Bartl et al.'s published reading -------------------------------------------
    def masked_pair_logprobs(self, requests: Sequence[MaskedPair]) -> list[tuple[float, float]]:
        """gender-bias-BERT ``model_evaluation`` (code/bias_utils/utils.py l.161-230): fixed-width
        inputs, the sentence's token read at the prior's first mask (see ``MaskedPair``)."""
        plans = [self._pair_plan(r) for r in requests]
        rows = list(dict.fromkeys(row for plan in plans for row in plan[:2]))
        index = {row: u for u, row in enumerate(rows)}
        wanted = [[] for _ in rows]  # per distinct input: (position, token) pairs to read
        for target, prior, position, token in plans:
            for row in (target, prior):
                wanted[index[row]].append((position, token))
        values = self._read_fixed(rows, wanted)
        return [
            (values[(index[t], pos, tok)], values[(index[p], pos, tok)]) for t, p, pos, tok in plans
        ]

    def _fixed_ids(self, text: str, width: int) -> tuple[int, ...]:
        """``input_pipeline`` (utils.py l.125-136): encoded with the special tokens, then keras
        ``pad_sequences(maxlen=width, value=mask id, truncating="post", padding="post")``."""
        ids = list(self.tokenizer(text, add_special_tokens=True)["input_ids"])[:width]
        return tuple(ids + [self.mask_id] * (width - len(ids)))

    def _pair_plan(self, request: MaskedPair) -> tuple[tuple, tuple, int, int]:
        """(target ids, prior ids, position, token): ``prob_with_prior`` (utils.py l.145-152)
        reads at the prior's first mask the sentence's own token there."""
        width = request.width
        sentence = self._fixed_ids(request.sentence, width)
        target = self._fixed_ids(request.target.filled(self.mask_token), width)
        prior = self._fixed_ids(request.prior.filled(self.mask_token), width)
        if self.mask_id not in prior:
            raise BiasforgeError(
                f"{self.name}: no mask token within {width} tokens of {request.prior.text!r}"
            )
        position = prior.index(self.mask_id)
        return target, prior, position, sentence[position]

    def _read_fixed(
        self, rows: list[tuple[int, ...]], wanted: list[list[tuple[int, int]]]
    ) -> dict[tuple[int, int, int], float]:
        """(row index, position, token) -> log P, every id but 0 attended (utils.py l.57-64)."""
        import torch

        order: list[tuple[int, int, int]] = []
        parts = []
        with torch.inference_mode():
            for batch in self.batches([len(r) for r in rows], "Bartl masks"):
                ids = self.index([rows[u] for u in batch])
                keys = [(r, u, pos, tok) for r, u in enumerate(batch) for pos, tok in wanted[u]]
                order += [(u, pos, tok) for _, u, pos, tok in keys]
                parts.append(
                    self.logprobs_at(
                        ids,
                        (ids > 0).long(),
                        self.index([k[0] for k in keys]),
                        self.index([k[2] for k in keys]),
                        targets=self.index([k[3] for k in keys]),
                    )
                )
            flat = torch.cat(parts).double().cpu().tolist() if parts else []
        return dict(zip(order, flat, strict=True))

    # -- next-sentence prediction ----------------------------------------------------------------
    def _pair_representation(
        self, model: Any, pairs: Sequence[tuple[str, str]], max_length: int
    ) -> torch.Tensor:
        """The first token's final hidden state of the encoded pair (BERT's [CLS], French paper
        footnote 7)."""
        enc = self.tokenizer(
            [a for a, _ in pairs],
            [b for _, b in pairs],
            truncation=True,
            max_length=max_length,
            padding=True,
            return_tensors="pt",
        ).to(self.device)
        return model.base_model(**enc)[0][:, 0]

    @cached_property
    def _nsp_model(self) -> Any | None:
        """The checkpoint loaded with its pre-trained NSP head, or None if it has none."""
        architectures = getattr(self.model.config, "architectures", None) or []
        if not any(
            a.endswith(("ForPreTraining", "ForNextSentencePrediction")) for a in architectures
        ):
            return None
        from transformers import AutoModelForNextSentencePrediction

        try:
            model = AutoModelForNextSentencePrediction.from_pretrained(
                self.path, dtype=torch_dtype(self.options.dtype)
            )
        except (ValueError, OSError):
            return None
        return model.to(self.device).eval()

    def native_nsp(self, pairs: Sequence[tuple[str, str]]) -> list[float] | None:
        import torch

        nsp = self._nsp_model
        if nsp is None:
            return None
        encoded = self.tokenizer(
            [a for a, _ in pairs],
            [b for _, b in pairs],
            truncation=True,
            max_length=self.max_length,
        )
        ids_list = encoded["input_ids"]
        types_list = encoded.get("token_type_ids") or [[0] * len(x) for x in ids_list]
        order: list[int] = []
        parts = []
        with torch.inference_mode():
            for batch in self.batches([len(x) for x in ids_list], "NSP"):
                ids, att = pad([ids_list[i] for i in batch], self.pad_id)
                types = pad([types_list[i] for i in batch], 0)[0]
                logits = nsp(
                    input_ids=self.to_device(ids),
                    attention_mask=self.to_device(att),
                    token_type_ids=self.to_device(types),
                ).logits
                parts.append(torch.softmax(logits.float(), dim=-1)[:, 0])
                order += batch
            flat = torch.cat(parts).double().cpu().tolist() if parts else []
        scores = [0.0] * len(pairs)
        for i, value in zip(order, flat, strict=True):
            scores[i] = float(value)
        return scores

    # -- MinimalPair: CrowS-Pairs' pseudo-log-likelihood ----------------------------------------
    def pair_logprobs(self, requests: Sequence[MinimalPair]) -> list[tuple[float, float]]:
        """CrowS-Pairs' ``metric.py`` (``mask_unigram``): the two sentences are tokenised with
        the special tokens, their shared tokens found by ``difflib`` on the token ids, and each
        shared token but the first and last (the special tokens) masked alone in its sentence;
        a sentence's score is the sum of those log-probabilities. Lower-casing is left to the
        tokenizer (metric.py lower-cases for uncased checkpoints, whose tokenizers do too)."""
        import torch

        variants: list[tuple[int, int, tuple[int, ...], int]] = []  # (request, side, ids, pos)
        for r, request in enumerate(requests):
            ids = [self._pair_ids(request.first), self._pair_ids(request.second)]
            shared = _shared_positions(ids[0], ids[1])
            for first, second in shared[1:-1]:
                variants += [(r, 0, ids[0], first), (r, 1, ids[1], second)]
        sums = np.zeros((len(requests), 2))
        lengths = [len(v[2]) for v in variants]
        with torch.inference_mode():
            for batch in self.batches(lengths, "pair masks"):
                rows = [list(variants[u][2]) for u in batch]
                targets = [row[variants[u][3]] for row, u in zip(rows, batch, strict=True)]
                for row, u in zip(rows, batch, strict=True):
                    row[variants[u][3]] = self.mask_id
                ids, att = pad(rows, self.pad_id)
                logp = self.logprobs_at(
                    ids.to(self.device),
                    att.to(self.device),
                    torch.arange(len(batch), device=self.device),
                    torch.tensor([variants[u][3] for u in batch], device=self.device),
                    None,
                    targets=torch.tensor(targets, device=self.device),
                ).cpu()
                for j, u in enumerate(batch):
                    sums[variants[u][0], variants[u][1]] += float(logp[j])
        return [(float(a), float(b)) for a, b in sums]

    def _pair_ids(self, text: str) -> tuple[int, ...]:
        encoded = self.tokenizer(
            text, add_special_tokens=True, truncation=True, max_length=self.max_length
        )
        return tuple(int(i) for i in encoded["input_ids"])


def _combine(rule: SlotRule, read: list[list[float | None]]) -> float:
    """One filler's log-probability from what its variants read (see ``SlotRule``)."""
    if rule is SlotRule.STEREOSET:
        return float(np.log(np.mean([np.exp(values[0]) for values in read])))
    return float(sum(v for v in read[0] if v is not None))


def _shared_positions(a: Sequence[int], b: Sequence[int]) -> list[tuple[int, int]]:
    """Positions of the tokens two sequences share, in order (metric.py's ``get_span``)."""
    import difflib

    matcher = difflib.SequenceMatcher(None, [str(x) for x in a], [str(x) for x in b])
    shared = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            shared += list(zip(range(i1, i2), range(j1, j2), strict=True))
    return shared
