"""The adaptation decision (issue 44): what was done about a translated item's culture.

Annotators of a family that translates (``Review.adaptation``) answer SHADES' question, *is
this stereotype recognised where you live?* — yes as it is (``transferred``), yes but about
another group or attribute, typed in the page (``modified``), or no, with the reason
(``removed``). The answer is decided like the review's other questions, by the dataset's
policy (:func:`biasforge.annotation.review.decide.combine`), and a record without a decision
goes to adjudication with the others. Two differences, both because the question has no right
answer to estimate an annotator's competence on: under a model policy (Dawid–Skene, MACE) it
is decided by majority, as corrections are; and it is kept out of the agreement and competence
figures, which stay those of the family's own criteria.

The question is not required: an annotator who cannot tell may leave it, and only the answers
given are combined (a record where nobody answered it, as in every review from before the
question, has no decision and counts as ``transferred``, which the card reports).

A ``modified`` decision needs a replacement that the annotators who chose it agree on (after
:func:`biasforge.families.base.normalise`); a ``removed`` one needs at least one reason, and
keeps every distinct reason given.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from biasforge.contract.adaptation import MODIFIED, REMOVED, TRANSFERRED
from biasforge.families import Family
from biasforge.families.base import ADAPTATION_TEXT, CATEGORY_OF, RECOGNISED, normalise

MODEL_POLICIES = ("dawid-skene", "mace")

#: (category, note) decided for a record, or None
Adapted = tuple[str, str] | None


def _recognised(values: dict[str, Any]) -> str | None:
    value = values.get(RECOGNISED)
    return None if value is None else str(value)


def _outcome(value: str, texts: list[str], policy: str, combine) -> tuple[Adapted, str | None]:
    """The category of the decided answer ``value`` and its note, from the texts typed by
    those who gave it; or why it cannot be decided."""
    category = CATEGORY_OF.get(value)
    typed = [t for t in texts if t]
    if category is None:
        return None, f"{RECOGNISED}={value!r} is no answer of the question"
    if category == TRANSFERRED:
        return (TRANSFERRED, ""), None
    if category == REMOVED:
        if not typed:
            return None, f"{RECOGNISED}=no (removed) without a reason typed"
        return (REMOVED, "; ".join(dict.fromkeys(typed))), None
    replacement = combine(typed, policy, len(texts)) if typed else None
    if replacement is None:
        given = ", ".join(f"{t!r} {n}" for t, n in Counter(texts).most_common()) or "none"
        return None, f"no {policy} replacement for the modified item (typed: {given})"
    return (MODIFIED, replacement), None


def vote(family: Family, submitted: list[Any], policy: str, combine) -> tuple[Adapted, str | None]:
    """The adaptation decided from the submitted answers that gave one (None, None for a
    review without the question, or when nobody answered it); else (None, why) when the
    policy is not met. ``combine`` is decide's rule."""
    values = [v for a in submitted if (v := _recognised(a.values)) is not None]
    if family.review.adaptation is None or not values:
        return None, None
    policy = "majority" if policy in MODEL_POLICIES else policy  # no competence to estimate
    value = combine(values, policy, len(values))
    if value is None:
        counts = ", ".join(f"{v} {n}" for v, n in Counter(values).most_common()) or "no answer"
        return None, f"no {policy} answer on {RECOGNISED} ({counts})"
    texts = [
        normalise(a.values.get(ADAPTATION_TEXT) or "")
        for a in submitted
        if _recognised(a.values) == value
    ]
    return _outcome(value, texts, policy, combine)


def adjudicated(family: Family, values: dict[str, Any], combine) -> tuple[Adapted, str | None]:
    """The adaptation an adjudicator gave (their answer replaces every vote), or why it cannot
    be used (None, None for a review without the question)."""
    if family.review.adaptation is None:
        return None, None
    value = _recognised(values)
    if value is None:  # not answered: no decision, as for the annotators
        return None, None
    return _outcome(value, [normalise(values.get(ADAPTATION_TEXT) or "")], "unanimous", combine)


def summary(details: list[dict[str, Any]]) -> dict[str, int]:
    """Decided categories over the accepted records (for the report and agreement.json)."""
    return dict(
        Counter(d["adaptation"] for d in details if d["decision"] == "accept" and d["adaptation"])
    )
