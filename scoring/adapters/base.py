"""What the three ``transformers`` adapters share: options, batching, the cheap vocabulary head.

Speed: batches are sorted by length with dynamic padding under a token budget, everything runs
under ``torch.inference_mode``, and the vocabulary projection is applied only where a
probability is read. That shortcut (base model + output head instead of the full forward) is
checked once against the model's own logits on a probe text and abandoned if they disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from biasforge.errors import BiasforgeError
from scoring.interface import LanguageModel

if TYPE_CHECKING:
    import torch

_PROBE = "The cat sat on the mat, and the dog was asleep."


@dataclass(frozen=True)
class ModelOptions:
    """How to load and run a model (``kind`` ``auto`` detects it from the checkpoint)."""

    kind: str = "auto"
    device: str = "cpu"
    dtype: str = "float32"
    batch_tokens: int = 4096
    max_batch: int = 256
    progress: bool = True


def torch_dtype(name: str) -> torch.dtype:
    """The torch dtype for an option value, with a clear error for unknown names."""
    import torch

    table = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if name not in table:
        raise BiasforgeError(f"unknown dtype {name!r}; choose one of {', '.join(table)}")
    return table[name]


def length_batches(
    lengths: Sequence[int], batch_tokens: int, max_batch: int
) -> Iterator[list[int]]:
    """Indices grouped into batches, longest first, each padded size within ``batch_tokens``."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batch: list[int] = []
    for index in order:
        width = lengths[batch[0]] if batch else lengths[index]
        if batch and ((len(batch) + 1) * width > batch_tokens or len(batch) >= max_batch):
            yield batch
            batch = []
        batch.append(index)
    if batch:
        yield batch


def pad(rows: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded ids and the attention mask of ``rows``."""
    import torch

    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(list(row), dtype=torch.long)
        mask[i, : len(row)] = 1
    return ids, mask


def max_positions(config: Any) -> int:
    """The longest input the model's position embeddings allow (text config for multimodal)."""
    for attr in ("max_position_embeddings", "n_positions", "max_seq_len"):
        value = getattr(config, attr, None)
        if isinstance(value, int) and value > 0:
            return value
    text = getattr(config, "text_config", None)
    return max_positions(text) if text is not None else 1 << 16


class TransformersLM(LanguageModel):
    """A ``transformers`` model and tokenizer on a device, with the shared batching helpers."""

    def __init__(
        self, name: str, model: Any, tokenizer: Any, options: ModelOptions, path: str = ""
    ) -> None:
        import torch

        super().__init__(name)
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.options = options
        self.path = path  # where the checkpoint came from (the NSP head is loaded from it)
        self.device = torch.device(options.device)
        self.max_length = int(
            min(getattr(tokenizer, "model_max_length", 512) or 512, max_positions(model.config))
        )
        self.pad_id = next(
            int(c) for c in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0) if c is not None
        )

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` without special tokens."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.model.parameters())

    def close(self) -> None:
        import gc

        del self.model
        self.__dict__.pop("_nsp_model", None)
        gc.collect()

    def batches(self, lengths: Sequence[int], what: str) -> Iterable[list[int]]:
        """Length-sorted batches under the token budget, with a progress bar if enabled."""
        batches = list(length_batches(lengths, self.options.batch_tokens, self.options.max_batch))
        if not self.options.progress:
            return batches
        from tqdm.auto import tqdm

        return tqdm(batches, desc=f"{self.name} {what}", unit="batch", leave=False)

    # -- the cheap vocabulary head -------------------------------------------------------------
    def _output_head(self) -> Callable | None:
        """The module mapping final hidden states to logits, if the adapter knows it."""
        return None

    @cached_property
    def _verified_head(self) -> Callable | None:
        """``_output_head`` if it reproduces the model's own logits on a probe text, else None."""
        import torch

        head = self._output_head()
        if head is None:
            return None
        ids = self.tokenizer(_PROBE, truncation=True, max_length=self.max_length)["input_ids"]
        ids = torch.tensor([ids], device=self.device)
        try:
            with torch.inference_mode():
                mine = head(self.model.base_model(input_ids=ids)[0]).float()
                reference = self.model(input_ids=ids).logits.float()
        except Exception:
            return None
        same = mine.shape == reference.shape and torch.allclose(
            mine, reference, atol=1e-3, rtol=1e-3
        )
        return head if same else None

    def logprobs_at(
        self,
        ids: torch.Tensor,
        mask: torch.Tensor,
        rows: torch.Tensor,
        cols: torch.Tensor,
        extra: dict | None = None,
        targets: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Log-softmax (float32) at (rows, cols), through the cheap head when it is verified.

        With ``targets`` (one token id per position) only those log-probabilities are returned,
        so a 262k-token vocabulary never materialises for more than a chunk of positions.
        """
        import torch

        extra = extra or {}
        head = self._verified_head
        if head is None:
            logits = self.model(input_ids=ids, attention_mask=mask, **extra).logits
            logp = torch.log_softmax(logits[rows, cols].float(), dim=-1)
            return logp if targets is None else logp.gather(1, targets[:, None])[:, 0]
        hidden = self.model.base_model(input_ids=ids, attention_mask=mask, **extra)[0]
        picked = hidden[rows, cols]
        chunks = []
        for i in range(0, picked.shape[0], 256):
            logp = torch.log_softmax(head(picked[i : i + 256]).float(), dim=-1)
            if targets is not None:
                logp = logp.gather(1, targets[i : i + 256, None])[:, 0]
            chunks.append(logp)
        return torch.cat(chunks) if chunks else picked.new_zeros((0,)).float()
