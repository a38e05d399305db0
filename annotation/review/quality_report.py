"""The report's sections on the annotators and on label preservation (issue 38).

Written for the maintainer: each annotator's figures side by side (what a low one means is
in ``docs/annotator-quality.md``), who falls below ``--min-competence`` as a To-do, and the
items whose labels changed from the source's, with the annotators' notes.
"""

from __future__ import annotations

from typing import Any

from biasforge.contract.markdown import excerpt, md_table

FEW_CONTROLS = 10  # below this many answered controls, an accuracy says little


def _figure(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _seconds(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"


def annotators_md(summary: dict[str, Any]) -> list[str]:
    people = summary.get("annotators") or {}
    if not people:
        return []
    minimum = summary.get("min_competence")
    flagged = summary.get("flagged") or {}
    rows = [
        [
            who,
            f["answered"],
            f["discarded"],
            _figure(f["pairwise_agreement"]),
            f"{_figure(f['control_accuracy'])} ({f['controls']})",
            _figure(f["competence"]),
            _figure(f["dawid_skene"]),
            _seconds(f["seconds_per_record"]),
            "**below threshold**" if who in flagged else "",
        ]
        for who, f in people.items()
    ]
    header = [
        "annotator",
        "answered (controls included)",
        "discarded",
        "pairwise agreement",
        "control accuracy (controls)",
        "competence (MACE θ)",
        "accuracy (Dawid–Skene)",
        "time per record",
        "flag",
    ]
    lines = ["## Annotators", "", md_table(header, rows), ""]
    controls = summary.get("controls") or {}
    mixed = (
        f"Control items mixed into the queue: {controls['items']} (left out of the decisions, "
        "the agreement figures and the reviewed records)."
        if controls.get("items")
        else "No control items were pushed (`annotate push --controls`): control accuracy is "
        "unknown."
    )
    lines.append(
        f"{mixed} Competence is estimated per question; the threshold (`--min-competence`) is "
        f"{minimum:g} on MACE's θ. Time per record: the median time between an annotator's "
        "consecutive answers, breaks over 30 min left out."
    )
    if summary.get("plot"):
        lines += ["", f"![Competence by annotator]({summary['plot']})"]
    lines += _per_question(summary.get("competence") or {})
    lines += _todo(people, flagged, minimum, controls)
    return lines


def _per_question(competence: dict[str, Any]) -> list[str]:
    if not competence:
        return []
    people = sorted({w for q in competence.values() for w in q["annotators"]})
    rows = []
    for question, figures in competence.items():
        cells = []
        for who in people:
            f = figures["annotators"].get(who)
            cells.append(
                "–"
                if f is None
                else f"{_figure(f['mace'])} / {_figure(f['dawid_skene'])} ({f['answers']})"
            )
        rows.append([question, *cells, "; ".join(figures.get("notes") or [])])
    return [
        "",
        "### Competence per question: MACE θ / Dawid–Skene accuracy (answers, controls included)",
        "",
        md_table(["question", *people, "note"], rows),
    ]


def _todo(
    people: dict[str, Any], flagged: dict[str, list[str]], minimum: float, controls: dict
) -> list[str]:
    advice = "read their answers, talk with them, and consider `--policy dawid-skene` or "
    todo = [
        f"{who}: {low[0]}, below {minimum:g}; {advice}removing their answers"
        if low and low[0].startswith("controls ")
        else f"{who}: competence {_figure(people[who]['competence'])} is below {minimum:g} "
        f"(low on {', '.join(low) or 'every question'}); {advice}removing their answers"
        for who, low in flagged.items()
    ]
    few = [
        w for w, f in people.items()
        if f["answered"] and f["controls"] < FEW_CONTROLS and w not in flagged
    ]  # fmt: skip
    if controls.get("items") and few:
        todo.append(
            f"fewer than {FEW_CONTROLS} controls answered by {', '.join(few)}: their control "
            "accuracy is not yet evidence either way"
        )
    return ["", "**To do (annotators):**", *[f"- {t}" for t in todo]] if todo else []


def _labels(labels: dict[str, str]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in labels.items())


def preservation_md(preservation: dict[str, Any] | None) -> list[str]:
    if not preservation:
        return []
    overall = preservation["overall"]
    if not overall["items"]:
        return ["## Label preservation", "", "No accepted item yet: nothing to compare."]
    rows = [
        [
            d,
            f["items"],
            f["preserved"],
            _figure(f["share"], 3),
            f"{_figure(f['low'], 3)}–{_figure(f['high'], 3)}",
        ]
        for d, f in [*preservation["domains"].items(), ("all", overall)]
    ]
    lines = [
        "## Label preservation",
        "",
        "Accepted items whose labels, decided blind, equal the source's "
        f"({preservation['method']}; rejected and undecided items are not counted):",
        "",
        md_table(
            [
                preservation.get("domain_column") or "domain",
                "items",
                "preserved",
                "share",
                "interval",
            ],
            rows,
        ),
    ]
    changed = preservation["changed"]
    if changed:
        lines += [
            "",
            f"### {len(changed)} items whose labels changed (a broken translation, or a "
            "stereotype that does not hold in the target culture: decide which)",
            "",
            md_table(
                ["record", "domain", "item", "source labels", "decided labels", "notes"],
                [
                    [
                        c["id"],
                        c["domain"],
                        excerpt(c["text"]),
                        _labels(c["source"]),
                        _labels(c["decided"]),
                        excerpt("; ".join(c["notes"])) or "–",
                    ]
                    for c in changed
                ],
            ),
            "",
            "They are released with `labels_changed = true` and their new labels; "
            "`export release --exclude-changed` leaves them out.",
        ]
    return lines


def quality_md(summary: dict[str, Any]) -> list[str]:
    """Both sections, each preceded by a blank line (empty when there is nothing to say)."""
    lines = []
    for section in (annotators_md(summary), preservation_md(summary.get("preservation"))):
        if section:
            lines += ["", *section]
    return lines
