"""Next-sentence prediction from a user corpus (French paper, footnotes 6–7), two ways.

- ``finetune`` (the paper's procedure, StereoSet's ``code/nsp_prediction/main.py``): a copy of
  the model is fine-tuned together with a new NSP head (three linear layers) on pairs from the
  corpus, with StereoSet's optimiser settings (``biasforge.scoring.interface.NSPTraining``);
  the model's other scores are untouched. The model only gives a trainable copy that reads
  text pairs (``PairReader.pair_encoder``); the head, the optimiser and the loop are here.
- ``head`` (cheap, CPU-friendly): the model stays frozen and only a linear layer over its pair
  representation (``PairReader.pair_features``) is trained.

Both ask the model for the optional next-sentence capability (``biasforge.scoring.interface.
PairReader``); a model without it is refused with the interface's one error.

Both read the pair as French paper footnote 7 says: the first token's final hidden state for
encoders, the mean of the final hidden states for decoders and encoder-decoders. Pairs are half
true continuations (consecutive lines of one document) and half a random sentence of another
document, as in BERT and StereoSet's ``NextSentenceDataset``. Label 0 means "is next", as in
BERT, so ``P(is next)`` is the StereoSet intersentence score.

Corpus format: text (UTF-8 unless ``--nsp-encoding`` says otherwise), one sentence per line, blank lines between documents; at least two
documents with two consecutive sentences (the paper used an extract of French Wikipedia; a few
thousand documents of the evaluation language are a reasonable start).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasforge.errors import InputError
from biasforge.scoring.interface import Capability, LanguageModel, NSPTraining, PairEncoder
from biasforge.textfiles import DEFAULT, lines

MODES = ("head", "finetune")
Scorer = Callable[[Sequence[tuple[str, str]]], list[float]]
Documents = Sequence[Sequence[str]]  # each document's sentences, in order


def read_corpus(path: Path, encoding: str = DEFAULT) -> Documents:
    """Documents as tuples of sentences, read through the shared reader of users' text files
    (a file that is missing, a folder or not ``encoding`` is one line naming it, the line and
    ``--nsp-encoding``); read once per run however many models train on it. The file's
    identity, size and modification time are part of the cache's key: a corpus edited or
    replaced between two runs in one process (a notebook, a test) is read again."""
    try:
        found = Path(path).stat()
        stamp = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)
    except OSError:
        stamp = None  # not read from the cache: the reader names the problem
    return _read_corpus(path, encoding, stamp)


@functools.lru_cache(maxsize=2)
def _read_corpus(path: Path, encoding: str, stamp: tuple | None) -> Documents:
    documents: list[tuple[str, ...]] = []
    current: list[str] = []
    for _, line in lines(path, encoding, "--nsp-encoding"):
        line = line.strip()
        if line:
            current.append(line)
        elif current:
            documents.append(tuple(current))
            current = []
    if current:
        documents.append(tuple(current))
    if sum(max(0, len(d) - 1) for d in documents) < 2:
        raise InputError(path, "NSP corpus needs documents with at least two consecutive sentences")
    return tuple(documents)


def make_pairs(documents: Documents, n: int, seed: int = 0) -> list[tuple[str, str, int]]:
    """``n`` (first, second, label) pairs: label 0 = second follows first, 1 = a random
    sentence of another document (drawn again until it is, as StereoSet's dataset does)."""
    rng = random.Random(seed)
    consecutive = [(d, i) for d, doc in enumerate(documents) for i in range(len(doc) - 1)]
    every = [(d, s) for d, doc in enumerate(documents) for s in doc]
    single = len(documents) < 2
    pairs = []
    for k in range(n):
        d, i = consecutive[rng.randrange(len(consecutive))]
        first = documents[d][i]
        if k % 2 == 0:
            pairs.append((first, documents[d][i + 1], 0))
            continue
        other_doc, second = every[rng.randrange(len(every))]
        while other_doc == d and not single:
            other_doc, second = every[rng.randrange(len(every))]
        pairs.append((first, second, 1))
    return pairs


@dataclass
class NSPHead:
    """A trained linear NSP head; calling it scores (context, sentence) pairs."""

    weight: Any  # torch.Tensor (2, features)
    bias: Any  # torch.Tensor (2,)
    model_name: str

    def __call__(
        self, lm: LanguageModel, pairs: Sequence[tuple[str, str]], batch_size: int = 64
    ) -> list[float]:
        import torch

        lm.require(Capability.READ_PAIRS, "an NSP head")
        scores = []
        for i in range(0, len(pairs), batch_size):
            features = lm.pair_features(pairs[i : i + batch_size])
            logits = features @ self.weight.T + self.bias
            scores += torch.softmax(logits, dim=-1)[:, 0].tolist()
        return scores

    def save(self, path: Path) -> None:
        import torch

        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"weight": self.weight, "bias": self.bias, "model": self.model_name}, path)

    @classmethod
    def load(cls, path: Path) -> NSPHead:
        import torch

        expected = "not an NSP head saved by biasforge (<out>/<model>/nsp_head.pt)"
        if not path.is_file():
            what = "a folder, not a file" if path.is_dir() else "no such file"
            raise InputError(path, f"{what} (--nsp-head)")
        if path.stat().st_size == 0:
            raise InputError(path, f"empty file: {expected}")
        try:
            data = torch.load(path, weights_only=True)
        except Exception as exc:
            raise InputError(path, f"{expected} ({type(exc).__name__})") from None
        if not _is_head(data):
            raise InputError(path, f"{expected}: no (2, N) weight, (2,) bias and model name")
        return cls(data["weight"], data["bias"], data["model"])


def _is_head(data: object) -> bool:
    """What :meth:`NSPHead.save` writes: a (2, N) weight, a (2,) bias and the model's name."""
    import torch

    if not isinstance(data, dict) or not isinstance(data.get("model"), str):
        return False
    weight, bias = data.get("weight"), data.get("bias")
    tensors = isinstance(weight, torch.Tensor) and isinstance(bias, torch.Tensor)
    return tensors and weight.ndim == 2 and weight.shape[0] == 2 and tuple(bias.shape) == (2,)


def train_head(
    lm: LanguageModel,
    corpus: Path,
    pairs: int = 2000,
    steps: int = 200,
    lr: float = 1e-2,
    seed: int = 0,
    progress: bool = True,
    encoding: str = DEFAULT,
) -> NSPHead:
    """Fit the head on features of a frozen model (features computed once, then full-batch Adam)."""
    import torch

    lm.require(Capability.READ_PAIRS, "an NSP head")
    data = make_pairs(read_corpus(corpus, encoding), pairs, seed)
    feats = []
    chunks = range(0, len(data), 64)
    if progress:
        from biasforge.progress import progress_bar

        chunks = progress_bar(chunks, desc=f"{lm.name} NSP features", leave=False)
    for i in chunks:
        feats.append(lm.pair_features([(a, b) for a, b, _ in data[i : i + 64]]))
    x = torch.cat(feats)
    y = torch.tensor([label for _, _, label in data])
    mean, std = x.mean(0), x.std(0) + 1e-6
    torch.manual_seed(seed)
    layer = torch.nn.Linear(x.shape[1], 2)
    optimiser = torch.optim.Adam(layer.parameters(), lr=lr)
    xn = (x - mean) / std
    for _ in range(steps):
        optimiser.zero_grad()
        loss = torch.nn.functional.cross_entropy(layer(xn), y)
        loss.backward()
        optimiser.step()
    # fold the standardisation into the layer so the head reads raw features
    weight = (layer.weight / std).detach()
    bias = (layer.bias - (layer.weight * mean / std).sum(1)).detach()
    return NSPHead(weight, bias, lm.name)


def finetune(
    lm: LanguageModel,
    corpus: Path,
    training: NSPTraining,
    progress: bool = False,
    encoding: str = DEFAULT,
) -> Scorer:
    """The paper's procedure: ``training.steps`` batches of corpus pairs fine-tune a copy of
    the model with a new NSP head; returns the scorer P(is next)."""
    documents = read_corpus(corpus, encoding)
    pairs = make_pairs(documents, training.steps * training.batch_size, training.seed)
    return finetune_pairs(lm, pairs, training, progress)


def finetune_pairs(
    lm: LanguageModel,
    pairs: Sequence[tuple[str, str, int]],
    training: NSPTraining,
    progress: bool = False,
) -> Scorer:
    """StereoSet's ``nsp_prediction/main.py`` on (first, second, label) pairs (label 0: second
    follows first): AdamW with one learning rate for the model and one for the head, cosine
    schedule with warm-up, gradients clipped at 1.0, one pass over ``pairs`` in batches."""
    import torch

    lm.require(Capability.TRAIN_PAIR_ENCODER, "NSP fine-tuning")
    torch.manual_seed(training.seed)
    encoder = lm.pair_encoder()
    head = stereoset_head(encoder.width, training.seed).to(encoder.device)
    optimiser, scheduler = _optimiser(encoder, head, training)
    for start in _steps(lm.name, len(pairs), training.batch_size, progress):
        batch = pairs[start : start + training.batch_size]
        labels = torch.tensor([label for _, _, label in batch], device=encoder.device)
        hidden = encoder([(a, b) for a, b, _ in batch], training.max_length)
        loss = torch.nn.functional.cross_entropy(head(hidden.float()), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([*encoder.parameters(), *head.parameters()], 1.0)
        optimiser.step()
        scheduler.step()
        optimiser.zero_grad()
    encoder.train(False)
    head.eval()
    return lambda scored: _scores(encoder, head, scored, training.max_length)


def _steps(name: str, total: int, batch_size: int, progress: bool) -> Iterable[int]:
    starts = range(0, total, batch_size)
    if not progress:
        return starts
    from biasforge.progress import progress_bar

    return progress_bar(starts, desc=f"{name} NSP fine-tuning", unit="step", leave=False)


def _scores(
    encoder: PairEncoder, head: Any, pairs: Sequence[tuple[str, str]], max_length: int
) -> list[float]:
    """P(is next) (label 0, as BERT) from the fine-tuned copy, 64 pairs at a time."""
    import torch

    scores: list[float] = []
    with torch.inference_mode():
        for i in range(0, len(pairs), 64):
            hidden = encoder(pairs[i : i + 64], max_length)
            scores += torch.softmax(head(hidden.float()), dim=-1)[:, 0].cpu().tolist()
    return scores


def stereoset_head(width: int, seed: int, inner: int = 300) -> Any:
    """``ModelNSP.nsp_head`` of StereoSet's ``code/models/models.py``: three linear layers."""
    import torch

    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(width, inner), torch.nn.Linear(inner, inner), torch.nn.Linear(inner, 2)
    )


def _optimiser(encoder: PairEncoder, head: Any, training: NSPTraining) -> tuple[Any, Any]:
    """AdamW with the model's and the head's learning rates, and the cosine schedule; the
    warm-up is capped at a tenth of the steps so a short run still reaches its rate."""
    import torch
    from transformers import get_cosine_with_hard_restarts_schedule_with_warmup

    optimiser = torch.optim.AdamW(
        [
            {"params": encoder.parameters(), "lr": training.core_lr},
            {"params": head.parameters(), "lr": training.head_lr},
        ],
        weight_decay=training.weight_decay,
    )
    warmup = min(training.warmup, training.steps // 10)
    scheduler = get_cosine_with_hard_restarts_schedule_with_warmup(
        optimiser, num_warmup_steps=warmup, num_training_steps=max(1, training.steps)
    )
    return optimiser, scheduler
