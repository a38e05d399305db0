"""Each annotator at a glance (issue 38): what they answered, how they agree, how they do on
control items, their estimated competence and their pace — and a plot of competence.

Figures per annotator, over the run's items (control items apart):

* answered / discarded: records they submitted (control items included, as in the
  per-question competence counts, which the models fit on the controls too: issue 47, item 9)
  / discarded;
* pairwise agreement: share of their answers equal to another annotator's on the same record
  and question (all judged questions, weighted by items; :mod:`biasforge.annotation.review.agreement`);
* control accuracy: share of right answers on control items (:mod:`biasforge.annotation.review.controls`);
* competence: MACE's θ and Dawid–Skene's accuracy over all judged questions
  (:mod:`biasforge.annotation.review.competence`);
* time per record: the median time between two of their consecutive answers, from the
  responses' timestamps, leaving out gaps over :data:`BREAK_S` (a break, not a record).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

BREAK_S = 30 * 60
PLOT = "competence.png"


def pace(times: pd.DataFrame) -> dict[str, float | None]:
    """Median seconds between consecutive answers per annotator (``times``: columns
    ``annotator``, ``at`` as ISO timestamps), breaks over :data:`BREAK_S` left out."""
    if times.empty:
        return {}
    stamps = times.assign(at=pd.to_datetime(times["at"], utc=True, format="ISO8601"))
    out: dict[str, float | None] = {}
    for who, group in stamps.groupby("annotator"):
        gaps = group["at"].sort_values().diff().dt.total_seconds().dropna()
        gaps = gaps[gaps <= BREAK_S]
        out[str(who)] = float(gaps.median()) if len(gaps) else None
    return out


def _pairwise(questions: dict[str, Any], who: str) -> float | None:
    weighted = total = 0.0
    for figures in questions.values():
        mine = figures.get("per_annotator", {}).get(who) or {}
        if mine.get("pairwise_agreement") is not None and mine.get("items"):
            weighted += mine["pairwise_agreement"] * mine["items"]
            total += mine["items"]
    return weighted / total if total else None


def figures(
    answers: dict[str, list[Any]],
    items: set[str],
    questions: dict[str, Any],
    controls: dict[str, Any],
    competence: dict[str, dict[str, Any]],
    times: pd.DataFrame,
) -> dict[str, dict[str, Any]]:
    """One row of figures per annotator (see the module docstring)."""
    counts: dict[str, dict[str, int]] = {}
    for rid, given in answers.items():
        if rid not in items:
            continue
        for answer in given:
            mine = counts.setdefault(answer.user, {"submitted": 0, "discarded": 0})
            if answer.status in mine:
                mine[answer.status] += 1
    speed = pace(times[times["id"].isin(items)] if not times.empty else times)
    people = sorted(set(counts) | set(controls) | set(competence))
    return {
        who: {
            "answered": counts.get(who, {}).get("submitted", 0)
            + (controls.get(who) or {}).get("controls", 0),
            "discarded": counts.get(who, {}).get("discarded", 0),
            "pairwise_agreement": _pairwise(questions, who),
            "controls": (controls.get(who) or {}).get("controls", 0),
            "control_accuracy": (controls.get(who) or {}).get("accuracy"),
            "competence": (competence.get(who) or {}).get("mace"),
            "dawid_skene": (competence.get(who) or {}).get("dawid_skene"),
            "seconds_per_record": speed.get(who),
        }
        for who in people
    }


def plot(people: dict[str, dict[str, Any]], minimum: float, path: Path) -> bool:
    """A bar chart of each annotator's competence (MACE θ) and Dawid–Skene accuracy, with the
    ``--min-competence`` line; False (nothing written) when no competence was estimated."""
    from matplotlib.figure import Figure

    names = [w for w, f in people.items() if f["competence"] is not None]
    if not names:
        return False
    figure = Figure(figsize=(7, 1.2 + 0.45 * len(names)), layout="constrained")
    axes = figure.subplots()
    rows = range(len(names))
    axes.barh(
        [r + 0.2 for r in rows],
        [people[w]["competence"] for w in names],
        height=0.4,
        label="competence (MACE θ)",
        color="#1f77b4",
    )
    axes.barh(
        [r - 0.2 for r in rows],
        [people[w]["dawid_skene"] for w in names],
        height=0.4,
        label="accuracy (Dawid–Skene)",
        color="#aec7e8",
    )
    axes.axvline(minimum, color="#d62728", linestyle="--", label=f"--min-competence {minimum:g}")
    axes.set_yticks(list(rows), names)
    axes.set_xlim(0, 1)
    axes.invert_yaxis()
    axes.set_xlabel("estimate over all judged questions")
    axes.legend(loc="lower right", fontsize="small")
    figure.savefig(path, dpi=100, metadata={"Software": None})
    return True
