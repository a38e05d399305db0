"""Encoder-decoder models: log-probabilities of a decoder target given an encoder source.

A sentence that fills a template's slot is the target, the template with its slot replaced by
the model's slot token the source. The slot token is the mask token (BART), else the first
sentinel (T5's ``<extra_id_0>``), else the literal ``BLANK``. A continuation is the target
and its context the source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from biasforge.scoring.adapters.base import ModelOptions, TransformersLM, log_softmax_chunk, pad
from biasforge.scoring.adapters.generation import GENERATES, Generating
from biasforge.scoring.interface import Capability, FilledSentence

if TYPE_CHECKING:
    import torch


def slot_token(tokenizer: Any) -> str:
    """The token an encoder-decoder was pre-trained to fill (see the module docstring)."""
    if tokenizer.mask_token:
        return str(tokenizer.mask_token)
    if "<extra_id_0>" in tokenizer.get_vocab():
        return "<extra_id_0>"
    return "BLANK"


class Seq2SeqLM(Generating, TransformersLM):
    """Encoder-decoder models: sentences and continuations scored on the decoder side."""

    kind = "seq2seq"
    capabilities: ClassVar[Mapping[Capability, str]] = {
        **TransformersLM.capabilities,
        Capability.SCORE_SENTENCE: "decoder token probabilities given the masked template",
        Capability.SCORE_CONTINUATION: "decoder token probabilities given the context",
        **GENERATES,
    }
    decoder_only = False

    def __init__(
        self, name: str, model: Any, tokenizer: Any, options: ModelOptions, path: str = ""
    ) -> None:
        super().__init__(name, model, tokenizer, options, path)
        self.slot_token = slot_token(tokenizer)
        start = model.config.decoder_start_token_id
        self.decoder_start_id = int(start) if start is not None else self.pad_id

    def sentence_logprobs(self, requests: Sequence[FilledSentence]) -> list[np.ndarray]:
        return self._target_logprobs(
            [(r.template.filled(self.slot_token), r.sentence) for r in requests]
        )

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        return self._target_logprobs(pairs)

    def _target_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """Per (source, target), log P of each target token (teacher forcing)."""
        import torch

        tok, limit = self.tokenizer, self.max_length
        # an empty source (a continuation without context) is the decoder's start token alone
        sources = [
            tok(s, truncation=True, max_length=limit)["input_ids"] or [self.decoder_start_id]
            for s, _ in pairs
        ]
        targets = [
            tok(text_target=t, truncation=True, max_length=limit)["input_ids"] for _, t in pairs
        ]
        out: list[np.ndarray] = [np.zeros(0)] * len(pairs)
        lengths = [len(s) + len(t) for s, t in zip(sources, targets, strict=True)]
        order: list[int] = []
        parts = []
        with torch.inference_mode():
            for batch in self.batches(lengths, "targets"):
                src, src_att = pad([sources[i] for i in batch], self.pad_id)
                dec, dec_att = pad(
                    [[self.decoder_start_id, *targets[i][:-1]] for i in batch], self.pad_id
                )
                gold = pad([targets[i] for i in batch], self.pad_id)[0]
                logits = self.model(
                    input_ids=self.to_device(src),
                    attention_mask=self.to_device(src_att),
                    decoder_input_ids=self.to_device(dec),
                    decoder_attention_mask=self.to_device(dec_att),
                ).logits
                # log-softmax a few rows at a time: batch x length x vocab never in float32
                step = max(1, log_softmax_chunk(logits.shape[-1] * logits.shape[1]))
                gold = self.to_device(gold)
                for i in range(0, logits.shape[0], step):
                    logp = torch.log_softmax(logits[i : i + step].float(), dim=-1)
                    parts.append(logp.gather(2, gold[i : i + step, :, None])[..., 0])
                order += batch
            flat = [p.double().cpu().numpy() for p in parts]
        rows = (row for part in flat for row in part)
        for i, row in zip(order, rows, strict=True):
            out[i] = row[: len(targets[i])]
        return out

    def _pair_representation(
        self, model: Any, pairs: Sequence[tuple[str, str]], max_length: int
    ) -> torch.Tensor:
        """Mean of the encoder's final hidden states over the pair read as one text."""
        enc = self.tokenizer(
            [f"{a} {b}" for a, b in pairs],
            truncation=True,
            max_length=max_length,
            padding=True,
            return_tensors="pt",
        ).to(self.device)
        hidden = model.get_encoder()(
            input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]
        )[0]
        weights = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1)
