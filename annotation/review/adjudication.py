"""Adjudication: an undecided record goes to people who did not answer it, and only to them.

**Where.** Datasets called ``NAME-adjudication`` live in workspaces of their own ("panels"),
never in the annotators' workspace, so annotators do not see them. In Argilla, members of a
workspace see its datasets and owners see every workspace.

**Who.** Adjudicators are the users named with ``pull --adjudicators`` plus the admins of the
annotation workspace (owners, the tool's own account included, see everything anyway). Each
record goes to the panel of the adjudicators who did *not* answer it, a workspace
``WS-adjudication-<their names>-<digest>`` whose members are exactly them (membership is
synchronised on every pull). A record that every adjudicator answered goes to
``WS-adjudication-owners``, which only owners see.

**What they see.** Each answer in a table (annotator, status, every question, note), the
distinct corrections lettered A–E (unchanged pre-filled text is not a correction), the
record as annotators saw it, empty questions, and "which text is right?" (the original, a
lettered correction, or their own in the box). The letters' texts are kept in metadata hidden
from the adjudicator, so the merge reads exactly what was shown.

**Merge.** The next pull takes, per record, the latest submitted answer of an adjudicator who
did not answer the record; an answer from someone who did (an owner sees every panel) is
ignored and reported.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import httpx

from biasforge.annotation.client.api import check, http, iter_records, questions, users
from biasforge.annotation.client.connection import Connection, client
from biasforge.annotation.client.workspaces import (
    all_workspaces,
    ensure_workspace,
    members,
    sync_members,
)
from biasforge.annotation.review.decide import (
    CHOICE,
    CHOICES,
    LETTERS,
    Adjudicated,
    Answer,
    Decision,
)
from biasforge.errors import BiasforgeError
from biasforge.families import Family
from biasforge.families.base import ADAPTATION_TEXT, RECOGNISED, Row, escape, html_table

GUIDELINES = """# Adjudication

These records had no agreed decision: annotators disagreed, discarded, proposed corrections
that did not win, or a correction could not be applied. You see each annotator's answer and
the distinct corrections they proposed; you did not answer these records yourself.

Give the final answer to every question: it replaces the annotators' votes. Under *Which text
is right?* choose the original text, one of the proposed corrections (A, B, …), or *my own
correction* and edit the text in the correction box. Discard a record only if nobody can
decide it, and say why in the note.

"""


def adjudication_name(dataset: str) -> str:
    return f"{dataset}-adjudication"


def panel_name(workspace: str, eligible: frozenset[str]) -> str:
    """The workspace of exactly the adjudicators in ``eligible``, named after them.

    The name is derived from the members (readable names, then a digest that keeps two sets
    apart), so one panel serves every dataset whose records have the same eligible
    adjudicators and its membership never has to change for another dataset.
    """
    if not eligible:
        return f"{workspace}-adjudication-owners"
    # a username created outside biasforge may hold characters a workspace name cannot
    names = re.sub(r"[^A-Za-z0-9_-]", "_", "-".join(sorted(eligible)))
    digest = hashlib.sha256(",".join(sorted(eligible)).encode()).hexdigest()[:6]
    return f"{workspace}-adjudication-{names[:40]}-{digest}"


def adjudicators(api: httpx.Client, workspace_id: str, named: list[str]) -> frozenset[str]:
    """Named users plus the admins of the annotation workspace (owners need no membership)."""
    known = {u["username"]: u["role"] for u in users(api)}
    unknown = [name for name in named if name not in known]
    if unknown:
        raise BiasforgeError(
            f"--adjudicators: no user called {', '.join(map(repr, unknown))}; "
            "create them first with `biasforge annotate users`"
        )
    admins = {u["username"] for u in members(api, workspace_id) if u["role"] == "admin"}
    return frozenset(n for n in {*named, *admins} if known[n] != "owner")


def choices(proposals: int) -> dict[str, str]:
    """The answers of "Which text is right?" for records with ``proposals`` distinct
    corrections: keep the original, each proposed correction, or one's own. Only alternatives
    that exist are offered (issue 23: "Correction A" on a record nobody corrected stalled it)."""
    shown = LETTERS[: min(proposals, len(LETTERS))]
    return {
        "original": CHOICES["original"],
        **{letter: CHOICES[letter] for letter in shown},
        "own": CHOICES["own"],
    }


def dataset_name(dataset: str, proposals: int) -> str:
    """``NAME-adjudication`` for records without a proposed correction, else
    ``NAME-adjudication-<k>`` (k = 1…5 lettered corrections): the choice's labels are set per
    dataset in Argilla, so records are grouped by how many alternatives they have."""
    k = min(proposals, len(LETTERS))
    return adjudication_name(dataset) + (f"-{k}" if k else "")


def is_adjudication_of(name: str, dataset: str) -> bool:
    base = adjudication_name(dataset)
    return name == base or re.fullmatch(re.escape(base) + r"-[1-5]", name) is not None


def settings(family: Family, proposals: int = 0) -> Any:
    """The adjudication dataset's settings: the review's, plus the answers and corrections."""
    import argilla as rg

    choice = (
        (
            rg.LabelQuestion(
                name=CHOICE, title="Which text is right?", labels=choices(proposals),
                required=True,
            ),
        )
        if family.review.correction
        else ()
    )  # fmt: skip
    return family.review.settings(
        min_submitted=1,
        extra_fields=(
            ("answers", "Annotators' answers", True),
            ("corrections", "Proposed corrections", True),
        ),
        guidelines=GUIDELINES + family.review.guidelines,
        extra_questions=choice,
        extra_metadata=(
            rg.TermsMetadataProperty(name="proposals", visible_for_annotators=False),
            rg.TermsMetadataProperty(name="answered_by", visible_for_annotators=False),
        ),
    )


def adapting_questions(family: Family) -> tuple[str, ...]:
    """The adaptation question and its text, for a review that asks them (issue 44)."""
    return (RECOGNISED, ADAPTATION_TEXT) if family.review.adaptation else ()


def answers_html(family: Family, answers: list[Answer], decision: Decision) -> str:
    """Each answer as one row of a bordered table: status, every question, which correction
    it proposed (its letter, or "unchanged"), note."""
    questions = [*family.review.criteria, *adapting_questions(family)]
    letter = {
        who: code for code, p in zip(LETTERS, decision.proposals, strict=False) for who in p.by
    }
    header = ["annotator", "status", *questions]
    header += ["correction"] if family.review.correction else []
    rows = []
    for answer in sorted(answers, key=lambda a: a.user):
        row = [escape(answer.user), answer.status]
        row += [escape(answer.values.get(q) or "–") for q in questions]
        if family.review.correction:
            row.append(
                letter.get(answer.user, "unchanged") if answer.status == "submitted" else "–"
            )
        rows.append([*row, escape(answer.note or "–")])
    return html_table([*header, "note"], rows) if rows else "No answers."


def corrections_html(decision: Decision) -> str:
    """The distinct corrections, lettered as the choice question names them."""
    if not decision.proposals:
        return "No annotator changed the text."
    rows = [
        [letter, escape(p.text).replace("\n", "<br>"), escape(", ".join(p.by))]
        for letter, p in zip(LETTERS, decision.proposals, strict=False)
    ]
    extra = len(decision.proposals) - len(LETTERS)
    more = (
        f"\n\n{extra} more: copy one into the box and choose *my own correction*."
        if extra > 0
        else ""
    )
    return html_table(["", "corrected text", "proposed by"], rows) + more


def _remove_empty_panels(
    api: httpx.Client, connection: Connection, emptied: list[str], dry_run: bool
) -> list[str]:
    """Delete the panels (workspaces ``WS-adjudication-…``) whose last dataset this pull
    removed (``emptied``: ``panel/dataset``), and return their names (issue 47, item 9: the
    panel stayed behind, its adjudicators still members of an empty workspace). Panels that
    another dataset's pull may be filling at this moment are not touched."""
    going: dict[str, int] = {}
    for name in emptied:
        panel = name.split("/", 1)[0]
        going[panel] = going.get(panel, 0) + 1
    held: dict[str, int] = {}
    for item in check(api.get("/api/v1/me/datasets"))["items"]:
        held[item["workspace_id"]] = held.get(item["workspace_id"], 0) + 1
    removed = []
    for space in all_workspaces(api):
        if space["name"] not in going or not space["name"].startswith(
            f"{connection.workspace}-adjudication-"
        ):
            continue
        left = held.get(space["id"], 0) - (going[space["name"]] if dry_run else 0)
        if left > 0:
            continue
        if not dry_run:
            check(api.delete(f"/api/v1/workspaces/{space['id']}"))
        removed.append(space["name"])
    return removed


@dataclass
class Placed:
    """Where a record waits for adjudication now."""

    workspace: str
    dataset: str  # the adjudication dataset's name
    dataset_id: str
    record_id: str


@dataclass
class Routed:
    """What one pull did (or, dry, would do) to the adjudication datasets, per panel."""

    panels: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> members, sent
    moved: int = 0  # records whose route changed (removed from one dataset, created in another)
    removed: int = 0  # records taken out: decided now, or waiting for annotators again
    sent_back: int = 0  # records whose adjudication could not be used, asked again
    # every record waiting after this pull, sent now or earlier: panel -> adjudicators, records
    waiting: dict[str, dict[str, Any]] = field(default_factory=dict)
    adjudicators: list[str] = field(default_factory=list)  # named ones and the admins
    owners: list[str] = field(default_factory=list)  # who may adjudicate the owners' panel
    emptied: list[str] = field(default_factory=list)  # adjudication datasets left empty, removed
    panels_removed: list[str] = field(default_factory=list)  # panels left without a dataset

    @property
    def sent(self) -> int:
        return sum(p["sent"] for p in self.panels.values())


def _panel_dataset(
    connection: Connection, panel: str, dataset: str, family: Family, proposals: int
) -> str:
    """The id of the panel's adjudication dataset for ``proposals`` corrections, created if
    missing."""
    import argilla as rg

    from biasforge.annotation.review.push import find_dataset

    rg_client = client(connection)
    name = dataset_name(dataset, proposals)
    found = find_dataset(rg_client, panel, name)
    if found is None:
        space = UUID(ensure_workspace(rg_client.http_client, panel)["id"])
        found = rg.Dataset(
            name=name, workspace=space, settings=settings(family, proposals), client=rg_client
        ).create()
    return str(found.id)


def _payloads(
    family: Family, items: list[tuple[Row, Decision, list[Answer]]], ids: dict
) -> list[dict]:
    from biasforge.annotation.review.push import record_payloads

    payloads = record_payloads(family, [row for row, _, _ in items], ids)
    for payload, (_, decision, answers) in zip(payloads, items, strict=True):
        why = f"**Why:** {escape(decision.reason)}\n\n"
        payload["fields"]["answers"] = why + answers_html(family, answers, decision)
        payload["fields"]["corrections"] = corrections_html(decision)
        payload["metadata"]["proposals"] = [p.text for p in decision.proposals[: len(LETTERS)]] or [
            ""
        ]
        payload["metadata"]["answered_by"] = sorted({a.user for a in answers}) or [""]
    return payloads


def route(
    connection: Connection,
    dataset: str,
    family: Family,
    items: list[tuple[Row, Decision, list[Answer]]],
    named: list[str],
    merged: Merged,
    *,
    settled: set[str] = frozenset(),
    dry_run: bool = False,
) -> Routed:
    """Put every undecided record (``items``) where it belongs now, and only there.

    The place is a function of the current answers: the panel of the adjudicators who did not
    answer it (named ones and the workspace's admins; else owners) and the dataset for its
    number of proposed corrections. A record already there is left alone (answers kept); one
    placed elsewhere, or sent back, is removed there and created here; one placed but no
    longer undecided is removed, unless an adjudicator's answer decided it (``settled``).
    ``dry_run`` computes the same counts and changes nothing.
    """
    routed = Routed()
    with http(connection) as api:
        workspace = ensure_workspace(api, connection.workspace)
        everyone = adjudicators(api, workspace["id"], named)
        routed.adjudicators = sorted(everyone)
        routed.owners = sorted(u["username"] for u in users(api) if u["role"] == "owner")
        wanted: dict[tuple[str, int, frozenset[str]], list] = {}
        keep: set[str] = set()
        for item in items:
            row, decision, answers = item
            rid = str(row["id"])
            eligible = everyone - {a.user for a in answers}
            panel = panel_name(connection.workspace, eligible)
            waiting = routed.waiting.setdefault(
                panel, {"adjudicators": sorted(eligible) or ["owners only"], "records": 0}
            )
            waiting["records"] += 1
            k = min(len(decision.proposals), len(LETTERS))
            placed = merged.placed.get(rid)
            if (
                placed
                and not decision.sent_back
                and (placed.workspace, placed.dataset) == (panel, dataset_name(dataset, k))
            ):
                keep.add(rid)
                continue
            if placed:
                routed.moved += not decision.sent_back
                routed.sent_back += decision.sent_back
            wanted.setdefault((panel, k, eligible), []).append(item)
        for rid, placed in merged.placed.items():
            if rid in keep or rid in settled:
                continue
            moving = any(str(i[0]["id"]) == rid for todo in wanted.values() for i in todo)
            routed.removed += not moving
            if not dry_run:
                check(api.delete(f"/api/v1/records/{placed.record_id}"))
        for (panel, k, eligible), todo in sorted(wanted.items(), key=lambda g: (g[0][0], g[0][1])):
            entry = routed.panels.setdefault(
                panel, {"adjudicators": sorted(eligible) or ["owners only"], "sent": 0}
            )
            entry["sent"] += len(todo)
            if dry_run:
                continue
            sync_members(api, ensure_workspace(api, panel)["id"], set(eligible))
            target = _panel_dataset(connection, panel, dataset, family, k)
            ids = {q["name"]: q["id"] for q in questions(api, target)}
            for start in range(0, len(todo), 500):
                batch = _payloads(family, todo[start : start + 500], ids)
                check(api.post(f"/api/v1/datasets/{target}/records/bulk", json={"items": batch}))
        routed.emptied = _remove_empty(api, connection, dataset, dry_run)
        routed.panels_removed = _remove_empty_panels(api, connection, routed.emptied, dry_run)
    return routed


def _adjudication_datasets(
    api: httpx.Client, connection: Connection, dataset: str
) -> list[tuple[str, dict[str, Any]]]:
    """(panel, dataset) for every adjudication dataset of ``dataset``: named after it, in a
    panel of the annotation workspace (``WS-adjudication-…``)."""
    prefix = f"{connection.workspace}-adjudication-"
    spaces = {w["id"]: w for w in all_workspaces(api)}
    found = []
    for item in check(api.get("/api/v1/me/datasets"))["items"]:
        workspace = spaces.get(item["workspace_id"])
        if workspace is None or not workspace["name"].startswith(prefix):
            continue
        if is_adjudication_of(item["name"], dataset):
            found.append((workspace["name"], item))
    return found


def _remove_empty(
    api: httpx.Client, connection: Connection, dataset: str, dry_run: bool
) -> list[str]:
    """Delete the adjudication datasets of ``dataset`` that hold no record any more (their
    records moved or were decided), and return them as ``panel/name``. Only datasets that
    biasforge made for adjudication qualify: the name and the panel say so, and so do the
    fields only :func:`settings` gives (the annotators' answers and the corrections)."""
    removed = []
    for panel, item in _adjudication_datasets(api, connection, dataset):
        fields = {
            f["name"] for f in check(api.get(f"/api/v1/datasets/{item['id']}/fields"))["items"]
        }
        if not {"answers", "corrections"} <= fields:
            continue
        if next(iter_records(api, item["id"], page=1), None) is not None:
            continue
        if not dry_run:
            check(api.delete(f"/api/v1/datasets/{item['id']}"))
        removed.append(f"{panel}/{item['name']}")
    return removed


@dataclass
class Merged:
    """Adjudicators' answers found by a pull, and where each record waits."""

    answers: dict[str, Adjudicated] = field(default_factory=dict)
    placed: dict[str, Placed] = field(default_factory=dict)  # ids in some adjudication dataset
    ignored: list[str] = field(default_factory=list)  # "record: user answered it themselves"

    @property
    def present(self) -> set[str]:
        return set(self.placed)


def _response_answer(response: dict, names: dict[str, str]) -> Answer:
    values = {q: (v or {}).get("value") for q, v in (response.get("values") or {}).items()}
    return Answer(names.get(response["user_id"], response["user_id"]), response["status"], values)


def read(connection: Connection, dataset: str, answered: dict[str, set[str]]) -> Merged:
    """Every panel's adjudicated records; ``answered`` gives who answered each record."""
    merged = Merged()
    with http(connection) as api:
        names = {u["id"]: u["username"] for u in users(api)}
        for panel, found in _adjudication_datasets(api, connection, dataset):
            for record in iter_records(api, found["id"], include="responses"):
                rid = str(record.get("external_id"))
                merged.placed[rid] = Placed(panel, found["name"], found["id"], str(record["id"]))
                proposals = tuple(
                    t for t in (record.get("metadata") or {}).get("proposals") or [] if t
                )
                responses = sorted(
                    record.get("responses") or [], key=lambda r: r.get("updated_at") or ""
                )
                for response in responses:
                    answer = _response_answer(response, names)
                    if answer.status != "submitted":
                        continue
                    if answer.user in answered.get(rid, set()):
                        merged.ignored.append(
                            f"{rid}: {answer.user} answered this record themselves"
                        )
                        continue
                    merged.answers[rid] = Adjudicated(answer, proposals)
    return merged
