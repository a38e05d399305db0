"""BEC-Pro (Bartl et al. 2020; Azpillaga Rivera 2021): Kurita association of person and profession.

association = log(P_target / P_prior): the probability of the person word with the person
hidden, over the same probability with the profession hidden too. Two procedures:

- ``spans`` (default): exactly the stored spans are hidden — the person word and each
  profession word get as many mask tokens as the model's tokenizer needs for them, and a
  multi-token person word's probability is the product over its masks; inputs are padded
  with the pad token, which is not attended to.
- ``bartl``: the published code (github.com/marionbartl/gender-bias-BERT), choice for choice,
  so the numbers compare with the paper's and the TFG's (which ran that code): the published
  TSV's masking (each word replaced wherever an occurrence starts a word, one mask per word),
  fixed-width inputs padded with the mask token and attended to, truncation at
  2^⌈log2(max words)⌉ tokens, and only the person word's first sub-token read. Built here
  from ``masked_logprobs`` alone (see ``bartl_reads``); the README lists each choice with the
  line of their code it mirrors.

Tables follow the TFG (Tables 4.4–4.8): mean, std, min, max and quartiles by profession group ×
person gender, and P(f) − P(m), the difference of the mean association for female and male
persons. Both procedures need a masked LM; others are refused with the interface's one error
before any work is done.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pandas as pd

from biasforge.errors import BiasforgeError, InputError
from biasforge.families.base import as_list
from biasforge.scoring.interface import Capability, LanguageModel, MaskedModel, MaskedRead, Slot
from biasforge.scoring.tasks.masking import joint_logprobs
from biasforge.scoring.uncertainty import Figures

GROUP_ORDER = ("balanced", "female", "male")
PROCEDURES = ("spans", "bartl")
MARKER = "[MASK]"  # the published TSV's mask; each model reads its own mask token there


def score_items(lm: LanguageModel, items: pd.DataFrame, procedure: str = "spans") -> pd.DataFrame:
    """One row per item with log P_target, log P_prior and the association."""
    if procedure == "spans":
        lm.require(Capability.READ_MASKED, "BEC-Pro's association")
        values = _spans_logprobs(lm, items)
    elif procedure == "bartl":
        lm.require(Capability.READ_MASKED, "BEC-Pro's published procedure")
        values = bartl_logprobs(lm, items)
    else:
        raise InputError("--procedure", f"unknown BEC-Pro procedure {procedure!r}")
    rows = []
    for row, (target, prior) in zip(items.itertuples(index=False), values, strict=True):
        rows.append(
            {
                "id": row.id,
                "sentence": row.sentence,
                "person": row.person,
                "gender": row.gender,
                "profession": row.profession,
                "profession_group": row.profession_group,
                "logp_target": target,
                "logp_prior": prior,
                "association": target - prior,
            }
        )
    return pd.DataFrame(rows)


def _spans_logprobs(lm: LanguageModel, items: pd.DataFrame) -> list[tuple[float, float]]:
    """(log P_target, log P_prior) with exactly the stored spans hidden, one mask per
    sub-token (``joint_logprobs``)."""
    requests = []
    for row in items.itertuples(index=False):
        person = _person_slot(row)
        ((start, end),) = person.spans
        word = row.sentence[start:end]
        professions = tuple(
            (int(w["start"]), int(w["end"])) for w in map(dict, as_list(row.profession_word_spans))
        )
        requests += [(person, word, ()), (person, word, professions)]
    values = joint_logprobs(lm, requests)
    return [(values[2 * i], values[2 * i + 1]) for i in range(len(items))]


def published_masking(text: str, words: list[str]) -> str:
    """Each word replaced by ``[MASK]`` wherever an occurrence starts a word, word by word.

    This rule reproduces all 5,400 rows of the published ``BEC-Pro/BEC-Pro_EN.tsv``, which
    their ``main.py`` reads (l.153), quirks included: "This [MASK] is a lodging [MASK]ager.",
    the template's "of" hidden with "director of religious activities". The plain
    ``str.replace`` of ``code/corpus_creation.py`` (l.34, l.43-44) would also hide the "son"
    of "mason", which the published file does not (10 rows).
    """
    for word in words:
        text = re.sub(rf"(?<!\w){re.escape(word)}", MARKER, text)
    return text


def tsv_masks(row) -> tuple[str, str]:
    """The published TSV's ``Sent_TM`` and ``Sent_TAM`` of one item."""
    target = published_masking(row.sentence, [row.person])
    return target, published_masking(target, str(row.profession).split())


def bartl_width(targets: list[str]) -> int:
    """utils.py l.166-168: the smallest power of two >= the most whitespace words of a
    ``Sent_TM`` among the items scored together (their whole TSV)."""
    words = max(len(t.split()) for t in targets)
    return int(math.pow(2, math.ceil(math.log2(words))))


def bartl_logprobs(lm: LanguageModel, items: pd.DataFrame) -> list[tuple[float, float]]:
    """(log P in Sent_TM, log P in Sent_TAM) per item, as gender-bias-BERT's
    ``model_evaluation`` (code/bias_utils/utils.py l.161-230) reads them: see ``bartl_reads``."""
    asked = [read for pair in bartl_reads(lm, items) for read in pair]
    values = [value for (value,) in lm.masked_logprobs(asked)]
    return list(zip(values[::2], values[1::2], strict=True))


def bartl_reads(lm: MaskedModel, items: pd.DataFrame) -> list[tuple[MaskedRead, MaskedRead]]:
    """Per item, the target and prior reads of Bartl et al.'s published code.

    Each span of the person (``Sent_TM``) and of the person and profession (``Sent_TAM``) is
    hidden by *one* mask token, whatever the number of sub-tokens it covers. The sentence, the
    target and the prior are each tokenised with the special tokens, then cut after ``width``
    tokens or padded to it with the *mask* token (``input_pipeline``: keras ``pad_sequences``
    with ``value`` the mask id, ``truncating`` and ``padding`` "post"), and every token whose
    id is not 0 is attended to, padding included (``attention_mask_creator``). The token read
    is the sentence's own token at the position of the prior's first mask token, in the
    target and in the prior (``prob_with_prior``): with the person first, the first sub-token
    of the person word.
    """
    masks = [tsv_masks(row) for row in items.itertuples(index=False)]
    width = bartl_width([target for target, _ in masks])
    out = []
    for row, (target, prior) in zip(items.itertuples(index=False), masks, strict=True):
        if MARKER not in target:
            raise InputError(
                "dataset",
                f"person {row.person!r} does not start a word of the sentence",
                record=row.id,
            )
        texts = (
            row.sentence,
            *(Slot.at_marker(t, MARKER).filled(lm.mask_token) for t in (target, prior)),
        )
        sentence, target_ids, prior_ids = (
            _fixed(ids, width, lm.mask_id) for ids in lm.tokenize(texts, truncate=False)
        )
        if lm.mask_id not in prior_ids:
            raise BiasforgeError(f"{lm.name}: no mask token within {width} tokens of {prior!r}")
        position = prior_ids.index(lm.mask_id)
        read = ((position, sentence[position]),)
        out.append(
            tuple(
                MaskedRead(ids, read, tuple(int(i != 0) for i in ids))
                for ids in (target_ids, prior_ids)
            )
        )
    return out


def _fixed(ids: list[int], width: int, mask_id: int) -> tuple[int, ...]:
    """``ids`` cut after ``width`` tokens or padded to it with the mask id."""
    ids = ids[:width]
    return tuple(ids + [mask_id] * (width - len(ids)))


def _person_slot(row) -> Slot:
    person = dict(row.person_span)
    start, end = int(person["start"]), int(person["end"])
    if end <= start or end > len(row.sentence):
        raise InputError("dataset", f"bad person_span {start}:{end}", record=row.id)
    return Slot.at_span(row.sentence, start, end)


def association_table(scored: pd.DataFrame) -> pd.DataFrame:
    """Group × gender statistics and P(f) − P(m) per group (one TFG table per model)."""
    rows = []
    groups = sorted(scored["profession_group"].unique(), key=_group_order)
    for group in groups:
        in_group = scored[scored["profession_group"] == group]
        means = in_group.groupby("gender")["association"].mean()
        diff = float(means.get("female", float("nan")) - means.get("male", float("nan")))
        for gender in ("female", "male"):
            values = in_group.loc[in_group["gender"] == gender, "association"]
            if values.empty:
                continue
            rows.append(
                {
                    "profession_group": group,
                    "gender": gender,
                    "P(f)-P(m)": diff,
                    "n": int(values.size),
                    "mean": float(values.mean()),
                    "std": float(values.std(ddof=1)) if values.size > 1 else float("nan"),
                    "max": float(values.max()),
                    "min": float(values.min()),
                    "75%": float(values.quantile(0.75)),
                    "50%": float(values.quantile(0.50)),
                    "25%": float(values.quantile(0.25)),
                }
            )
    return pd.DataFrame(rows)


def _group_order(group: str) -> tuple[int, str]:
    return (GROUP_ORDER.index(group) if group in GROUP_ORDER else len(GROUP_ORDER), group)


# -------------------------------------------------------------------- uncertainty (vectorised)
def figures(scored: pd.DataFrame) -> tuple[Figures, pd.DataFrame]:
    """Mean association per profession group × person gender, and P(f) − P(m) per group,
    items stratified by group × gender; and the scored rows in the figures' item order."""
    group_rank = scored["profession_group"].map(lambda g: _group_order(g))
    ordered = scored.assign(_rank=group_rank).sort_values(["_rank", "gender"], kind="stable")
    ordered = ordered.drop(columns="_rank").reset_index(drop=True)
    cells = list(ordered.groupby(["profession_group", "gender"], sort=False).size().items())
    keys = [key for key, _ in cells]
    bounds = np.concatenate([[0], np.cumsum([n for _, n in cells])])
    diffs = [
        (keys.index((group, "female")), keys.index((group, "male")), group)
        for group in dict.fromkeys(g for g, _ in keys)
        if (group, "female") in keys and (group, "male") in keys
    ]

    def compute(x: np.ndarray) -> np.ndarray:
        means = [x[0][..., s:e].mean(axis=-1) for s, e in itertools.pairwise(bounds)]
        return np.stack([*means, *[means[f] - means[m] for f, m, _ in diffs]])

    names = (*[f"{g}/{s}/mean" for g, s in keys], *[f"{g}/P(f)-P(m)" for *_, g in diffs])
    return Figures(names, tuple(int(n) for _, n in cells), compute), ordered
