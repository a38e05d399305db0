"""StereoSet sentence scores for any model, following the official StereoSet code.

Intrasentence (one score per candidate sentence, higher = more likely), by what the model can
answer (``biasforge.scoring.interface``):

- a model that reads masked positions (masked LM, official ``IntrasentenceLoader``): for each
  sub-token i of the attribute (tokenised on its own), the decoded sub-tokens before i and one
  mask fill every occurrence of the context's ``BLANK``, and P(sub-token i) is read at the
  first mask; the sentence's score is the mean of those probabilities (``official_mlm``).
- any other (causal, encoder-decoder): the geometric mean of the probabilities of the
  sentence's tokens as the model scores a sentence filling the template (causal: from the start
  token, official ``eval_generative_models``; encoder-decoder: on the decoder side, the
  context with ``BLANK`` masked as the source).

Intersentence: P(is next) from the checkpoint's NSP head when it has one (BERT), otherwise from
an NSP head trained on a user corpus (``biasforge.scoring.tasks.nsp``, French paper
footnote 6) when given; otherwise, for models that score continuations, the
*context-conditioned likelihood of the continuation*: geometric mean of the continuation's
token probabilities given the context.
The last one is a documented substitute, not the paper's NSP procedure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import numpy as np
import pandas as pd
import typer

from biasforge.errors import BiasforgeError, InputError
from biasforge.scoring.data import as_list
from biasforge.scoring.interface import (
    Capability,
    FilledSentence,
    LanguageModel,
    MaskedModel,
    Slot,
)
from biasforge.scoring.stereoset_eval import Example
from biasforge.scoring.tasks import ScoreRequest, ScoringTask
from biasforge.scoring.tasks.masking import reads

OFFICIAL_MLM = "official MLM: mean P(sub-token) with preceding sub-tokens inserted"
LABELS = ("stereotype", "anti-stereotype", "unrelated")


def examples_from(items: pd.DataFrame, where: str = "dataset") -> list[Example]:
    """Validate the contract's columns and build evaluator examples (one per item)."""
    examples = []
    for row in items.itertuples(index=False):
        by_label: dict[str, str] = {}
        for sentence in as_list(row.sentences):
            label = sentence.get("label")
            if label not in LABELS:
                raise InputError(where, f"unknown sentence label {label!r}", record=row.id)
            by_label[label] = sentence["id"]
        missing = [label for label in LABELS if label not in by_label]
        if missing:
            raise InputError(where, f"missing {', '.join(missing)} sentence", record=row.id)
        if row.split not in ("intrasentence", "intersentence"):
            raise InputError(where, f"unknown split {row.split!r}", record=row.id)
        examples.append(
            Example(
                id=row.id,
                split=row.split,
                bias_type=row.bias_type,
                target=row.target,
                stereotype=by_label["stereotype"],
                anti_stereotype=by_label["anti-stereotype"],
                unrelated=by_label["unrelated"],
            )
        )
    return examples


def _sentences(items: pd.DataFrame) -> Iterator[tuple[object, dict]]:
    for row in items.itertuples(index=False):
        for sentence in as_list(row.sentences):
            yield row, sentence


def _blank(row, where: str) -> Slot:
    if "BLANK" not in row.context:
        raise InputError(where, "intrasentence context has no BLANK", record=row.id)
    return Slot.at_marker(row.context, "BLANK")


def intrasentence_method(lm: LanguageModel) -> str:
    """How ``score_intrasentence`` scores this model's sentences (for the report); a causal
    model whose tokenizer adds BOS names the adaptation of the official procedure."""
    if lm.supports(Capability.READ_MASKED):
        return OFFICIAL_MLM
    return f"official generative: geometric mean of {lm.how(Capability.SCORE_SENTENCE)}"


def score_intrasentence(
    lm: LanguageModel, items: pd.DataFrame, where: str = "dataset"
) -> dict[str, float]:
    """Sentence id -> score for the intrasentence items (see module docstring)."""
    if items.empty:
        return {}
    if lm.supports(Capability.READ_MASKED):
        return _intrasentence_by_slot(lm, items, where)
    ids, requests = [], []
    for row, sentence in _sentences(items):
        ids.append(sentence["id"])
        requests.append(FilledSentence(_blank(row, where), sentence["sentence"]))
    return dict(zip(ids, _geometric_means(lm.sentence_logprobs(requests)), strict=True))


def _intrasentence_by_slot(lm: LanguageModel, items: pd.DataFrame, where: str) -> dict[str, float]:
    """The official masked-LM score of every sentence (see ``official_mlm``)."""
    ids, requests = [], []
    for row in items.itertuples(index=False):
        sentences = as_list(row.sentences)
        for sentence in sentences:
            if not str(sentence["attribute"]).strip():
                raise InputError(where, "attribute is empty", record=sentence["id"])
        ids += [sentence["id"] for sentence in sentences]
        requests += [(_blank(row, where), sentence["attribute"]) for sentence in sentences]
    return dict(zip(ids, official_mlm(lm, requests), strict=True))


def official_mlm(lm: MaskedModel, requests: list[tuple[Slot, str]]) -> list[float]:
    """Per (slot, attribute), the official ``IntrasentenceLoader`` score: for each sub-token i
    of the attribute (tokenised on its own), the decoded sub-tokens before i and one mask fill
    every occurrence of the slot, P(sub-token i) is read at the first mask, and the score is
    the mean of those probabilities. Identical masked texts are computed once (an item's three
    sentences share their first one)."""
    fillers = list(dict.fromkeys(attribute for _, attribute in requests))
    encoded = dict(zip(fillers, lm.encode_many(fillers), strict=True))
    texts, targets, owner = [], [], []
    for n, (slot, attribute) in enumerate(requests):
        tokens = encoded[attribute]
        if not tokens:
            raise BiasforgeError(f"{lm.name}: the filler {attribute!r} has no tokens")
        for i, token in enumerate(tokens):
            prefix = lm.decode(tokens[:i]) if i else ""
            texts.append(slot.filled(f"{prefix}{lm.mask_token}"))
            targets.append([token])
            owner.append(n)
    values = lm.masked_logprobs(reads(lm, texts, targets))
    probabilities: list[list[float]] = [[] for _ in requests]
    for n, (value,) in zip(owner, values, strict=True):
        probabilities[n].append(float(np.exp(value)))
    return [float(np.exp(np.log(np.mean(p)))) for p in probabilities]


def _geometric_means(logps: list[np.ndarray]) -> list[float]:
    return [float(np.exp(np.mean(lp))) if len(lp) else 0.0 for lp in logps]


def score_intersentence(
    lm: LanguageModel,
    items: pd.DataFrame,
    nsp: Callable[[list[tuple[str, str]]], list[float]] | None = None,
    nsp_method: str = "trained NSP head",
) -> tuple[dict[str, float], str]:
    """Sentence id -> score for intersentence items, and the method used (for the report).

    ``nsp`` is a trained scorer of (context, sentence) pairs (``biasforge.scoring.tasks.nsp``),
    named ``nsp_method`` in the report; without one, the checkpoint's own NSP head, else the
    continuation's likelihood (a substitute, reported as such)."""
    if items.empty:
        return {}, "none"
    ids, pairs = [], []
    for row, sentence in _sentences(items):
        ids.append(sentence["id"])
        pairs.append((row.context, sentence["sentence"]))
    if nsp is not None:
        return dict(zip(ids, nsp(pairs), strict=True)), nsp_method
    native = lm.native_nsp(pairs)
    if native is not None:
        return dict(zip(ids, native, strict=True)), "pre-trained NSP head"
    if not lm.supports(Capability.SCORE_CONTINUATION):
        return (
            {},
            "skipped (no NSP head and no continuation scores; pass --nsp-corpus to train one)",
        )
    scores = _geometric_means(lm.continuation_logprobs(pairs))
    return dict(zip(ids, scores, strict=True)), "continuation likelihood given the context"


def predictions_json(items: pd.DataFrame, scores: dict[str, float]) -> dict:
    """The official predictions layout: {"intrasentence": [{id, score}], "intersentence": [...]}."""
    out: dict[str, list] = {"intrasentence": [], "intersentence": []}
    for row, sentence in _sentences(items):
        if sentence["id"] in scores:
            out[row.split].append({"id": sentence["id"], "score": scores[sentence["id"]]})
    return out


def item_bias(examples: list[Example], scores: dict[str, float]) -> dict[str, float]:
    """Per-item bias for cross-model plots: log score(stereotype) − log score(anti-stereotype)."""
    out = {}
    for ex in examples:
        if ex.stereotype in scores and ex.anti_stereotype in scores:
            pro, anti = scores[ex.stereotype], scores[ex.anti_stereotype]
            out[ex.id] = float(np.log(max(pro, 1e-300)) - np.log(max(anti, 1e-300)))
    return out


# -- the score command ----------------------------------------------------------------------
SPLITS = ("intrasentence", "intersentence", "all")


def command(
    request: ScoreRequest,
    split: Annotated[str, typer.Option(help="intrasentence | intersentence | all")] = "all",
    nsp_corpus: Annotated[
        Path | None,
        typer.Option(
            help="Corpus for intersentence NSP: UTF-8, one sentence per line, a blank line "
            "between documents (the paper used French Wikipedia)."
        ),
    ] = None,
    nsp_train: Annotated[
        str,
        typer.Option(
            help="finetune: fine-tune a copy of the model with an NSP head on --nsp-corpus "
            "(the paper's procedure); head: train only a linear head on the frozen model."
        ),
    ] = "head",
    nsp_steps: Annotated[int, typer.Option(min=1, help="NSP optimiser steps.")] = 200,
    nsp_batch: Annotated[int, typer.Option(min=1, help="NSP fine-tuning batch size.")] = 16,
    nsp_lr: Annotated[
        float, typer.Option(help="NSP fine-tuning learning rate of the model.")
    ] = 5e-6,
    nsp_head_lr: Annotated[
        float, typer.Option(help="NSP fine-tuning learning rate of the head.")
    ] = 1e-3,
    nsp_head: Annotated[
        Path | None,
        typer.Option(help="Reuse an NSP head saved by an earlier run (<out>/<model>/nsp_head.pt)."),
    ] = None,
) -> None:
    """LMS, SS and ICAT (official StereoSet procedure and evaluator) per domain and split,
    with bootstrap intervals and paired comparisons of models."""
    from biasforge.scoring.commands import NSPOptions, run_stereoset
    from biasforge.scoring.interface import NSPTraining

    if split not in SPLITS:
        raise typer.BadParameter("split must be intrasentence, intersentence or all")
    if nsp_train not in ("head", "finetune"):
        raise typer.BadParameter("--nsp-train must be finetune or head")
    if nsp_train == "finetune" and (nsp_corpus is None or nsp_head is not None):
        raise typer.BadParameter("--nsp-train finetune needs --nsp-corpus (and no --nsp-head)")
    options = request.options
    training = NSPTraining(
        steps=nsp_steps,
        batch_size=nsp_batch,
        core_lr=nsp_lr,
        head_lr=nsp_head_lr,
        seed=options.resampling.seed,
    )
    nsp = NSPOptions(nsp_train, nsp_corpus, nsp_head, training, options.model.progress)
    run_stereoset(request.dataset, request.models, request.out, options, split, nsp)


TASK = ScoringTask("stereoset", command.__doc__ or "", command)
