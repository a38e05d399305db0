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
  2^⌈log2(max words)⌉ tokens, and only the person word's first sub-token read. The model
  answers ``MaskedPair`` requests (``biasforge.scoring.interface``); the README lists each choice with
  the line of their code it mirrors.

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

from biasforge.errors import InputError
from biasforge.scoring.data import as_list
from biasforge.scoring.interface import Capability, LanguageModel, MaskedPair, Slot, SlotFill
from biasforge.scoring.uncertainty import Figures

GROUP_ORDER = ("balanced", "female", "male")
PROCEDURES = ("spans", "bartl")
MARKER = "[MASK]"  # the published TSV's mask; each model reads its own mask token there


def score_items(lm: LanguageModel, items: pd.DataFrame, procedure: str = "spans") -> pd.DataFrame:
    """One row per item with log P_target, log P_prior and the association."""
    if procedure == "spans":
        lm.require(Capability.FILL_SLOT, "BEC-Pro's association")
        values = _spans_logprobs(lm, items)
    elif procedure == "bartl":
        lm.require(Capability.READ_MASKED_PAIR, "BEC-Pro's published procedure")
        values = lm.masked_pair_logprobs(bartl_requests(items))
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
    """(log P_target, log P_prior) with exactly the stored spans hidden (``SlotRule.JOINT``)."""
    requests = []
    for row in items.itertuples(index=False):
        person = _person_slot(row)
        ((start, end),) = person.spans
        word = row.sentence[start:end]
        professions = tuple(
            (int(w["start"]), int(w["end"])) for w in map(dict, as_list(row.profession_word_spans))
        )
        requests += [SlotFill(person, (word,)), SlotFill(person, (word,), masked=professions)]
    values = lm.slot_logprobs(requests)
    return [(values[2 * i][0], values[2 * i + 1][0]) for i in range(len(items))]


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


def bartl_requests(items: pd.DataFrame) -> list[MaskedPair]:
    """One ``MaskedPair`` per item: the sentence, its ``Sent_TM`` and ``Sent_TAM``."""
    masks = [tsv_masks(row) for row in items.itertuples(index=False)]
    width = bartl_width([target for target, _ in masks])
    requests = []
    for row, (target, prior) in zip(items.itertuples(index=False), masks, strict=True):
        if MARKER not in target:
            raise InputError(
                "dataset",
                f"person {row.person!r} does not start a word of the sentence",
                record=row.id,
            )
        requests.append(
            MaskedPair(
                row.sentence, Slot.at_marker(target, MARKER), Slot.at_marker(prior, MARKER), width
            )
        )
    return requests


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
