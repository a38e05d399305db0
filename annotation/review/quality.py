"""What ``pull`` learns about the annotators and the adaptation (issue 38), in one place.

:func:`assess` runs before the decisions (a model policy needs the competence estimates);
:func:`summarise` after them (label preservation needs the decided rows). Control items are
answers on records that are not the run's: they count for the annotators' control accuracy
and competence, never for agreement, decisions or preservation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from biasforge.annotation.review import annotators, competence, controls, preservation
from biasforge.annotation.review.decide import MODEL_POLICIES
from biasforge.families import Family

DEFAULT_MIN_COMPETENCE = 0.5


@dataclass
class Quality:
    controls: list[controls.ControlItem]
    estimates: competence.Estimates
    items: set[str]  # the run's record ids
    min_competence: float = DEFAULT_MIN_COMPETENCE
    summary: dict[str, Any] = field(default_factory=dict)


def _shared(long: pd.DataFrame) -> bool:
    """Whether some question has answers from two or more annotators (else no model)."""
    submitted = long[long["status"] == "submitted"]
    return bool((submitted.groupby("question")["annotator"].nunique() >= 2).any())


def assess(
    family: Family,
    long: pd.DataFrame,
    items: set[str],
    control_items: list[controls.ControlItem],
    *,
    policy: str,
    min_competence: float = DEFAULT_MIN_COMPETENCE,
) -> Quality:
    """Fit the annotator models on the answers to the run's items and the controls."""
    known = {c.id: c.expected for c in control_items}
    scope = long[long["id"].isin(items | set(known))]
    estimates = (
        competence.estimate(scope, family.review.label_questions, known, family.review.joint)
        if policy in MODEL_POLICIES or _shared(scope)
        else competence.Estimates()
    )
    return Quality(control_items, estimates, items, min_competence)


def items_only(long: pd.DataFrame, items: set[str]) -> pd.DataFrame:
    """The answers to the run's items (what agreement is computed on: no control item)."""
    return long[long["id"].isin(items)]


def summarise(
    quality: Quality,
    family: Family,
    collected: Any,
    agreement: dict[str, Any],
    accepted: list[tuple[dict[str, Any], dict[str, Any]]],
) -> dict[str, Any]:
    """The summary entries for the report and the card: controls, competence, each
    annotator's figures, who is flagged, label preservation."""
    accuracy = controls.accuracy(quality.controls, collected.answers)
    pooled = competence.pooled(quality.estimates)
    people = annotators.figures(
        collected.answers, quality.items, agreement, accuracy, pooled, collected.times
    )
    notes = {
        rid: [(a.user, a.note) for a in collected.answers.get(rid, [])] for rid in quality.items
    }
    return {
        "controls": {"items": len(quality.controls), "per_annotator": accuracy},
        "competence": quality.estimates.questions,
        "min_competence": quality.min_competence,
        "flagged": competence.flagged(
            quality.estimates,
            quality.min_competence,
            accuracy,
            {q: len(labels) for q, (_, labels, _) in family.review.criteria.items()},
        ),
        "annotators": people,
        "preservation": preservation.preservation(family, accepted, notes),
    }
