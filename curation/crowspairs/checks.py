"""Checks after translation: a pair that came back unusable is rejected with its reason; one
whose sentences had to be uniformised is kept and flagged (an agreement that may not carry
over). A same-language run meets the same checks, which its pairs pass as ``n/a``."""

from __future__ import annotations

import pandas as pd

from biasforge.curation.checks import Check, verdicts


def _translation(batch: pd.DataFrame) -> pd.DataFrame:
    errors = [None if e is None or pd.isna(e) else str(e) for e in batch["_error"]]
    return verdicts([e is None for e in errors], [e or "translated" for e in errors], batch.index)


def _structure(batch: pd.DataFrame) -> pd.DataFrame:
    passed = batch["_status"].isin(["identical", "uniformised", "n/a"])
    return verdicts(passed, batch["_detail"], batch.index)


def _distinct(batch: pd.DataFrame) -> pd.DataFrame:
    same = [
        not m.strip() or not n.strip() or " ".join(m.lower().split()) == " ".join(n.lower().split())
        for m, n in zip(batch["sent_more"], batch["sent_less"], strict=True)
    ]
    detail = [
        "the group words translate the same (or a sentence is empty): nothing to compare"
        if s
        else "the sentences differ"
        for s in same
    ]
    return verdicts([not s for s in same], detail, batch.index)


def _carried_over(batch: pd.DataFrame) -> pd.DataFrame:
    flagged = batch["_status"] == "uniformised"
    detail = [
        d if f else "the pair differs only in the group words"
        for d, f in zip(batch["_detail"], flagged, strict=True)
    ]
    return verdicts(~flagged, detail, batch.index)


def post_translation_checks() -> list[Check]:
    return [
        Check("translation", _translation, "reject", "both sentences were translated"),
        Check("structure", _structure, "reject", "the group-word tags came back"),
        Check("distinct", _distinct, "reject", "the translated sentences differ"),
        Check(
            "carried_over",
            _carried_over,
            "review",
            "the translations differ only in the group words",
        ),
    ]
