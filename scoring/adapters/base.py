"""What the three ``transformers`` adapters share: options, batching, the cheap vocabulary head.

Speed: batches are sorted by length with dynamic padding under a token budget, everything runs
under ``torch.inference_mode``, and the vocabulary projection is applied only where a
probability is read. That shortcut (base model + output head instead of the full forward) is
checked once against the model's own logits on a probe text and abandoned if they disagree.

Text pairs are shared too: each adapter says how a pair becomes one vector
(``_pair_representation``, French paper footnote 7); ``pair_features`` reads it from the frozen
model, ``pair_encoder`` gives a trainable float32 copy that reads it (what a task trains a
next-sentence head on).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from biasforge.errors import BiasforgeError
from biasforge.scoring.interface import Capability, LanguageModel, PairEncoder, PairReader

if TYPE_CHECKING:
    import torch

_PROBE = "The cat sat on the mat, and the dog was asleep."


@dataclass(frozen=True)
class ModelOptions:
    """How to load and run a model (``kind`` ``auto`` detects it from the checkpoint)."""

    kind: str = "auto"
    device: str = "cpu"
    dtype: str = "float32"  # or "auto": bfloat16 on a GPU that supports it, else float32
    batch_tokens: int = 4096
    max_batch: int = 256
    progress: bool = True
    device_map: str | None = None  # accelerate's placement ("auto", "balanced", …) or None
    max_memory: tuple[tuple[str, str], ...] = ()  # (device, limit) pairs for ``device_map``


DTYPES = ("auto", "float32", "bfloat16", "float16")


def resolve_dtype(name: str, device: str) -> str:
    """``auto`` made concrete: bfloat16 on a CUDA device that supports it, else float32."""
    if name != "auto":
        torch_dtype(name)  # unknown names fail here
        return name
    import torch

    kind = torch.device(device).type
    if kind == "cuda" and torch.cuda.is_available() and torch.cuda.is_bf16_supported():
        return "bfloat16"
    return "float32"


def torch_dtype(name: str) -> torch.dtype:
    """The torch dtype for an option value, with a clear error for unknown names."""
    import torch

    table = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if name not in table:
        raise BiasforgeError(f"unknown dtype {name!r}; choose one of {', '.join(DTYPES)}")
    return table[name]


def parse_max_memory(text: str) -> tuple[tuple[str, str], ...]:
    """``"0=10GiB,cpu=30GiB"`` -> (("0", "10GiB"), ("cpu", "30GiB")) for ``--max-memory``."""
    pairs = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        device, sep, limit = part.partition("=")
        if not sep or not device.strip() or not limit.strip():
            raise BiasforgeError(f"--max-memory: {part!r} is not DEVICE=LIMIT (e.g. 0=10GiB)")
        pairs.append((device.strip(), limit.strip()))
    return tuple(pairs)


def max_memory_map(pairs: Sequence[tuple[str, str]]) -> dict[int | str, str] | None:
    """accelerate's ``max_memory`` dict (GPU indices as ints) from ``ModelOptions.max_memory``."""
    if not pairs:
        return None
    return {(int(d) if d.isdigit() else d): limit for d, limit in pairs}


def head_tolerance(dtype: torch.dtype) -> float:
    """Relative tolerance of the cheap head's self-check for weights of ``dtype``: 1e-3 in
    float32; a few units of the format's rounding step in bfloat16 / float16 (the same maths
    on differently shaped kernels rounds differently there)."""
    import torch

    return max(1e-3, 16 * torch.finfo(dtype).eps) if dtype.is_floating_point else 1e-3


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
    """Right-padded ids and the attention mask of ``rows`` (one vectorised scatter)."""
    import torch

    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    width = int(lengths.max()) if len(rows) else 0
    mask = np.arange(width)[None, :] < lengths[:, None]
    ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    if width:
        ids[mask] = np.fromiter(
            (x for r in rows for x in r), dtype=np.int64, count=int(lengths.sum())
        )
    return torch.from_numpy(ids), torch.from_numpy(mask.astype(np.int64))


def target_logprobs(logits: torch.Tensor, rows: torch.Tensor, targets: torch.Tensor):
    """``log_softmax(logits)[rows, targets]``, to float64 precision where the device has it.

    A float32 log-softmax rounds every value near log(vocabulary) (about 10) to its float32
    spacing, an error of ~6e-7 in each probability, which the official procedures (one
    softmax per sentence, probabilities averaged) do not make; here only the sum of
    exponentials is float32 (relative error ~1e-7), its log and the subtraction are float64.
    """
    import torch

    top = logits.max(dim=-1).values
    total = torch.exp(logits - top[:, None]).sum(dim=-1)
    wide = torch.float32 if logits.device.type == "mps" else torch.float64  # no float64 on MPS
    shifted = logits[rows, targets].to(wide) - top[rows].to(wide)
    return shifted - torch.log(total[rows].to(wide))


def log_softmax_chunk(vocab: int, budget: int = 1 << 24) -> int:
    """Positions per log-softmax chunk so one chunk holds at most ``budget`` float32 values
    (64 positions of Gemma's 262k vocabulary, 512 of BERT's 30k)."""
    return max(1, min(4096, budget // max(1, vocab)))


def max_positions(config: Any) -> int:
    """The longest input the model's position embeddings allow (text config for multimodal)."""
    for attr in ("max_position_embeddings", "n_positions", "max_seq_len"):
        value = getattr(config, attr, None)
        if isinstance(value, int) and value > 0:
            return value
    text = getattr(config, "text_config", None)
    return max_positions(text) if text is not None else 1 << 16


def input_device(model: Any, options: ModelOptions) -> torch.device:
    """Where inputs go: ``--device``, or with a ``device_map`` the input embeddings' device."""
    import torch

    if options.device_map and getattr(model, "hf_device_map", None):
        return model.get_input_embeddings().weight.device
    return torch.device(options.device)


PAIR_ENCODER = "a float32 copy of the model, each pair read as ``pair_features`` reads it"
PAIR_FEATURES = "the final hidden states of the encoded pair (first token, or their mean)"


class TransformersLM(LanguageModel, PairReader):
    """A ``transformers`` model and tokenizer on a device, with the shared batching helpers;
    it reads text pairs too (the optional next-sentence capability)."""

    capabilities: ClassVar[Mapping[Capability, str]] = {
        Capability.READ_PAIRS: PAIR_FEATURES,
        Capability.TRAIN_PAIR_ENCODER: PAIR_ENCODER,
    }

    def __init__(
        self, name: str, model: Any, tokenizer: Any, options: ModelOptions, path: str = ""
    ) -> None:

        super().__init__(name)
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.options = options
        self.path = path  # where the checkpoint came from (the NSP head is loaded from it)
        self.device = input_device(model, options)
        self.max_length = int(
            min(getattr(tokenizer, "model_max_length", 512) or 512, max_positions(model.config))
        )
        self.pad_id = next(
            int(c) for c in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0) if c is not None
        )

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` without special tokens."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def encode_many(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text without special tokens, in one batched call."""
        if not texts:
            return []
        encoded = self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]
        return [list(ids) for ids in encoded]

    def tokenize(self, texts: Sequence[str], truncate: bool = True) -> list[list[int]]:
        """Token ids of each text with the special tokens, in one batched call, cut at
        ``max_length`` unless ``truncate`` is off."""
        if not texts:
            return []
        limit = {"truncation": True, "max_length": self.max_length} if truncate else {}
        encoded = self.tokenizer(list(texts), add_special_tokens=True, **limit)
        return [list(ids) for ids in encoded["input_ids"]]

    def decode(self, ids: Sequence[int]) -> str:
        """The text of token ids, as the tokenizer decodes them."""
        return str(self.tokenizer.decode(list(ids)))

    def unknown_to_tokenizer(self, texts: Sequence[str]) -> list[bool]:
        """Per text, whether its tokens hold the tokenizer's unknown token (a byte-level
        tokenizer, which has none, represents every text)."""
        unknown = self.tokenizer.unk_token_id
        if unknown is None or not texts:
            return [False] * len(texts)
        return [unknown in ids for ids in self.encode_many(texts)]

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
        from biasforge.progress import progress_bar

        return progress_bar(batches, desc=f"{self.name} {what}", unit="batch", leave=False)

    # -- the cheap vocabulary head -------------------------------------------------------------
    def _output_head(self) -> Callable | None:
        """The module mapping final hidden states to logits, if the adapter knows it."""
        return None

    @cached_property
    def _verified_head(self) -> Callable | None:
        """``_output_head`` if it reproduces the model's own logits on a probe text, else None.

        The tolerance follows the weights' dtype (``head_tolerance``), relative to the logits'
        scale, so bfloat16 / float16 models keep the cheap head too."""
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
        if mine.shape != reference.shape:
            return None
        tol = head_tolerance(self.weight_dtype)
        scale = float(reference.abs().max()) or 1.0
        return head if bool(((mine - reference).abs() <= tol * scale).all()) else None

    @cached_property
    def weight_dtype(self) -> torch.dtype:
        """The dtype of the model's floating-point weights."""
        import torch

        for p in self.model.parameters():
            if p.is_floating_point():
                return p.dtype
        return torch.float32

    def to_device(self, tensor: torch.Tensor) -> torch.Tensor:
        """``tensor`` on the model's input device: pinned and copied without blocking on CUDA."""
        if self.device.type == "cuda":
            return tensor.pin_memory().to(self.device, non_blocking=True)
        return tensor.to(self.device)

    def index(self, values: Sequence[int]) -> torch.Tensor:
        """A long tensor of host integers on the device (empty lists stay integer)."""
        import torch

        return self.to_device(torch.from_numpy(np.asarray(values, dtype=np.int64)))

    def batch_inputs(
        self, rows: Sequence[Sequence[int]], pad_id: int
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Padded ids on the device, and the attention mask — None when no row is padded (the
        mask is decided on the host), so attention can take its unmasked fast kernels."""
        ids, mask = pad(rows, pad_id)
        uniform = len({len(r) for r in rows}) <= 1
        return self.to_device(ids), None if uniform else self.to_device(mask)

    @cached_property
    def _vocab_size(self) -> int:
        head = self.model.get_output_embeddings()
        weight = getattr(head, "weight", None)
        return int(weight.shape[0]) if weight is not None else len(self.tokenizer)

    def logprobs_at(
        self,
        ids: torch.Tensor,
        mask: torch.Tensor | None,
        rows: torch.Tensor,
        cols: torch.Tensor,
        extra: dict | None = None,
        targets: torch.Tensor | None = None,
        target_rows: np.ndarray | None = None,
    ) -> torch.Tensor:
        """Log-softmax at (rows, cols), through the cheap head when it is verified; the result
        stays on the device (float32 rows; float64 values with ``targets``, see
        ``target_logprobs``).

        With ``targets`` only those log-probabilities are returned: one per position, or, with
        ``target_rows`` (ascending position indices, on the host), ``logp[target_rows[j],
        targets[j]]`` — several tokens read at one position cost one projection. The
        vocabulary is projected a chunk of positions at a time (``log_softmax_chunk``), so a
        262k-token vocabulary never materialises for a whole batch.
        """
        import torch

        extra = extra or {}
        head = self._verified_head
        if head is None:
            logits = self.model(input_ids=ids, attention_mask=mask, **extra).logits
            picked, project = logits[rows, cols], None
        else:
            hidden = self.model.base_model(input_ids=ids, attention_mask=mask, **extra)[0]
            picked, project = hidden[rows, cols], head
        step = log_softmax_chunk(self._vocab_size)
        if target_rows is not None:
            target_rows = np.asarray(target_rows, dtype=np.int64)
            on_device = self.to_device(torch.from_numpy(target_rows))
            bounds = np.searchsorted(target_rows, np.arange(0, picked.shape[0] + step, step))
        chunks = []
        for c, i in enumerate(range(0, picked.shape[0], step)):
            part = picked[i : i + step]
            logits = (part if project is None else project(part)).float()
            if target_rows is not None:
                a, b = int(bounds[c]), int(bounds[c + 1])
                chunks.append(target_logprobs(logits, on_device[a:b] - i, targets[a:b]))
            elif targets is not None:
                rows_here = torch.arange(logits.shape[0], device=logits.device)
                chunks.append(target_logprobs(logits, rows_here, targets[i : i + step]))
            else:
                chunks.append(torch.log_softmax(logits, dim=-1))
        if not chunks:
            return picked.new_zeros((0,) if targets is not None else (0, self._vocab_size)).float()
        return torch.cat(chunks)

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

    def pair_encoder(self) -> PairEncoder:
        return _CopyEncoder(self)

    def _pair_width(self) -> int:
        """Size of the pair representation (read once on a probe pair)."""
        return int(self.pair_features([(_PROBE, _PROBE)]).shape[1])


class _CopyEncoder(PairEncoder):
    """A float32 copy of an adapter's model, in training mode, that reads pairs as the
    adapter does (``_pair_representation``)."""

    def __init__(self, lm: TransformersLM) -> None:
        import copy

        self.width = lm._pair_width()
        self.device = lm.device
        self._lm = lm
        self._model = copy.deepcopy(lm.model).float().train()

    def parameters(self) -> Iterable[Any]:
        return self._model.parameters()

    def train(self, mode: bool = True) -> PairEncoder:
        self._model.train(mode)
        return self

    def __call__(self, pairs: Sequence[tuple[str, str]], max_length: int) -> torch.Tensor:
        limit = min(max_length, self._lm.max_length)
        return self._lm._pair_representation(self._model, pairs, limit)
