"""Audit of the English source before anything is paid for (paper §2.1, first step).

The French adaptation removed items with obvious form errors (several target words, a context
with two slots) or that cannot be adapted (a possessive adjective as the attribute: French
agrees it with the possessed noun, English with the possessor, so "his/her notebook" becomes
"son cahier" for both) and added a few tests by replacing attributes with synonyms. Each rule
here is a :class:`biasforge.curation.checks.Check` of severity ``reject``: the item goes to
``rejected.parquet`` with the rule's reason, nothing is silently removed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from biasforge.curation.checks import Check, verdicts
from biasforge.curation.stereoset.align import SLOT, fill, source_attribute
from biasforge.curation.tables import read_tsv
from biasforge.files import stable_id

#: possessives and object pronouns: their agreement does not carry over to languages where
#: the possessive agrees with the possessed noun ("his/her notebook" → "son cahier") or the
#: object pronoun moves ("Promote him/her" → "Promouvez-le/la"). Subject pronouns (he/she)
#: carry over; agreement they force elsewhere is caught by the gender_agreement flag.
PRONOUNS = {
    "his",
    "her",
    "hers",
    "him",
    "their",
    "theirs",
    "its",
    "my",
    "mine",
    "your",
    "yours",
    "our",
    "ours",
}
_SEVERAL = re.compile(r"[,/;&+]|\b(and|or)\b", re.I)


def _intra(batch: pd.DataFrame) -> pd.Series:
    return batch["split"] == "intrasentence"


def _blank_slot(batch: pd.DataFrame) -> pd.DataFrame:
    counts = batch["context"].str.count(SLOT)
    ok = ~_intra(batch) | (counts == 1)
    detail = [
        "one slot" if good else f"context has {n} {SLOT} slots, the test needs exactly one"
        for good, n in zip(ok, counts, strict=True)
    ]
    return verdicts(ok, detail, batch.index)


def _several_targets(batch: pd.DataFrame) -> pd.DataFrame:
    found = batch["target"].map(lambda t: _SEVERAL.search(t))
    ok = found.isna()
    detail = [
        "one target term" if m is None else f"target {t!r} names several terms ({m.group(0)!r})"
        for m, t in zip(found, batch["target"], strict=True)
    ]
    return verdicts(ok, detail, batch.index)


def _judge_intrasentence(
    batch: pd.DataFrame, judge: Callable[[str, list], str | None], ok: str
) -> pd.DataFrame:
    """Verdicts from ``judge(context, sentences)`` (a problem, or None) on intrasentence rows;
    intersentence rows pass as not applicable."""
    passed, detail = [], []
    for split, context, sentences in zip(
        batch["split"], batch["context"], batch["sentences"], strict=True
    ):
        if split != "intrasentence":
            passed.append(True)
            detail.append("not applicable (intersentence)")
            continue
        problem = judge(context, sentences)
        passed.append(problem is None)
        detail.append(problem or ok)
    return verdicts(passed, detail, batch.index)


def _frame_problem(context: str, sentences: list) -> str | None:
    bad = [s["label"] for s in sentences if source_attribute(context, s["sentence"]) is None]
    if not bad:
        return None
    return f"{', '.join(bad)} sentence does not match the context around {SLOT}"


def _frame_mismatch(batch: pd.DataFrame) -> pd.DataFrame:
    return _judge_intrasentence(batch, _frame_problem, "every sentence fills the context's slot")


def _possessive_problem(context: str, sentences: list) -> str | None:
    # the unrelated filler is meant to be absurd ("mine" there is the noun)
    attrs = [
        source_attribute(context, s["sentence"]) or ""
        for s in sentences
        if s["label"] != "unrelated"
    ]
    bad = [a for a in attrs if a.split() and a.split()[0].lower() in PRONOUNS]
    if not bad:
        return None
    return (
        f"attribute(s) {', '.join(repr(a) for a in bad)} are possessives/pronouns whose "
        "agreement follows the possessed noun in the target language, not the possessor"
    )


def _possessive(batch: pd.DataFrame) -> pd.DataFrame:
    return _judge_intrasentence(batch, _possessive_problem, "no pronoun attribute")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower())


def _duplicate(batch: pd.DataFrame) -> pd.DataFrame:
    first: dict[tuple, str] = {}
    passed, detail = [], []
    for row in batch.itertuples(index=False):
        key = (
            row.split,
            _norm(row.target),
            _norm(row.context),
            tuple(_norm(s["sentence"]) for s in row.sentences),
        )
        if key in first:
            passed.append(False)
            detail.append(f"duplicate of {first[key]}")
        else:
            first[key] = f"{row.source_id} ({row.origin})"
            passed.append(True)
            detail.append("first occurrence")
    return verdicts(passed, detail, batch.index)


#: the longest text a StereoSet item may hold: its texts are one sentence each (the longest of
#: the official dev set has a few hundred characters); a longer one is a broken or foreign file,
#: and would be sent to DeepL and shown to annotators whole
MAX_TEXT_CHARS = 2_000


def _text_length(batch: pd.DataFrame) -> pd.DataFrame:
    passed, detail = [], []
    for row in batch.itertuples(index=False):
        texts = {"target": row.target, "context": row.context}
        texts |= {
            s.get("label", f"sentence {i}"): s["sentence"] for i, s in enumerate(row.sentences)
        }
        long = {name: len(text) for name, text in texts.items() if len(text) > MAX_TEXT_CHARS}
        passed.append(not long)
        detail.append(
            "; ".join(f"{name} is {n:,} characters long" for name, n in long.items())
            + f" (a StereoSet text is one sentence, at most {MAX_TEXT_CHARS:,} characters)"
            if long
            else "texts of sentence length"
        )
    return verdicts(passed, detail, batch.index)


AUDIT_CHECKS = [
    Check("text_length", _text_length, "reject", "every text is at most one sentence long"),
    Check("blank_slot", _blank_slot, "reject", "intrasentence context has exactly one BLANK"),
    Check("several_targets", _several_targets, "reject", "the target names a single term"),
    Check(
        "frame_mismatch",
        _frame_mismatch,
        "reject",
        "each intrasentence sentence is the context with the slot filled",
    ),
    Check(
        "possessive_attribute",
        _possessive,
        "reject",
        "attribute is not a possessive/pronoun (agreement cannot carry over)",
    ),
    Check("duplicate", _duplicate, "reject", "item is not a copy of an earlier one"),
]

#: rules about what cannot carry over to another language: a same-language run skips them
#: (an English "his/her" is a fine English test)
TRANSLATION_ONLY = frozenset({"possessive_attribute"})


def audit_checks(same_language: bool) -> list[Check]:
    """The audit for a run: all rules, or (source language = target) the form rules only."""
    if not same_language:
        return AUDIT_CHECKS
    return [c for c in AUDIT_CHECKS if c.name not in TRANSLATION_ONLY]


def read_synonyms(path: str | Path, encoding: str = "utf-8") -> list[dict[str, str]]:
    """A TSV with columns ``attribute``, ``synonym`` and optionally ``target``.

    A missing file or a bad row is an :class:`~biasforge.errors.InputError` naming the file
    and line (see :func:`biasforge.curation.tables.read_tsv`), raised before anything is translated.
    """
    rows = read_tsv(
        path, ["attribute", "synonym"], non_empty=["attribute", "synonym"], encoding=encoding
    )
    return [row for _, row in rows]


def synonym_variants(items: pd.DataFrame, synonyms: list[dict[str, str]]) -> pd.DataFrame:
    """New intrasentence items: one attribute replaced by a synonym (paper §2.1).

    A variant keeps its source item's ``source_id`` and gets ``variant`` = ``syn:LABEL:WORD``.
    """
    if not synonyms:
        return items.iloc[0:0]
    rows = []
    for row in items[items["split"] == "intrasentence"].itertuples(index=False):
        for entry in synonyms:
            if entry.get("target") and _norm(entry["target"]) != _norm(row.target):
                continue
            for i, sentence in enumerate(row.sentences):
                attribute = source_attribute(row.context, sentence["sentence"])
                if attribute is None or _norm(attribute) != _norm(entry["attribute"]):
                    continue
                variant = f"syn:{sentence['label']}:{entry['synonym']}"
                new_sentences = [dict(s) for s in row.sentences]
                new_sentences[i] = {
                    "id": stable_id(sentence["id"], variant),
                    "label": sentence["label"],
                    "sentence": fill(row.context, entry["synonym"]),
                }
                rows.append({**row._asdict(), "sentences": new_sentences, "variant": variant})
    return pd.DataFrame(rows, columns=items.columns) if rows else items.iloc[0:0]
