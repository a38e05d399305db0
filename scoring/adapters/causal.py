"""Decoder-only models: token log-probabilities of running text, from the model's start token.

Models whose tokenizer adds BOS (Gemma, Llama) read ``BOS + context + continuation``.
GPT-2-style models read ``context + continuation``; a continuation with an empty context is
read after the start token in one pass (lm-evaluation-harness's ``loglikelihood``). A whole
sentence (``sentence_logprobs``) is read as the official StereoSet generative code reads it:
the first token's probability is P(token | start token) from one separate forward of the start
token, the others given the sentence's own tokens (``eval_generative_models.py``).

log P(token p | tokens < p) depends only on the prefix up to p, so each distinct prefix goes
through the vocabulary head once (StereoSet's three sentences share their start).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from biasforge.errors import BiasforgeError
from biasforge.scoring.adapters.base import ModelOptions, TransformersLM, pad
from biasforge.scoring.adapters.generation import GENERATES, Generating
from biasforge.scoring.interface import Capability, FilledSentence
from biasforge.unspaced import joins_without_space

if TYPE_CHECKING:
    import torch

BOS_ADAPTATION = (
    "token probabilities after BOS — causal adaptation of the official procedure: the "
    "tokenizer starts every text with BOS, so every token is read with BOS before it (the "
    "official GPT-2 code conditions only the first token on the start token)"
)
_MEMO_LIMIT = 2_000_000  # prefixes remembered before the memo is cleared (memory bound)


class CausalLM(Generating, TransformersLM):
    """Decoder-only models: sentences and continuations scored token by token."""

    kind = "causal"
    capabilities: ClassVar[Mapping[Capability, str]] = {
        **TransformersLM.capabilities,
        Capability.SCORE_SENTENCE: "token probabilities, the first given the start token "
        "(official StereoSet)",
        Capability.SCORE_CONTINUATION: "token probabilities of the continuation after the "
        "context (an empty context: after the start token, in one pass)",
        **GENERATES,
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
    def _start_logprobs(self) -> np.ndarray:
        """log P(first token | start token) (the official ``initial_token_probabilities``)."""
        import torch

        with torch.inference_mode():
            ids = torch.tensor([[self._start()]], device=self.device)
            logits = self.model(input_ids=ids).logits[0, -1].float()
        return torch.log_softmax(logits, dim=-1).double().cpu().numpy()

    # -- requests --------------------------------------------------------------------------------
    def sentence_logprobs(self, requests: Sequence[FilledSentence]) -> list[np.ndarray]:
        """The sentence alone from the start token: a left-to-right model cannot see the
        template's right side, so the template is not read (official StereoSet)."""
        return self._token_logprobs([("", r.sentence) for r in requests])

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """The continuation read as running text after the context, one space between
        (lm-evaluation-harness), none where both sides are of a script written without spaces
        (Chinese, Japanese: a space there is text the writer never wrote); after the start
        token when the context is empty."""
        return self._token_logprobs(
            [(context, _after(context, text)) for context, text in pairs], start_context=True
        )

    # -- token log-probabilities -----------------------------------------------------------------
    def _token_logprobs(
        self, pairs: Sequence[tuple[str, str]], start_context: bool = False
    ) -> list[np.ndarray]:
        """Per (context, continuation), log P of each continuation token given what precedes;
        an empty context is the start token with ``start_context``, else the first token is
        read from a separate forward of the start token (see the module docstring)."""
        plans = self._plans(pairs, start_context)
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

    def _plans(
        self, pairs: Sequence[tuple[str, str]], start_context: bool
    ) -> list[tuple[tuple[int, ...], int, bool]]:
        """Per pair: the token sequence, how many final positions are read from it, and
        whether the first continuation token is read from the start token instead."""
        distinct = list(dict.fromkeys(t for pair in pairs for t in pair if t))
        encoded = (
            self.tokenizer(distinct, add_special_tokens=False)["input_ids"] if distinct else []
        )
        cache: dict[str, list[int]] = dict(zip(distinct, encoded, strict=True))

        def enc(text: str) -> list[int]:
            return cache[text] if text else []

        plans = []
        for context, continuation in pairs:
            cont = enc(continuation)
            if not cont:
                plans.append(((), 0, False))
                continue
            if self.adds_bos or (start_context and not context):
                seq, from_start = [self._start(), *enc(context), *cont], False
            else:
                seq, from_start = [*enc(context), *cont], not enc(context)
            seq = seq[-self.max_length :]
            plans.append((tuple(seq), min(len(cont) - from_start, len(seq) - 1), from_start))
        return plans

    def _read_positions(self, needed: dict[tuple[int, ...], int]) -> dict[tuple, np.ndarray]:
        """Per sequence, log P of its last ``needed[seq]`` tokens, each distinct prefix once.

        Values stay on the device until every batch has run: the memo maps a prefix to its
        place in the results, and one copy to the host ends the call."""
        import torch

        rows_list = list(needed)
        memo: dict[tuple, int] = {}  # prefix -> index into the concatenated results
        places: dict[tuple, np.ndarray] = {}
        parts, count = [], 0
        with torch.inference_mode():
            for batch in self.batches([len(r) for r in rows_list], "tokens"):
                keys = self._new_prefixes(
                    [(rows_list[u], needed[rows_list[u]]) for u in batch], memo
                )
                if keys:
                    ids, att = self.batch_inputs([rows_list[u] for u in batch], self.pad_id)
                    parts.append(self._prefix_logprobs(ids, att, keys))
                    for j, (_, key) in enumerate(keys):
                        memo[key] = count + j
                    count += len(keys)
                for u in batch:
                    row = rows_list[u]
                    places[row] = np.fromiter(
                        (memo[row[: p + 1]] for p in range(len(row) - needed[row], len(row))),
                        dtype=np.int64,
                    )
                if len(memo) > _MEMO_LIMIT:
                    memo.clear()
            flat = torch.cat(parts).double().cpu().numpy() if parts else np.zeros(0)
        return {row: flat[where] for row, where in places.items()}

    @staticmethod
    def _new_prefixes(
        rows: list[tuple[tuple[int, ...], int]], memo: Mapping[tuple, Any]
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
        self, ids: torch.Tensor, att: torch.Tensor | None, keys: list[tuple[int, tuple]]
    ) -> torch.Tensor:
        """log P(last token of each prefix | the tokens before it), on the device."""

        rows = self.index([r for r, _ in keys])
        cols = self.index([len(key) - 2 for _, key in keys])
        targets = self.index([key[-1] for _, key in keys])
        return self.logprobs_at(ids, att, rows, cols, targets=targets)

    # -- next-sentence prediction ----------------------------------------------------------------
    def _pair_representation(
        self, model: Any, pairs: Sequence[tuple[str, str]], max_length: int
    ) -> torch.Tensor:
        """Mean of the final hidden states over the pair read as one text (French paper, fn. 7)."""
        prefix = [self._start()] if self.adds_bos else []
        rows = [[*prefix, *self.encode(f"{a} {b}")][:max_length] for a, b in pairs]
        ids, att = pad(rows, self.pad_id)
        ids, att = self.to_device(ids), self.to_device(att)
        hidden = model.base_model(input_ids=ids, attention_mask=att)[0]
        weights = att.unsqueeze(-1).to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1)


def _maybe_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _after(context: str, text: str) -> str:
    """``text`` as it follows ``context`` in running text (see ``continuation_logprobs``)."""
    if not context or joins_without_space(context, text):
        return text
    return f" {text}"
