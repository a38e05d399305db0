"""Label preservation: do the labels decided blind equal the labels the source gave? (issue 38)

For a family whose source carries labels (its ``source_labels`` hook, e.g. StereoSet's
stereotype / anti-stereotype / unrelated per sentence), annotators of the adaptation give the
labels again without seeing them. Per accepted item, the decided labels are compared with the
source's; per domain (the family's ``label_domain`` column) and overall, the share preserved
is reported with a 95% **Wilson score interval** (``statsmodels``' ``proportion_confint``,
``method="wilson"``): it stays inside [0, 1] and keeps close to its nominal coverage with few
items and shares near 1, where the textbook normal interval runs past 1 and under-covers, and
it is less conservative than Clopper–Pearson's exact interval.

An item whose labels changed is either a translation that broke it or a stereotype that does
not hold in the target culture (the French paper's own stated limit, §5): the report lists
each with the annotators' notes, the reviewed records and the release mark it in
``labels_changed``, and ``export release --exclude-changed`` leaves such items out.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from biasforge.families import Family

CONFIDENCE = 0.95


def interval(preserved: int, total: int) -> tuple[float, float]:
    """The 95% Wilson score interval of ``preserved / total``."""
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(preserved, total, alpha=1 - CONFIDENCE, method="wilson")
    return float(low), float(high)


def labels_changed(
    family: Family, before: dict[str, Any], after: dict[str, Any], decision: str
) -> bool | None:
    """Whether review decided other labels than the source's for an accepted item (None for
    an item not accepted: no labels were decided for it)."""
    labels = family.review.source_labels
    if labels is None or decision != "accept":
        return None
    return labels(before) != labels(after)


def _share(preserved: int, total: int) -> dict[str, Any]:
    low, high = interval(preserved, total) if total else (None, None)
    return {
        "items": total,
        "preserved": preserved,
        "share": preserved / total if total else None,
        "low": low,
        "high": high,
    }


def preservation(
    family: Family,
    pairs: list[tuple[dict[str, Any], dict[str, Any]]],
    notes: dict[str, list[tuple[str, str]]],
) -> dict[str, Any] | None:
    """The figures over the accepted items (``pairs``: the candidate row as the source gave
    it, the reviewed row); None for a family whose source carries no labels. ``notes``:
    record id -> (annotator, note) of its answers, listed with the changed items."""
    labels = family.review.source_labels
    if labels is None:
        return None
    domain_column = family.review.label_domain
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    items = []
    for before, after in pairs:
        domain = str(before.get(domain_column)) if domain_column else "all"
        was, now = labels(before), labels(after)
        counts[domain][1] += 1
        if was == now:
            counts[domain][0] += 1
            continue
        rid = str(before["id"])
        items.append(
            {
                "id": rid,
                "domain": domain,
                "text": str(before.get(family.text_column) or ""),
                "source": was,
                "decided": now,
                "notes": [f"{who}: {note}" for who, note in notes.get(rid, []) if note],
            }
        )
    kept = sum(c[0] for c in counts.values())
    total = sum(c[1] for c in counts.values())
    return {
        "method": "Wilson score interval (statsmodels proportion_confint), 95%",
        "domain_column": domain_column,
        "overall": _share(kept, total),
        "domains": {d: _share(*counts[d]) for d in sorted(counts)},
        "changed": items,
    }
