"""Checks after translation: failures, structure, and the paper's adaptation flags.

``translation`` rejects items whose texts could not be translated (the reason says why; a
rerun retries them). The others are ``review`` checks: they keep the item and tell annotators
what to adapt, as the French authors did by hand (§2.1):

* ``structure`` — the triplet could not be made identical except for the attribute;
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

from curation.checks import Check, verdicts
from curation.tables import read_tsv

DEFAULT_LEXICON = (
    Path(__file__).resolve().parents[1] / "data" / "stereoset" / "no_exact_translation.tsv"
)

#: determiners/possessives that agree in gender with the next word
GENDERED_BEFORE_SLOT = {
    "fr": {
        "le",
        "la",
        "un",
        "une",
        "du",
        "au",
        "son",
        "sa",
        "mon",
        "ma",
        "ton",
        "ta",
        "ce",
        "cet",
        "cette",
    },
    "es": {"el", "la", "un", "una", "del", "al", "este", "esta", "ese", "esa", "aquel", "aquella"},
    "it": {"il", "lo", "la", "un", "uno", "una", "del", "della", "questo", "questa"},
    "de": {"der", "die", "das", "ein", "eine", "einen", "einem", "einer", "sein", "seine"},
}
_ARTICLES = re.compile(
    r"^(le|la|les|l'|un|une|des|du|de la|de l'|el|los|las|una|der|die|das|ein|eine)\s+", re.I
)


@dataclass(frozen=True)
class NoExact:
    word: str
    renderings: str
    suggestion: str


def read_no_exact_lexicon(path: str | Path | None, lang: str) -> list[NoExact]:
    """Entries of the no-exact-translation lexicon for one target language."""
    rows = read_tsv(
        path or DEFAULT_LEXICON,
        ["lang", "word", "renderings", "suggestion"],
        non_empty=["lang", "word", "renderings"],
    )
    return [
        NoExact(row["word"].lower(), row["renderings"], row["suggestion"])
        for _, row in rows
        if row["lang"].lower() == lang.lower()
    ]


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


def gender_agreement_check(lang: str) -> Check:
    gendered = GENDERED_BEFORE_SLOT.get(lang.split("-")[0].lower(), set())

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
            if before in gendered:
                reasons.append(f"the slot follows the gendered word {before!r}")
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


def _strip_article(text: str) -> str:
    return _ARTICLES.sub("", text.strip().lower()).strip(" .,!?")


def _unrelated(batch: pd.DataFrame) -> pd.DataFrame:
    passed, detail = [], []
    for alone, inside, source in zip(
        batch["_unrelated_alone"], batch["_unrelated_inside"], batch["_unrelated_en"], strict=True
    ):
        if alone is None or inside is None or pd.isna(alone) or pd.isna(inside):
            passed.append(True)
            detail.append("not applicable")
            continue
        same = _strip_article(alone) == _strip_article(inside)
        passed.append(same)
        detail.append(
            f"{source!r} translates as {inside!r} in the sentence and {alone!r} alone"
            if same
            else f"unrelated {source!r} became {inside!r} in the sentence but is {alone!r} "
            "alone: the translation may have made it plausible; make it absurd again"
        )
    return verdicts(passed, detail, batch.index)


def post_translation_checks(lang: str, lexicon: list[NoExact]) -> list[Check]:
    return [
        Check("translation", _translation, "reject", "every text of the item was translated"),
        Check(
            "structure",
            _structure,
            "review",
            "intrasentence sentences are identical except for the attribute",
        ),
        gender_agreement_check(lang),
        no_exact_check(lexicon),
        Check(
            "unrelated_plausible",
            _unrelated,
            "review",
            "the unrelated attribute keeps its absurd meaning in the sentence",
        ),
    ]
