"""What the three ``transformers`` adapters share: options, batching, the cheap vocabulary head.

Speed: batches are sorted by length with dynamic padding under a token budget, everything runs
under ``torch.inference_mode``, and the vocabulary projection is applied only where a
probability is read. That shortcut (base model + output head instead of the full forward) is
checked once against the model's own logits on a probe text and abandoned if they disagree.

Next-sentence prediction is shared too: each adapter says how a sentence pair becomes one vector
(``_pair_representation``, French paper footnote 7); ``pair_features`` reads it from the frozen
model, ``finetune_nsp`` trains a copy of the model with StereoSet's NSP head on top.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from biasforge.errors import BiasforgeError
from scoring.interface import Capability, LanguageModel, NSPTraining

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


NSP_FINETUNE = (
    "a copy of the model fine-tuned with StereoSet's NSP head (3 linear layers) on the corpus"
)


class TransformersLM(LanguageModel):
    """A ``transformers`` model and tokenizer on a device, with the shared batching helpers."""

    capabilities: ClassVar[Mapping[Capability, str]] = {Capability.FINETUNE_NSP: NSP_FINETUNE}

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

    # -- next-sentence prediction --------------------------------------------------------------
    def _pair_representation(
        self, model: Any, pairs: Sequence[tuple[str, str]], max_length: int
    ) -> torch.Tensor:
        """One vector per (first, second) pair from ``model`` (this adapter's model or a copy)."""
        raise NotImplementedError

    def pair_features(self, pairs: Sequence[tuple[str, str]]) -> torch.Tensor:
        import torch

        with torch.inference_mode():
            return self._pair_representation(self.model, pairs, self.max_length).float().cpu()

    def finetune_nsp(
        self, pairs: Sequence[tuple[str, str, int]], training: NSPTraining
    ) -> Callable[[Sequence[tuple[str, str]]], list[float]]:
        """StereoSet's ``nsp_prediction/main.py`` on a float32 copy: AdamW with one learning
        rate for the model and one for the head, cosine schedule with warm-up, gradients
        clipped at 1.0, one pass over ``pairs`` in batches (see ``NSPTraining``)."""
        import copy

        import torch

        torch.manual_seed(training.seed)
        core = copy.deepcopy(self.model).float().train()
        head = _stereoset_head(int(self._pair_width()), training.seed).to(self.device)
        optimiser, scheduler = _nsp_optimiser(core, head, training)
        limit = min(training.max_length, self.max_length)
        for start in self._steps(len(pairs), training.batch_size):
            batch = pairs[start : start + training.batch_size]
            labels = torch.tensor([label for _, _, label in batch], device=self.device)
            hidden = self._pair_representation(core, [(a, b) for a, b, _ in batch], limit)
            loss = torch.nn.functional.cross_entropy(head(hidden.float()), labels)
            loss.backward()
            params = [*core.parameters(), *head.parameters()]
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimiser.step()
            scheduler.step()
            optimiser.zero_grad()
        core.eval()
        head.eval()
        return lambda scored: self._nsp_scores(core, head, scored, limit)

    def _pair_width(self) -> int:
        """Size of the pair representation (read once on a probe pair)."""
        return int(self.pair_features([(_PROBE, _PROBE)]).shape[1])

    def _steps(self, total: int, batch_size: int) -> Iterable[int]:
        starts = range(0, total, batch_size)
        if not self.options.progress:
            return starts
        from tqdm.auto import tqdm

        return tqdm(starts, desc=f"{self.name} NSP fine-tuning", unit="step", leave=False)

    def _nsp_scores(
        self, core: Any, head: Any, pairs: Sequence[tuple[str, str]], limit: int
    ) -> list[float]:
        """P(is next) (label 0, as BERT) from the fine-tuned copy, 64 pairs at a time."""
        import torch

        scores: list[float] = []
        with torch.inference_mode():
            for i in range(0, len(pairs), 64):
                hidden = self._pair_representation(core, pairs[i : i + 64], limit)
                scores += torch.softmax(head(hidden.float()), dim=-1)[:, 0].cpu().tolist()
        return scores


def _stereoset_head(width: int, seed: int, inner: int = 300) -> torch.nn.Module:
    """``ModelNSP.nsp_head`` of StereoSet's ``code/models/models.py``: three linear layers."""
    import torch

    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(width, inner), torch.nn.Linear(inner, inner), torch.nn.Linear(inner, 2)
    )


def _nsp_optimiser(core: Any, head: Any, training: NSPTraining) -> tuple[Any, Any]:
    """AdamW with the model's and the head's learning rates, and the cosine schedule; the
    warm-up is capped at a tenth of the steps so a short run still reaches its rate."""
    import torch
    from transformers import get_cosine_with_hard_restarts_schedule_with_warmup

    optimiser = torch.optim.AdamW(
        [
            {"params": core.parameters(), "lr": training.core_lr},
            {"params": head.parameters(), "lr": training.head_lr},
        ],
        weight_decay=training.weight_decay,
    )
    warmup = min(training.warmup, training.steps // 10)
    scheduler = get_cosine_with_hard_restarts_schedule_with_warmup(
        optimiser, num_warmup_steps=warmup, num_training_steps=max(1, training.steps)
    )
    return optimiser, scheduler
