"""Bartl et al.'s published BEC-Pro evaluation, ported step for step as a test oracle.

A port of ``model_evaluation`` and its helpers in ``code/bias_utils/utils.py`` of
github.com/marionbartl/gender-bias-BERT (``tokenize_to_id``, ``input_pipeline``,
``attention_mask_creator``, ``prob_with_prior``), reading a frame in the published TSV layout
(``Sentence``, ``Sent_TM``, ``Sent_TAM``). Keras' ``pad_sequences`` is replaced by its documented
behaviour (``padding="post"``, ``truncating="post"``, ``value=`` the mask id). It reads the
``transformers`` model and tokenizer directly, never the adapters under test, and runs batches
of 20 with a full softmax, as their code does.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def pad_sequences_post(sequences: list[list[int]], maxlen: int, value: int) -> np.ndarray:
    """keras ``pad_sequences(seqs, maxlen, dtype="long", truncating="post", padding="post")``."""
    out = np.full((len(sequences), maxlen), value, dtype=np.int64)
    for i, seq in enumerate(sequences):
        kept = seq[:maxlen]
        out[i, : len(kept)] = kept
    return out


def input_pipeline(sentences, tokenizer, max_len: int):
    """Encode with [CLS]/[SEP], pad with the mask id, attend to every id > 0."""
    import torch

    encoded = [tokenizer.encode(s, add_special_tokens=True) for s in sentences]
    ids = torch.tensor(pad_sequences_post(encoded, max_len, tokenizer.mask_token_id))
    attention = torch.tensor([[int(t > 0) for t in row] for row in ids.tolist()])
    return ids, attention


def prob_with_prior(pred_tm, pred_tam, input_ids_tam, original_ids, tokenizer) -> list[float]:
    """log(P_target / P_prior) of the original token at the prior's first mask."""
    probs = []
    for doc, ids in enumerate(input_ids_tam):
        masks = np.where(ids.numpy() == tokenizer.mask_token_id)[0]
        target_id = original_ids[doc][masks[0]]
        target_prob = pred_tm[doc][masks[0]][target_id].item()
        prior = pred_tam[doc][masks[0]][target_id].item()
        probs.append(np.log(target_prob / prior))
    return probs


def model_evaluation(eval_df: pd.DataFrame, tokenizer, model, batch: int = 20) -> list[float]:
    """Associations for every row of ``eval_df``, as the published code computes them."""
    import torch
    from torch.nn.functional import softmax

    words = max(len(s.split()) for s in eval_df.Sent_TM)
    max_len = int(math.pow(2, math.ceil(math.log2(words))))
    tm, tm_att = input_pipeline(eval_df.Sent_TM, tokenizer, max_len)
    tam, tam_att = input_pipeline(eval_df.Sent_TAM, tokenizer, max_len)
    original, _ = input_pipeline(eval_df.Sentence, tokenizer, max_len)
    model.eval()
    associations: list[float] = []
    for start in range(0, len(eval_df), batch):
        part = slice(start, start + batch)
        with torch.no_grad():
            pred_tm = softmax(model(tm[part], attention_mask=tm_att[part])[0], dim=2)
            pred_tam = softmax(model(tam[part], attention_mask=tam_att[part])[0], dim=2)
        associations += prob_with_prior(pred_tm, pred_tam, tam[part], original[part], tokenizer)
    return associations
