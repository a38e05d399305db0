"""Masked LMs (BERT-style): log-probabilities read at the model's mask tokens.

The one question a masked model answers beyond the shared ones is ``masked_logprobs``: given
token sequences in which a task has put mask tokens, the log-probability of chosen tokens at
chosen positions. Identical sequences are computed once (StereoSet's three sentences share
their first masked variant), every read at one position costs one vocabulary projection, and
batches are sorted by length under the token budget.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from biasforge.errors import BiasforgeError
from biasforge.scoring.adapters.base import ModelOptions, TransformersLM, pad, torch_dtype
from biasforge.scoring.interface import Capability, MaskedRead

if TYPE_CHECKING:
    import torch

# one distinct input: its ids and its attention override (None: the unpadded tokens)
_Input = tuple[tuple[int, ...], tuple[int, ...] | None]


class MaskedLM(TransformersLM):
    """BERT-style models: probabilities at mask tokens; NSP head when the checkpoint has one."""

    kind = "masked"
    capabilities: ClassVar[Mapping[Capability, str]] = {
        **TransformersLM.capabilities,
        Capability.READ_MASKED: "probabilities read at the model's mask token(s)",
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

    def masked_logprobs(self, requests: Sequence[MaskedRead]) -> list[tuple[float, ...]]:
        inputs: list[_Input] = list(dict.fromkeys((r.ids, r.attention) for r in requests))
        index = {key: u for u, key in enumerate(inputs)}
        needs: list[dict[int, set[int]]] = [{} for _ in inputs]  # position -> tokens read
        for request in requests:
            wanted = needs[index[(request.ids, request.attention)]]
            for position, token in request.reads:
                wanted.setdefault(int(position), set()).add(int(token))
        values = self._read(inputs, needs)
        return [
            tuple(values[(index[(r.ids, r.attention)], int(p), int(t))] for p, t in r.reads)
            for r in requests
        ]

    def _read(
        self, inputs: list[_Input], needs: list[dict[int, set[int]]]
    ) -> dict[tuple[int, int, int], float]:
        """(input index, position, token id) -> log-probability, in length-sorted batches;
        per batch every read is gathered on the device, one copy to the host at the end."""
        import torch

        order: list[tuple[int, int, int]] = []
        parts = []
        with torch.inference_mode():
            for batch in self.batches([len(ids) for ids, _ in inputs], "masks"):
                ids, att = self._batch([inputs[u] for u in batch])
                rows, cols, target_rows, targets = [], [], [], []
                for r, u in enumerate(batch):
                    for position, tokens in needs[u].items():
                        for t in sorted(tokens):
                            target_rows.append(len(rows))
                            targets.append(t)
                            order.append((u, position, t))
                        rows.append(r)
                        cols.append(position)
                parts.append(
                    self.logprobs_at(
                        ids,
                        att,
                        self.index(rows),
                        self.index(cols),
                        targets=self.index(targets),
                        target_rows=np.array(target_rows, dtype=np.int64),
                    )
                )
            flat = torch.cat(parts).double().cpu().tolist() if parts else []
        return dict(zip(order, flat, strict=True))

    def _batch(self, inputs: list[_Input]) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Padded ids on the device and the attention mask: the requests' own where given."""
        import torch

        rows = [ids for ids, _ in inputs]
        if all(attention is None for _, attention in inputs):
            return self.batch_inputs(rows, self.pad_id)
        ids, mask = pad(rows, self.pad_id)
        for r, (_, attention) in enumerate(inputs):
            if attention is not None:
                mask[r, : len(attention)] = torch.as_tensor(attention, dtype=mask.dtype)
        return self.to_device(ids), self.to_device(mask)

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
