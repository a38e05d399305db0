"""Checks after translation: failures, structure, and the paper's adaptation flags.

Four ``reject`` checks remove items that came back unusable, each with its reason:

* ``translation`` — a text of the item could not be translated (the reason says why; a rerun
  retries them, unless the text was refused as too long to send);
* ``structure`` — the alignment was lost: the engine dropped the attribute's XML tag or the
  context's slot, or a reviewer's sentence does not fit the context, so the triplet cannot be
  made identical except for the attribute (a test that is not one);
* ``empty_context`` — the translated context is empty (or only the slot);
* ``distinct_sentences`` — two of the three translated sentences are the same, or one is
  empty: an engine that answers a fixed text (DeepL's own mock server does) or collapses
  near-synonyms leaves nothing to compare.

The others are ``review`` checks: they keep the item and tell annotators what to adapt, as the
French authors did by hand (§2.1):

* ``gender_agreement`` — the target language agrees words outside the slot with the attribute
  (articles, possessives: "un/une"), so the three sentences cannot share one frame; the paper
  put about 5 % of contexts in the plural ("des vodkas/whiskies");
* ``no_exact_translation`` — a source word has no gender-neutral rendering (nurse →
  infirmier/infirmière; the paper used "soignants", "sauveurs"), from an editable lexicon;
* ``unrelated_plausible`` — the "unrelated" filler translates differently inside the sentence
  than alone: the engine bent it towards a coherent reading, while it must stay absurd (the
  paper reworked about 40 % of them).

Inputs are private columns the pipeline fills (``_error``, ``_structure_status``, …); the checks
only read them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from biasforge.curation.checks import Check, verdicts
from biasforge.curation.language_pack import LanguagePack
from biasforge.curation.tables import read_tsv


@dataclass(frozen=True)
class NoExact:
    word: str
    renderings: str
    suggestion: str


def read_no_exact_lexicon(
    path: str | Path | None, lang: str, encoding: str = "utf-8"
) -> list[NoExact]:
    """Entries of a no-exact-translation lexicon (a language pack's, or ``--lexicon``) for one
    target language; None: no lexicon. A file with a ``lang`` column (one lexicon for several
    languages) gives the rows of ``lang`` only."""
    if path is None:
        return []
    rows = read_tsv(
        path,
        ["word", "renderings", "suggestion"],
        non_empty=["word", "renderings"],
        encoding=encoding,
    )
    return [
        NoExact(row["word"].lower(), row["renderings"], row["suggestion"])
        for _, row in rows
        if row.get("lang", lang).lower() == lang.lower()
    ]


def retryable_failure(reason: str) -> bool:
    """A ``translation`` rejection that a rerun may fix (network, rate limit, server error);
    not a text refused as too long to send (the runner's reasons start with ``refused:``)."""
    return reason.startswith("translation:") and not reason.startswith("translation: refused:")


def _translation(batch: pd.DataFrame) -> pd.DataFrame:
    errors = batch["_error"]
    return verdicts(
        errors.isna(),
        ["translated" if e is None or pd.isna(e) else e for e in errors],
        batch.index,
    )


def _structure(batch: pd.DataFrame) -> pd.DataFrame:
    passed = batch["_structure_status"].isin(["identical", "uniformised", "n/a"])
    return verdicts(passed, batch["_structure_detail"], batch.index)


def _empty_context(batch: pd.DataFrame) -> pd.DataFrame:
    """The context must say something besides the slot."""
    words = batch["context"].map(lambda c: re.sub(r"\bBLANK\b|\W", "", c or ""))
    passed = words != ""
    detail = ["context translated" if ok else "the translated context is empty" for ok in passed]
    return verdicts(passed, detail, batch.index)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def _sentences_problem(sentences: list) -> str | None:
    texts = [_norm(s["sentence"] or "") for s in sentences]
    empty = [str(i + 1) for i, t in enumerate(texts) if not t]
    if empty:
        return f"translated sentence(s) {', '.join(empty)} empty"
    if len(set(texts)) == len(texts):
        return None
    same = [s["label"] for s, t in zip(sentences, texts, strict=True) if texts.count(t) > 1]
    return f"the {' and '.join(same)} sentences came back identical: nothing left to compare"


def _distinct_sentences(batch: pd.DataFrame) -> pd.DataFrame:
    problems = [_sentences_problem(list(s)) for s in batch["sentences"]]
    detail = [p or "the three sentences differ" for p in problems]
    return verdicts([p is None for p in problems], detail, batch.index)


def gender_agreement_check(pack: LanguagePack) -> Check:
    """Frames that differ outside the slot, and a slot right after a word that agrees with
    what fills it (the pack's ``before_slot`` words: ``le``/``la``, ``der``/``die``, 个/位)."""
    slot_words = pack.slot_words

    def fn(batch: pd.DataFrame) -> pd.DataFrame:
        passed, detail = [], []
        for status, diffs, before in zip(
            batch["_structure_status"],
            batch["_frame_diffs"],
            batch["_word_before_slot"],
            strict=True,
        ):
            if status == "n/a":
                passed.append(True)
                detail.append("not applicable (intersentence)")
                continue
            reasons = []
            if diffs:
                reasons.append(
                    "the translated sentences disagree outside the slot (" + "; ".join(diffs) + ")"
                )
            if before in slot_words:
                reasons.append(f"the slot follows the {slot_words[before].described_as} {before!r}")
            passed.append(not reasons)
            detail.append(
                "no agreement outside the slot"
                if not reasons
                else "; ".join(reasons) + ": consider a plural rewording so every attribute fits"
            )
        return verdicts(passed, detail, batch.index)

    return Check(
        "gender_agreement",
        fn,
        "review",
        "no word outside the slot must agree with the attribute",
    )


def no_exact_check(lexicon: list[NoExact]) -> Check:
    patterns = [(e, re.compile(rf"\b{re.escape(e.word)}\b", re.I)) for e in lexicon]

    def fn(batch: pd.DataFrame) -> pd.DataFrame:
        passed, detail = [], []
        for target, sources in zip(batch["_target_en"], batch["source_sentences"], strict=True):
            text = " ".join([target, *sources])
            hits = [e for e, pattern in patterns if pattern.search(text)]
            passed.append(not hits)
            detail.append(
                "every source word has an exact translation"
                if not hits
                else "; ".join(
                    f"{e.word!r} has no exact translation ({e.renderings})"
                    + (f", consider {e.suggestion}" if e.suggestion else "")
                    for e in hits
                )
            )
        return verdicts(passed, detail, batch.index)

    return Check(
        "no_exact_translation",
        fn,
        "review",
        "source words with no gender-neutral rendering in the target language",
    )


def _article_pattern(pack: LanguagePack) -> re.Pattern[str] | None:
    """An article of the pack opening a text, followed by a space; None: the pack has none."""
    if not pack.spec.articles:
        return None
    return re.compile(rf"^({'|'.join(re.escape(a) for a in pack.spec.articles)})\s+", re.I)


def _strip_article(text: str, articles: re.Pattern[str] | None) -> str:
    text = text.strip().lower()
    return (articles.sub("", text) if articles else text).strip(" .,!?")


def unrelated_check(pack: LanguagePack) -> Check:
    articles = _article_pattern(pack)

    def fn(batch: pd.DataFrame) -> pd.DataFrame:
        return _unrelated(batch, articles)

    return Check(
        "unrelated_plausible",
        fn,
        "review",
        "the unrelated attribute keeps its absurd meaning in the sentence",
    )


def _unrelated(batch: pd.DataFrame, articles: re.Pattern[str] | None) -> pd.DataFrame:
    passed, detail = [], []
    for alone, inside, source in zip(
        batch["_unrelated_alone"], batch["_unrelated_inside"], batch["_unrelated_en"], strict=True
    ):
        if alone is None or inside is None or pd.isna(alone) or pd.isna(inside):
            passed.append(True)
            detail.append("not applicable")
            continue
        same = _strip_article(alone, articles) == _strip_article(inside, articles)
        passed.append(same)
        detail.append(
            f"{source!r} translates as {inside!r} in the sentence and {alone!r} alone"
            if same
            else f"unrelated {source!r} became {inside!r} in the sentence but is {alone!r} "
            "alone: the translation may have made it plausible; make it absurd again"
        )
    return verdicts(passed, detail, batch.index)


def post_translation_checks(pack: LanguagePack, lexicon: list[NoExact]) -> list[Check]:
    return [
        Check("translation", _translation, "reject", "every text of the item was translated"),
        Check(
            "structure",
            _structure,
            "reject",
            "intrasentence alignment kept: sentences identical except for the attribute",
        ),
        Check("empty_context", _empty_context, "reject", "the translated context is not empty"),
        Check(
            "distinct_sentences",
            _distinct_sentences,
            "reject",
            "the three translated sentences are non-empty and pairwise different",
        ),
        gender_agreement_check(pack),
        no_exact_check(lexicon),
        unrelated_check(pack),
    ]
