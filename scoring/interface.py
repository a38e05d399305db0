"""The one model interface the metrics talk to: task-level requests, answered by adapters.

In the spirit of lm-evaluation-harness's ``LM`` class, a metric says *what* it wants to know
("how likely is each of these words in this slot?", "how likely is this sentence?", "how
likely is this sentence after that one?") and never *how* an architecture computes it: mask
tokens, start tokens, decoder targets, slot tokens and sub-token rules belong to the adapters
(``biasforge.scoring.adapters``). The requests:

- ``slot_logprobs([SlotFill])`` — log-probability of each filler in a slot, the slot hidden
  from the model (masked LMs). ``SlotRule.JOINT``: every sub-token of the filler masked at once,
  log P = sum over the masks (SlguSet, BEC-Pro). ``SlotRule.STEREOSET``: the official StereoSet
  procedure, for each sub-token i the sub-tokens before i inserted and one mask read,
  log of the mean of those probabilities.
- ``sentence_logprobs([FilledSentence])`` — per-token log-probabilities of a sentence that
  fills a template's slot (causal: from the model's start token, the template unseen;
  encoder-decoder: decoder tokens given the template with its slot masked).
- ``continuation_logprobs([(context, continuation)])`` — per-token log-probabilities of the
  next sentence after a context.
- ``pair_logprobs([MinimalPair])`` — one score per sentence of a minimal pair (CrowS-Pairs):
  masked LMs, the pseudo-log-likelihood of the tokens the two sentences share (``metric.py``);
  causal LMs, each sentence's log-likelihood (lm-evaluation-harness).
- ``masked_pair_logprobs([MaskedPair])`` — Bartl et al.'s reading of a sentence in two masked
  variants (BEC-Pro's published procedure, with its fixed-width padding; see ``MaskedPair``).
- ``pair_features`` / ``native_nsp`` — what a next-sentence-prediction head reads, or the
  checkpoint's own NSP head; ``finetune_nsp`` fine-tunes a copy of the model with a new NSP head
  (StereoSet's and the French paper's procedure).

Every model also carries an ``identity`` (``ModelIdentity``): what exactly was scored — name,
source, revision or weight-file sha256, dtype, quantisation — for every report to print.

An adapter declares what it answers in ``capabilities`` (capability -> one line on how, for
reports). Any other request raises one ``BiasforgeError`` naming the model and what is needed,
so a metric asks ``lm.supports(...)`` when it has a choice and never which kind it holds.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from biasforge.errors import BiasforgeError

if TYPE_CHECKING:
    import numpy as np
    import torch


class Capability(enum.Enum):
    """A kind of request; the value reads "cannot <value>" in a refusal."""

    FILL_SLOT = "fill a masked slot"
    READ_MASKED_PAIR = "read a token in two masked variants of a sentence"
    SCORE_SENTENCE = "score a sentence"
    SCORE_CONTINUATION = "score a continuation after a context"
    FINETUNE_NSP = "be fine-tuned for next-sentence prediction"
    SCORE_PAIR = "score the two sentences of a minimal pair"


# what a model must be to answer each request (for the refusal message)
_NEEDS = {
    Capability.FILL_SLOT: "a masked language model",
    Capability.READ_MASKED_PAIR: "a masked language model",
    Capability.SCORE_SENTENCE: "a causal or encoder-decoder language model",
    Capability.SCORE_CONTINUATION: "a causal or encoder-decoder language model",
    Capability.FINETUNE_NSP: "a trainable transformers model",
    Capability.SCORE_PAIR: "a masked or causal language model",
}
# the request method that answers each capability
_ANSWERED_BY = {
    Capability.FILL_SLOT: "slot_logprobs",
    Capability.READ_MASKED_PAIR: "masked_pair_logprobs",
    Capability.SCORE_SENTENCE: "sentence_logprobs",
    Capability.SCORE_CONTINUATION: "continuation_logprobs",
    Capability.FINETUNE_NSP: "finetune_nsp",
    Capability.SCORE_PAIR: "pair_logprobs",
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


class SlotRule(enum.Enum):
    """How a multi-sub-token filler is scored in a slot (see the module docstring)."""

    JOINT = "joint"
    STEREOSET = "stereoset"


@dataclass(frozen=True)
class SlotFill:
    """Log P(filler in ``slot``) for each filler; spans in ``masked`` are hidden too, unread
    (BEC-Pro's prior hides the profession words)."""

    slot: Slot
    fillers: tuple[str, ...]
    masked: tuple[tuple[int, int], ...] = ()
    rule: SlotRule = SlotRule.JOINT

    def __post_init__(self) -> None:
        if self.masked and self.rule is not SlotRule.JOINT:
            raise ValueError("extra masked spans are only defined for SlotRule.JOINT")


@dataclass(frozen=True)
class MaskedPair:
    """log P of one token of ``sentence`` read in two masked variants of it, as Bartl et al.'s
    published BEC-Pro code reads it (gender-bias-BERT, ``code/bias_utils/utils.py``).

    Each span of ``target`` and of ``prior`` is hidden by *one* mask token, whatever the number
    of sub-tokens it covers. The sentence, the target and the prior are each tokenised with the
    special tokens, then cut after ``width`` tokens or padded to it with the *mask* token, and
    every token whose id is not 0 is attended to — padding included (``input_pipeline`` and
    ``attention_mask_creator``). The token read is the sentence's own token at the position of
    the prior's first mask token, in the target and in the prior (``prob_with_prior``): with the
    person first, the first sub-token of the person word. Answer: (log P in target, log P in
    prior).
    """

    sentence: str
    target: Slot
    prior: Slot
    width: int

    def __post_init__(self) -> None:
        if self.width < 1:
            raise ValueError(f"width must be positive, not {self.width}")


@dataclass(frozen=True)
class MinimalPair:
    """Two sentences that differ in a few words (CrowS-Pairs); the answer is one log-score per
    sentence, comparable between the two (see ``LanguageModel.pair_logprobs``)."""

    first: str
    second: str


@dataclass(frozen=True)
class NSPTraining:
    """How ``finetune_nsp`` trains (defaults: StereoSet's ``nsp_prediction/main.py``)."""

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
    source: str = ""  # hub id, local folder or alias as given
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
            answers = getattr(cls, method) is not getattr(LanguageModel, method)
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
            raise self.refusal(capability, purpose)

    def refusal(self, capability: Capability, purpose: str = "this request") -> BiasforgeError:
        """The error for a request this model cannot answer."""
        return BiasforgeError(
            f"{self.name} is a {self.kind or 'language'} model and cannot "
            f"{capability.value}: {purpose} needs {_NEEDS[capability]}"
        )

    # -- requests ----------------------------------------------------------------------------
    def slot_logprobs(self, requests: Sequence[SlotFill]) -> list[tuple[float, ...]]:
        """Per request, log P of each filler in the slot (see ``SlotRule``)."""
        raise self.refusal(Capability.FILL_SLOT)

    def sentence_logprobs(self, requests: Sequence[FilledSentence]) -> list[np.ndarray]:
        """Per request, the log-probabilities of the sentence's tokens."""
        raise self.refusal(Capability.SCORE_SENTENCE)

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """Per (context, continuation), the log-probabilities of the continuation's tokens."""
        raise self.refusal(Capability.SCORE_CONTINUATION)

    def masked_pair_logprobs(self, requests: Sequence[MaskedPair]) -> list[tuple[float, float]]:
        """Per request, (log P in the target, log P in the prior) (see ``MaskedPair``)."""
        raise self.refusal(Capability.READ_MASKED_PAIR)

    def pair_logprobs(self, requests: Sequence[MinimalPair]) -> list[tuple[float, float]]:
        """Per request, (score of ``first``, score of ``second``): masked LMs, the summed
        log-probabilities of the shared tokens masked one at a time (CrowS-Pairs' metric.py);
        causal LMs, each sentence's log-likelihood."""
        raise self.refusal(Capability.SCORE_PAIR)

    def finetune_nsp(
        self, pairs: Sequence[tuple[str, str, int]], training: NSPTraining
    ) -> Callable[[Sequence[tuple[str, str]]], list[float]]:
        """Fine-tune a copy of the model with a new NSP head on (first, second, label) pairs
        (label 0: second follows first); return the scorer P(is next) of (context, sentence).
        The model answering the other requests is left as it was."""
        raise self.refusal(Capability.FINETUNE_NSP)

    def native_nsp(self, pairs: Sequence[tuple[str, str]]) -> list[float] | None:
        """P(second follows first) from the checkpoint's own NSP head, None without one."""
        return None

    @abc.abstractmethod
    def pair_features(self, pairs: Sequence[tuple[str, str]]) -> torch.Tensor:
        """One float vector per (first, second) pair, for a trained NSP head to read."""

    @abc.abstractmethod
    def parameter_count(self) -> int:
        """Number of parameters (the French paper correlates size with bias)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Free the weights now: the caller loads the next model while this one is referenced."""
