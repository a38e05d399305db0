"""The pull report (``report.md``): decisions with their reasons, adjudication, agreement.

Written for the maintainer who must act on it: how many records were decided and how, why
each undecided record is undecided (submitted / discarded / missing answers, the discards'
notes), where adjudication went and who may see it, and the agreement figures rounded, with
degenerate cases explained in words next to them.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from typing import Any

from biasforge.annotation.review.quality_report import quality_md
from biasforge.contract.markdown import excerpt, md_table

DIGITS = 3
LISTED = 200  # records listed one by one; decisions.parquet has them all


#: what the item counts in brackets beside each figure are (they differ, and readers asked why)
AGREEMENT_ITEMS = (
    "In brackets, the items each figure is computed on: α and % unanimous use every item with "
    "two or more answers; Fleiss' κ needs the same number of answers on every item, so it uses "
    "the items with the most common number of answers and leaves the others out."
)


def _figure(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.{DIGITS}f}"


def _kind(reason: str) -> str:
    """The reason's kind, for counting ("waiting for answers: 1 submitted…" → "waiting…")."""
    return textwrap.shorten(reason.split(":", 1)[0], width=60, placeholder=" …")


def decisions_md(details: list[dict[str, Any]]) -> list[str]:
    counts = Counter(d["decision"] for d in details)
    kinds = Counter((d["decision"], _kind(d["reason"])) for d in details)
    lines = [
        md_table(
            ["decision", "records"],
            [[k, counts.get(k, 0)] for k in ("accept", "reject", "pending")],
        )
    ]
    lines += [
        "",
        "### Why",
        "",
        md_table(
            ["decision", "reason", "records"], [[d, r, n] for (d, r), n in sorted(kinds.items())]
        ),
    ]
    notable = [
        d
        for d in details
        if d["to_adjudication"] or d["discarded"] or d["adjudicated_by"] or d["corrected"]
        or (d["decision"] == "pending" and not d["reason"].startswith("waiting for answers"))
    ]  # fmt: skip
    untouched = len(details) - len(notable)
    # what needs a person first: adjudication, discards, adjudicated, corrected; then waiting
    notable.sort(
        key=lambda d: (
            not d["to_adjudication"], not d["discarded"], not d["adjudicated_by"], not d["corrected"],
        )
    )  # fmt: skip
    if notable:
        rows = [
            [
                d["id"],
                d["decision"],
                d["submitted"],
                d["discarded"],
                d["missing"],
                "yes" if d["to_adjudication"] else "",
                excerpt(d["reason"]),
            ]
            for d in notable[:LISTED]
        ]
        header = [
            "record",
            "decision",
            "submitted",
            "discarded",
            "missing",
            "to adjudication",
            "reason",
        ]
        lines += [
            "",
            "### Records that are pending, discarded by someone, corrected or adjudicated",
            "",
        ]
        lines.append(md_table(header, rows))
        if len(notable) > LISTED:
            lines.append(f"\n… and {len(notable) - LISTED} more: see `decisions.parquet`.")
    if untouched:
        lines.append(
            f"\n{untouched} other records have nothing to report (decided by the votes without "
            "discard or correction, or waiting for annotators' answers); see `decisions.parquet`."
        )
    return lines


def adjudication_md(adjudication: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    lines = ["## Adjudication", ""]
    panels = adjudication.get("panels") or {}
    if panels:
        rows = [[name, ", ".join(p["adjudicators"]), p["sent"]] for name, p in panels.items()]
        sent = "Would be sent to" if adjudication.get("dry_run") else "Sent now to"
        lines += [
            f"{sent} `{adjudication['dataset']}`, each record to the workspace of the "
            "adjudicators who did not answer it (annotators do not see these workspaces):",
            "",
            md_table(["workspace", "adjudicators (owners see every workspace)", "records"], rows),
            "",
        ]
    dry = "Dry run: nothing was changed on the server; the figures say what a pull would do. "
    lines.append(
        (dry if adjudication.get("dry_run") else "")
        + f"Waiting for an adjudicator: {adjudication.get('waiting', 0)} "
        f"(moved to another panel or dataset: {adjudication.get('moved', 0)}; "
        f"removed, decided or back with the annotators: {adjudication.get('removed', 0)}; "
        f"sent back: {adjudication.get('sent_back', 0)}). "
        f"Adjudicated answers merged: {adjudication.get('merged', 0)}."
    )
    lines += todo_md(adjudication)
    by = summary.get("adjudicated_by") or {}
    if by:
        lines.append(
            "Adjudicated by: " + ", ".join(f"{who} ({n})" for who, n in sorted(by.items())) + "."
        )
    for ignored in adjudication.get("ignored") or []:
        lines.append(f"- ignored: {ignored}")
    verb = "would be removed" if adjudication.get("dry_run") else "removed"
    for key, what in (("removed_datasets", "datasets left without records"),
                      ("removed_panels", "panels (workspaces) left without datasets")):  # fmt: skip
        removed = adjudication.get(key) or []
        if removed:
            names = ", ".join(f"`{name}`" for name in removed)
            lines.append(f"Adjudication {what}, {verb}: {names}.")
    return lines


def _waiting(adjudication: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Panel -> adjudicators and records waiting there after the pull (folders of older pulls
    name only the panels records were sent to then)."""
    if "waiting_in" in adjudication:
        return adjudication["waiting_in"] or {}
    panels = adjudication.get("panels") or {}
    return {p: {"adjudicators": v["adjudicators"], "records": v["sent"]} for p, v in panels.items()}


def _owners_only_why(adjudication: dict[str, Any]) -> str:
    """Why records wait where only owners see them: nobody else may adjudicate them."""
    pool = adjudication.get("adjudicators")
    if pool:
        return (
            f"every adjudicator ({', '.join(pool)}) answered them as an annotator, and nobody "
            "adjudicates a record they answered"
        )
    if pool is None:
        return "no adjudicator who did not answer them was available"
    return "no adjudicator was named with `--adjudicators` and the workspace has no admin"


def todo_md(adjudication: dict[str, Any]) -> list[str]:
    """What the maintainer must do next, in words: who is to adjudicate what, and why a
    record waits where only owners see it."""
    todo = []
    if adjudication.get("sent_back"):
        todo.append(
            f"{adjudication['sent_back']} adjudicated records were sent back (their answer could "
            "not be used; the reason is in the table above): ask the panel's adjudicators to "
            "answer them again, then pull."
        )
    for panel, waiting in sorted(_waiting(adjudication).items()):
        count = waiting["records"]
        if waiting["adjudicators"] == ["owners only"]:
            owners = adjudication.get("owners") or []
            who = f"only owners ({', '.join(owners)})" if owners else "only owners"
            todo.append(
                f"{count} record(s) wait in the owners' panel `{panel}`: {who} can adjudicate "
                f"them, because {_owners_only_why(adjudication)}. To move them, name "
                "adjudicators with `annotate pull --adjudicators NAME,…` who did not answer them."
            )
        else:
            todo.append(
                f"Ask {', '.join(waiting['adjudicators'])} to adjudicate the {count} record(s) "
                f"waiting in `{panel}`, then pull."
            )
    # a dry run made no panel: the to-do is what a real pull would leave to do
    heading = (
        "**To do after a pull without `--dry-run`:**"
        if adjudication.get("dry_run")
        else "**To do:**"
    )
    return ["", heading, *[f"- {t}" for t in todo]] if todo else []


def agreement_md(questions: dict[str, Any]) -> list[str]:
    lines = ["## Agreement", ""]
    if not questions:
        return [*lines, "No submitted answers yet."]
    header = ["question", "items answered", "Krippendorff α (items)", "Fleiss κ (items)",
              "% unanimous (items)", "note"]  # fmt: skip
    rows = [
        [
            q,
            a["items"],
            f"{_figure(a['krippendorff_alpha'])} ({a['rated_items']})",
            f"{_figure(a['fleiss_kappa'])} ({a['fleiss_items']})",
            ("–" if a["percent_unanimous"] is None else f"{a['percent_unanimous']:.1f}")
            + f" ({a['rated_items']})",
            "; ".join(a.get("notes") or []),
        ]
        for q, a in questions.items()
    ]
    lines.append(md_table(header, rows))
    lines += ["", AGREEMENT_ITEMS]
    for q, a in questions.items():
        rows = [
            [who, fig["items"], _figure(fig["pairwise_agreement"]), _figure(fig["alpha_without"])]
            for who, fig in a["per_annotator"].items()
        ]
        lines += ["", f"### `{q}`: each annotator against the others", ""]
        lines.append(md_table(["annotator", "items", "pairwise agreement", "α without them"], rows))
    return lines


def suggestions_md(suggested: dict[str, int]) -> str:
    if not suggested:
        return "Judged questions started empty (no suggested answers)."
    parts = ", ".join(f"`{q}` on {n} records" for q, n in sorted(suggested.items()))
    return f"**Suggested answers were shown** for judged questions ({parts}): they anchor annotators and inflate agreement."


def not_blind_md(summary: dict[str, Any]) -> list[str]:
    """The family's note on records pushed before keyed arrangements, if the review has any."""
    legacy = (summary.get("shown") or {}).get("legacy")
    return [f"**Not blind:** {legacy}"] if legacy else []


def adaptation_md(summary: dict[str, Any]) -> list[str]:
    """What review decided about the accepted items' culture (issue 44), when it was asked."""
    counts = summary.get("adaptation")
    if counts is None:
        return []
    said = ", ".join(f"{k}: {n}" for k, n in sorted(counts.items())) or "none decided"
    return [
        f"Adaptation of the accepted items (SHADES' question): {said}; undecided ones count as transferred."
    ]


def review_report(
    summary: dict[str, Any], details: list[dict[str, Any]], adjudication: dict[str, Any], tm: dict
) -> str:
    lines = [
        f"# Review of `{summary['dataset']}`",
        "",
        f"Policy: **{summary['policy']}**; {summary['min_submitted']} answers per record "
        "(submitted or discarded; a discard is a vote *cannot judge*).",
        suggestions_md(summary.get("suggestions") or {}),
        *not_blind_md(summary),
        "",
        "## Decisions",
        "",
    ]
    lines += decisions_md(details)
    lines += [
        "",
        f"Corrections applied: {summary.get('corrected', 0)}; written to the translation memory: {tm['written']}.",
        f"Discarded answers: {summary.get('discarded_answers', 0)}.",
        *adaptation_md(summary),
        "",
    ]
    lines += adjudication_md(adjudication, summary)
    lines += ["", *agreement_md(summary["questions"])]
    lines += [*quality_md(summary), ""]
    return "\n".join(lines)
