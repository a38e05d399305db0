"""The dataset card's paragraphs on the annotators and on label preservation (issue 38).

Read from the summary ``annotate pull`` wrote (``agreement.json``): how records were decided
under a model policy, the control items (never released, never in an agreement figure), the
range of the annotators' competence (no per-person figure in a public card), and, for a
family whose source carries labels, the share of items whose blind labels equal the source's
with its interval, and what became of the items whose labels changed.
"""

from __future__ import annotations

from typing import Any

from biasforge.contract.markdown import md_table

MODEL_RULES = {
    "dawid-skene": "Dawid–Skene (crowd-kit), which weights each annotator by an estimated "
    "confusion matrix",
    "mace": "MACE (crowd-kit), which weights each annotator by an estimated competence",
}


def _items(n: int) -> str:
    return f"the {n} item" if n == 1 else f"the {n} items"


def share_text(figures: dict[str, Any]) -> str:
    if not figures.get("items"):
        return "no item"
    return (
        f"{figures['preserved']} of {figures['items']} ({figures['share']:.1%}; 95% Wilson "
        f"interval {figures['low']:.1%}–{figures['high']:.1%})"
    )


def annotators_md(agreement: dict[str, Any]) -> list[str]:
    lines = []
    rule = MODEL_RULES.get(str(agreement.get("policy")))
    if rule:
        lines.append(
            f"Each judged answer was decided as the most probable one under {rule}, fitted on "
            "every answer of the dataset; corrections (free text) were decided by majority."
        )
    controls = agreement.get("controls") or {}
    if controls.get("items"):
        per = (controls.get("per_annotator") or {}).values()
        right = sum(q["right"] for p in per for q in p["questions"].values())
        total = sum(q["answers"] for p in per for q in p["questions"].values())
        accuracy = f" (annotators' answers on them: {right} of {total} right)" if total else ""
        lines.append(
            f"{controls['items']} control items with known answers were mixed, unmarked, into "
            f"the annotators' queue{accuracy}. They are not part of this release nor of any "
            "agreement figure."
        )
    people = [f["competence"] for f in (agreement.get("annotators") or {}).values()
              if f.get("competence") is not None]  # fmt: skip
    if people:
        flagged = len(agreement.get("flagged") or {})
        lines.append(
            f"Annotator competence (MACE θ, the estimated share of answers given knowingly) "
            f"ranged from {min(people):.2f} to {max(people):.2f}; {flagged} of {len(people)} "
            f"annotators fell below {agreement.get('min_competence', 0.5):g}."
        )
    return lines


def preservation_md(agreement: dict[str, Any], excluded: int | None) -> str:
    """Label preservation for the card; ``excluded``: items left out with
    ``--exclude-changed`` (None: the option was not given)."""
    figures = agreement.get("preservation")
    if not isinstance(figures, dict) or not figures.get("overall", {}).get("items"):
        return ""
    column = figures.get("domain_column") or "domain"
    rows = [[d, share_text(f)] for d, f in figures["domains"].items()]
    changed = len(figures.get("changed") or [])
    treated = (
        f"{_items(excluded)} whose labels changed {'was' if excluded == 1 else 'were'} "
        "**excluded** from this release (`export release --exclude-changed`)"
        if excluded is not None
        else f"{_items(changed)} whose labels changed {'is' if changed == 1 else 'are'} "
        "**kept with their new labels** (column `labels_changed`)"
    )
    return "\n".join(
        [
            "Label preservation: annotators gave the labels blind, and the accepted items "
            f"whose labels equal the source's are {share_text(figures['overall'])}; {treated}. "
            "Rejected and undecided items are not counted. An item whose "
            "labels changed is a broken translation or a stereotype that does not hold in the "
            "target culture.",
            "",
            md_table([column, "labels preserved"], rows),
        ]
    )


def quality_parts(agreement: dict[str, Any], excluded: int | None) -> list[str]:
    """The card's paragraphs for one reviewed input (none when there is nothing to say)."""
    people = annotators_md(agreement)
    parts = ["\n".join(f"- {line}" for line in people)] if people else []
    preserved = preservation_md(agreement, excluded)
    return [*parts, preserved] if preserved else parts
