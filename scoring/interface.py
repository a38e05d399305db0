"""The one model interface the benchmark tasks talk to: a few generic questions, answered by
adapters.

In the shape of lm-evaluation-harness's ``LM`` class (``loglikelihood``,
``loglikelihood_rolling``, requests as data), a task says *what* it wants to know and never
*how* an architecture computes it; the adapters (``biasforge.scoring.adapters``) know nothing of
any benchmark. The questions:

- ``masked_logprobs([MaskedRead])`` — log-probabilities of chosen tokens at chosen positions of
  a token sequence in which the task has put the model's mask token (masked LMs): the
  pseudo-log-likelihood of chosen positions. Tasks build the sequences with the tokenizer-level
  helpers every masked adapter offers (``tokenize``, ``encode``, ``encode_many``, ``decode``,
  ``mask_token``, ``mask_id``, ``max_length``).
- ``continuation_logprobs([(context, continuation)])`` — per-token log-probabilities of a
  continuation given a context (causal: running text, an empty context meaning the model's
  start token; encoder-decoder: decoder tokens given the context as the source).
- ``sentence_logprobs([FilledSentence])`` — per-token log-probabilities of a whole text that
  fills a template's slot (causal: the text from the start, the template unseen, as the
  official StereoSet generative code reads it; encoder-decoder: decoder tokens given the
  template with its slot masked — the sequence-to-sequence infilling question).

Next-sentence prediction is an optional capability, not a question every model answers: a
``PairReader`` (the transformers adapters) also gives the checkpoint's own next-sentence head
(``native_nsp``), a frozen vector per text pair (``pair_features``) and a trainable copy of the
model that maps text pairs to vectors (``pair_encoder``); only StereoSet's intersentence task
asks for it (the training of an NSP head is a task's, ``biasforge.scoring.tasks.nsp``).

Benchmark procedures (StereoSet's official scores, Bartl's BEC-Pro reading, CrowS-Pairs'
``metric.py``, SlguSet's Bias_c, NSP training) are built from these in the family tasks
(``biasforge.scoring.tasks``), which this module never imports.

Every model also carries an ``identity`` (``ModelIdentity``): what exactly was scored — name,
source, revision or weight-file sha256, dtype, quantisation — for every report to print.

An adapter declares what it answers in ``capabilities`` (capability -> one line on how, for
reports). Any other request raises one ``BiasforgeError`` naming the model and what is needed;
a task asks ``lm.supports(...)`` only to choose between documented procedures.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from biasforge.errors import BiasforgeError

if TYPE_CHECKING:
    import numpy as np
    import torch


class Capability(enum.Enum):
    """A kind of question; the value reads "cannot <value>" in a refusal."""

    READ_MASKED = "read log-probabilities at masked positions"
    SCORE_SENTENCE = "score a sentence"
    SCORE_CONTINUATION = "score a continuation after a context"
    READ_PAIRS = "represent text pairs as vectors"  # optional: a ``PairReader``
    TRAIN_PAIR_ENCODER = "give a trainable copy of itself that represents text pairs"
    GENERATE = "generate an answer after a prompt"


# what a model must be to answer each question (for the refusal message)
_NEEDS = {
    Capability.READ_MASKED: "a masked language model",
    Capability.SCORE_SENTENCE: "a causal or encoder-decoder language model",
    Capability.SCORE_CONTINUATION: "a causal or encoder-decoder language model",
    Capability.READ_PAIRS: "a transformers model",
    Capability.TRAIN_PAIR_ENCODER: "a trainable transformers model",
    Capability.GENERATE: "a causal or encoder-decoder language model",
}
# the request method that answers each capability (the last two: a ``PairReader``'s)
_ANSWERED_BY = {
    Capability.READ_MASKED: "masked_logprobs",
    Capability.SCORE_SENTENCE: "sentence_logprobs",
    Capability.SCORE_CONTINUATION: "continuation_logprobs",
    Capability.READ_PAIRS: "pair_features",
    Capability.TRAIN_PAIR_ENCODER: "pair_encoder",
    Capability.GENERATE: "generate",
}


@dataclass(frozen=True)
class Slot:
    """A text and the character spans of its slot (StereoSet's ``BLANK`` may occur twice).

    Every occurrence is hidden or filled alike; masked LMs read the first one, as the official
    StereoSet code does.
    """

    text: str
    spans: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        cursor = 0
        for start, end in self.spans:
            if start < cursor or end < start or end > len(self.text):
                raise ValueError(f"bad or overlapping slot span {start}:{end} in {self.text!r}")
            cursor = end
        if not self.spans:
            raise ValueError(f"no slot in {self.text!r}")

    @classmethod
    def at_span(cls, text: str, start: int, end: int) -> Slot:
        """The slot at one character span."""
        return cls(text, ((start, end),))

    @classmethod
    def at_marker(cls, text: str, marker: str = "BLANK") -> Slot:
        """The slot at every occurrence of ``marker`` (as ``str.replace`` would find them)."""
        spans, start = [], text.find(marker)
        while start >= 0 and marker:
            spans.append((start, start + len(marker)))
            start = text.find(marker, start + len(marker))
        return cls(text, tuple(spans))

    def filled(self, filler: str) -> str:
        """The text with every occurrence of the slot replaced by ``filler``."""
        pieces, cursor = [], 0
        for start, end in self.spans:
            pieces += [self.text[cursor:start], filler]
            cursor = end
        return "".join([*pieces, self.text[cursor:]])


@dataclass(frozen=True)
class MaskedRead:
    """log P of chosen tokens at chosen positions of ``ids`` (a token sequence with the
    special tokens, where the task has put the model's mask token): ``reads`` holds
    (position, token id) pairs. ``attention`` (0/1 per position) overrides the usual mask of
    the unpadded sequence when a procedure attends otherwise (Bartl et al. attend to every id
    but 0, padding included). Identical sequences are computed once."""

    ids: tuple[int, ...]
    reads: tuple[tuple[int, int], ...]
    attention: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        for position, _ in self.reads:
            if not 0 <= position < len(self.ids):
                raise ValueError(f"read at position {position} of a {len(self.ids)}-token input")
        if self.attention is not None and len(self.attention) != len(self.ids):
            raise ValueError("attention must give one value per token")


@dataclass(frozen=True)
class MinimalPair:
    """Two sentences that differ in a few words (CrowS-Pairs); the answer is one log-score per
    sentence, comparable between the two (``biasforge.scoring.tasks.crowspairs``)."""

    first: str
    second: str


@dataclass(frozen=True)
class NSPTraining:
    """How the NSP fine-tuning of ``biasforge.scoring.tasks.nsp`` trains (defaults:
    StereoSet's ``nsp_prediction/main.py``)."""

    steps: int = 200
    batch_size: int = 16
    core_lr: float = 5e-6  # main.py --core-lr
    head_lr: float = 1e-3  # main.py --head-lr
    weight_decay: float = 1e-2  # main.py --weight-decay
    warmup: int = 250  # main.py: get_cosine_with_hard_restarts_schedule_with_warmup(…, 250, …)
    max_length: int = 256  # main.py --max-seq-length
    seed: int = 0


@dataclass(frozen=True)
class ModelIdentity:
    """What exactly was scored, for reports: a name alone does not say which weights."""

    name: str  # the short name used in tables
    display: str = ""  # a human-readable description, e.g. "Gemma 3 270M (Q4_K_M GGUF, …)"
    source: str = ""  # hub id or alias as given, "local folder NAME" (never a path)
    kind: str = ""
    revision: str = ""  # hub commit, when known
    sha256: str = ""  # of the weight file(s) when read from disk
    sha256_of: str = ""  # which file(s) the sha256 covers
    dtype: str = ""
    quantisation: str = "none"
    parameters: int = 0

    @property
    def label(self) -> str:
        """The display name when there is one, else the short name."""
        return self.display or self.name


@dataclass(frozen=True)
class FilledSentence:
    """Per-token log P of ``sentence``, which fills the slot of ``template``."""

    template: Slot
    sentence: str


class MaskedModel(Protocol):
    """What a task may use of a model that answers ``READ_MASKED``: the question, and the
    tokenizer-level helpers it builds the question's token sequences with."""

    name: str
    mask_token: str
    mask_id: int

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` without special tokens."""

    def encode_many(self, texts: Sequence[str]) -> list[list[int]]:
        """``encode`` of each text, in one batched call."""

    def tokenize(self, texts: Sequence[str], truncate: bool = True) -> list[list[int]]:
        """Token ids of each text with the special tokens (cut at the model's length)."""

    def decode(self, ids: Sequence[int]) -> str:
        """The text of token ids."""

    def masked_logprobs(self, requests: Sequence[MaskedRead]) -> list[tuple[float, ...]]:
        """See ``LanguageModel.masked_logprobs``."""


class PairEncoder(abc.ABC):
    """A trainable model that maps (first, second) text pairs to one vector each."""

    width: int  # size of the vectors
    device: object  # where the vectors are (and a head trained on them must be)

    @abc.abstractmethod
    def parameters(self) -> Iterable[torch.nn.Parameter]:
        """The trainable weights."""

    @abc.abstractmethod
    def __call__(self, pairs: Sequence[tuple[str, str]], max_length: int) -> torch.Tensor:
        """One vector per pair (differentiable while training)."""

    @abc.abstractmethod
    def train(self, mode: bool = True) -> PairEncoder:
        """Training or evaluation mode, as ``torch.nn.Module.train``."""


class PairReader(abc.ABC):
    """The optional next-sentence capability (``READ_PAIRS``, ``TRAIN_PAIR_ENCODER``): text
    pairs read by the model, for a next-sentence head; only the task that needs it asks."""

    def native_nsp(self, pairs: Sequence[tuple[str, str]]) -> list[float] | None:
        """P(second follows first) from the checkpoint's own NSP head, None without one."""
        return None

    @abc.abstractmethod
    def pair_features(self, pairs: Sequence[tuple[str, str]]) -> torch.Tensor:
        """One float vector per (first, second) pair, for a trained NSP head to read."""

    @abc.abstractmethod
    def pair_encoder(self) -> PairEncoder:
        """A trainable float32 copy of the model that maps text pairs to vectors (what a
        next-sentence head is trained on); the model answering the other questions is left as
        it was."""


class LanguageModel(abc.ABC):
    """What every metric may ask of a model; adapters override what they can answer.

    Subclasses list the requests they answer in ``capabilities``; a subclass that overrides a
    request method without declaring it (or declares one it does not override) is refused at
    class creation, so the declaration cannot drift from the code.
    """

    kind: ClassVar[str] = ""
    capabilities: ClassVar[Mapping[Capability, str]] = {}

    def __init__(self, name: str) -> None:
        self.name = name
        self.identity = ModelIdentity(name=name, kind=self.kind)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        for capability, method in _ANSWERED_BY.items():
            answers = getattr(cls, method, None) is not getattr(LanguageModel, method, None)
            if answers != (capability in cls.capabilities):
                raise TypeError(
                    f"{cls.__name__}: declare {capability.name} iff it overrides {method}"
                )

    # -- capabilities ------------------------------------------------------------------------
    def supports(self, capability: Capability) -> bool:
        """Whether this model answers requests of ``capability``."""
        return capability in self.capabilities

    def how(self, capability: Capability) -> str:
        """One line on how this model answers ``capability`` (for reports)."""
        self.require(capability)
        return self.capabilities[capability]

    def require(self, capability: Capability, purpose: str = "this request") -> None:
        """Raise the one clear error early if this model cannot answer ``capability``."""
        if not self.supports(capability):
            raise self.refusal(capability, purpose=purpose)

    def require_any(self, capabilities: Sequence[Capability], purpose: str) -> None:
        """Raise the one clear error early if this model answers none of ``capabilities``
        (a task with one procedure per kind of model)."""
        if not any(self.supports(c) for c in capabilities):
            raise self.refusal(*capabilities, purpose=purpose)

    def refusal(self, *capabilities: Capability, purpose: str = "this request") -> BiasforgeError:
        """The error for a request this model cannot answer."""
        cannot = " or ".join(c.value for c in capabilities)
        needs = " or ".join(_NEEDS[c] for c in capabilities)
        return BiasforgeError(
            f"{self.name} is a {self.kind or 'language'} model and cannot {cannot}: "
            f"{purpose} needs {needs}"
        )

    # -- requests ----------------------------------------------------------------------------
    def masked_logprobs(self, requests: Sequence[MaskedRead]) -> list[tuple[float, ...]]:
        """Per request, log P of each (position, token) of ``reads``, in order."""
        raise self.refusal(Capability.READ_MASKED)

    def sentence_logprobs(self, requests: Sequence[FilledSentence]) -> list[np.ndarray]:
        """Per request, the log-probabilities of the sentence's tokens."""
        raise self.refusal(Capability.SCORE_SENTENCE)

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """Per (context, continuation), the log-probabilities of the continuation's tokens."""
        raise self.refusal(Capability.SCORE_CONTINUATION)

    def generate(self, prompts: Sequence[str], max_new_tokens: int) -> list[str]:
        """Per prompt, the model's greedy continuation: at most ``max_new_tokens`` new tokens,
        decoded without special tokens (what a task reads as the answer is the task's own)."""
        raise self.refusal(Capability.GENERATE)

    def unknown_to_tokenizer(self, texts: Sequence[str]) -> list[bool] | None:
        """Per text, whether the tokenizer reads some of it as its unknown token (the model
        then sees nothing of that part); None when this model cannot tell (no tokenizer)."""
        return None

    @abc.abstractmethod
    def parameter_count(self) -> int:
        """Number of parameters (the French paper correlates size with bias)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Free the weights now: the caller loads the next model while this one is referenced."""
