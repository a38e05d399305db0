"""Decoder-only models: token log-probabilities of running text, from the model's start token.

Models whose tokenizer adds BOS (Gemma, Llama) read ``BOS + context + continuation``.
GPT-2-style models read ``context + continuation`` as the official StereoSet code does; with an
empty context the first token's probability is P(token | start token) from one separate forward
of the start token, exactly as ``eval_generative_models.py``.

log P(token p | tokens < p) depends only on the prefix up to p, so each distinct prefix goes
through the vocabulary head once (StereoSet's three sentences share their start).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from biasforge.errors import BiasforgeError
from scoring.adapters.base import ModelOptions, TransformersLM, pad
from scoring.interface import Capability, FilledSentence

if TYPE_CHECKING:
    import torch

BOS_ADAPTATION = (
    "token probabilities after BOS — causal adaptation of the official procedure: the "
    "tokenizer starts every text with BOS, so every token is read with BOS before it (the "
    "official GPT-2 code conditions only the first token on the start token)"
)
_MEMO_LIMIT = 2_000_000  # prefixes remembered before the memo is cleared (memory bound)


class CausalLM(TransformersLM):
    """Decoder-only models: sentences and continuations scored token by token."""

    kind = "causal"
    capabilities: ClassVar[Mapping[Capability, str]] = {
        **TransformersLM.capabilities,
        Capability.SCORE_SENTENCE: "token probabilities, the first given the start token "
        "(official StereoSet)",
        Capability.SCORE_CONTINUATION: "token probabilities of the continuation after the context",
    }

    def __init__(
        self, name: str, model: Any, tokenizer: Any, options: ModelOptions, path: str = ""
    ) -> None:
        super().__init__(name, model, tokenizer, options, path)
        bos, eos = tokenizer.bos_token_id, tokenizer.eos_token_id
        self.start_id: int | None = int(bos) if bos is not None else _maybe_int(eos)
        ids = tokenizer("a")["input_ids"]
        # whether the tokenizer itself starts every text with BOS (Gemma, Llama) or not (GPT-2)
        self.adds_bos = bos is not None and len(ids) > 0 and ids[0] == bos
        if self.adds_bos:  # the adaptation is named wherever the method is reported
            self.capabilities = {**self.capabilities, Capability.SCORE_SENTENCE: BOS_ADAPTATION}

    def _output_head(self) -> Callable | None:
        head = self.model.get_output_embeddings()
        cap = getattr(self.model.config, "final_logit_softcapping", None)
        if head is None or not cap:
            return head
        import torch

        return lambda h: torch.tanh(head(h) / cap) * cap

    def _start(self) -> int:
        if self.start_id is None:
            raise BiasforgeError(
                f"{self.name}: tokenizer has neither a BOS nor an EOS token to start from"
            )
        return self.start_id

    @cached_property
    def _start_logprobs(self) -> torch.Tensor:
        """log P(first token | start token) (the official ``initial_token_probabilities``)."""
        import torch

        with torch.inference_mode():
            ids = torch.tensor([[self._start()]], device=self.device)
            logits = self.model(input_ids=ids).logits[0, -1].float()
        return torch.log_softmax(logits, dim=-1).cpu()

    # -- requests --------------------------------------------------------------------------------
    def sentence_logprobs(self, requests: Sequence[FilledSentence]) -> list[np.ndarray]:
        """The sentence alone from the start token: a left-to-right model cannot see the
        template's right side, so the template is not read (official StereoSet)."""
        return self._token_logprobs([("", r.sentence) for r in requests])

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """The continuation read as running text after the context, one space between."""
        return self._token_logprobs([(context, " " + text) for context, text in pairs])

    # -- token log-probabilities -----------------------------------------------------------------
    def _token_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """Per (context, continuation), log P of each continuation token given what precedes."""
        plans = self._plans(pairs)
        needed: dict[tuple[int, ...], int] = {}  # per distinct sequence: final positions read
        for seq, n, _ in plans:
            if n > 0:
                needed[seq] = max(needed.get(seq, 0), n)
        results = self._read_positions(needed)
        out = []
        for seq, n, from_start in plans:
            values = results[seq][needed[seq] - n :] if n > 0 else np.zeros(0)
            if from_start:
                values = np.concatenate([[float(self._start_logprobs[seq[0]])], values])
            out.append(values)
        return out

    def _plans(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[tuple[int, ...], int, bool]]:
        """Per pair: the token sequence, how many final positions are read from it, and
        whether the first continuation token is read from the start token instead."""
        cache: dict[str, list[int]] = {}

        def enc(text: str) -> list[int]:
            if text not in cache:
                cache[text] = self.encode(text) if text else []
            return cache[text]

        plans = []
        for context, continuation in pairs:
            cont = enc(continuation)
            if not cont:
                plans.append(((), 0, False))
                continue
            if self.adds_bos:
                seq, from_start = [self._start(), *enc(context), *cont], False
            else:
                seq, from_start = [*enc(context), *cont], not enc(context)
            seq = seq[-self.max_length :]
            plans.append((tuple(seq), min(len(cont) - from_start, len(seq) - 1), from_start))
        return plans

    def _read_positions(self, needed: dict[tuple[int, ...], int]) -> dict[tuple, np.ndarray]:
        """Per sequence, log P of its last ``needed[seq]`` tokens, each distinct prefix once."""
        import torch

        rows_list = list(needed)
        memo: dict[tuple, float] = {}
        results: dict[tuple, np.ndarray] = {}
        with torch.inference_mode():
            for batch in self.batches([len(r) for r in rows_list], "tokens"):
                ids, att = pad([rows_list[u] for u in batch], self.pad_id)
                keys = self._new_prefixes(
                    [(rows_list[u], needed[rows_list[u]]) for u in batch], memo
                )
                if keys:
                    memo.update(self._prefix_logprobs(ids, att, keys))
                for u in batch:
                    row = rows_list[u]
                    results[row] = np.array(
                        [memo[row[: p + 1]] for p in range(len(row) - needed[row], len(row))]
                    )
                if len(memo) > _MEMO_LIMIT:
                    memo.clear()
        return results

    @staticmethod
    def _new_prefixes(
        rows: list[tuple[tuple[int, ...], int]], memo: dict[tuple, float]
    ) -> list[tuple[int, tuple]]:
        """(batch row, prefix) for each prefix of the batch not computed yet, first row wins."""
        keys, seen = [], set()
        for r, (row, n) in enumerate(rows):
            for p in range(len(row) - n, len(row)):
                key = row[: p + 1]
                if key not in memo and key not in seen:
                    seen.add(key)
                    keys.append((r, key))
        return keys

    def _prefix_logprobs(
        self, ids: torch.Tensor, att: torch.Tensor, keys: list[tuple[int, tuple]]
    ) -> dict[tuple, float]:
        """log P(last token of each prefix | the tokens before it), read in this batch."""
        import torch

        rows = torch.tensor([r for r, _ in keys], device=self.device)
        cols = torch.tensor([len(key) - 2 for _, key in keys], device=self.device)
        targets = torch.tensor([key[-1] for _, key in keys], device=self.device)
        picked = self.logprobs_at(
            ids.to(self.device), att.to(self.device), rows, cols, targets=targets
        )
        return dict(zip([key for _, key in keys], picked.cpu().double().tolist(), strict=True))

    # -- next-sentence prediction ----------------------------------------------------------------
    def _pair_representation(
        self, model: Any, pairs: Sequence[tuple[str, str]], max_length: int
    ) -> torch.Tensor:
        """Mean of the final hidden states over the pair read as one text (French paper, fn. 7)."""
        prefix = [self._start()] if self.adds_bos else []
        rows = [[*prefix, *self.encode(f"{a} {b}")][:max_length] for a, b in pairs]
        ids, att = pad(rows, self.pad_id)
        ids, att = ids.to(self.device), att.to(self.device)
        hidden = model.base_model(input_ids=ids, attention_mask=att)[0]
        weights = att.unsqueeze(-1).to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1)


def _maybe_int(value: Any) -> int | None:
    return None if value is None else int(value)
