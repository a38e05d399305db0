"""BEC-Pro (Bartl et al. 2020; Azpillaga Rivera 2021): Kurita association of person and profession.

association = log(P_target / P_prior), where P_target is the probability of the person word
at its masks with only the person word masked, and P_prior the same probability with the
person word and every profession word masked too (each word replaced by as many mask tokens
as the model's tokenizer needs for it). A multi-token person word's probability is the
product over its masks. Tables follow the TFG (Tables 4.4–4.8): mean, std, min, max and
quartiles by profession group × person gender, and P(f) − P(m), the difference of the mean
association for female and male persons. This is a masked-LM measure; other kinds are refused.
"""

from __future__ import annotations

import pandas as pd

from biasforge.errors import BiasforgeError, InputError
from scoring.data import as_list
from scoring.masking import render, word_ids
from scoring.models import LanguageModel

GROUP_ORDER = ("balanced", "female", "male")


def score_items(lm: LanguageModel, items: pd.DataFrame) -> pd.DataFrame:
    """One row per item with log P_target, log P_prior and the association."""
    if lm.kind != "masked":
        raise BiasforgeError(
            f"{lm.name} is a {lm.kind} model; BEC-Pro's association needs a masked language model"
        )
    mask = lm.tokenizer.mask_token
    requests = []
    for row in items.itertuples(index=False):
        text = row.sentence
        person = dict(row.person_span)
        p_start, p_end = int(person["start"]), int(person["end"])
        if p_end <= p_start or p_end > len(text):
            raise InputError("dataset", f"bad person_span {p_start}:{p_end}", record=row.id)
        person_ids = word_ids(lm, text, p_start, p_end)
        target_text = render(text, [(person, len(person_ids))], mask)
        requests.append((target_text, person_ids))
        spans = [(person, len(person_ids))]
        for word_span in as_list(row.profession_word_spans):
            w = dict(word_span)
            spans.append((w, len(word_ids(lm, text, int(w["start"]), int(w["end"])))))
        spans.sort(key=lambda item: int(item[0]["start"]))
        targets: list[int | None] = []
        for span, n in spans:
            targets += person_ids if span is person else [None] * n
        requests.append((render(text, spans, mask), targets))
    values = lm.masked_logprobs(requests)
    rows = []
    for i, row in enumerate(items.itertuples(index=False)):
        target = float(sum(values[2 * i]))
        prior = float(sum(v for v in values[2 * i + 1] if v is not None))
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
