"""``biasforge annotate pull``: responses → agreement → decisions → reviewed records.

Every record of the run is decided by the rules of :mod:`biasforge.annotation.review.decide` (policy, discards,
corrections, completeness) or by its adjudicator's answer; the decision's agreed labels and
correction are applied with the family's hooks, and a corrected row must pass the family's
schema (release rules included) before it is written — a correction that cannot be applied
goes to adjudication with the reason, never to silent rejection. Undecided records are sent to
adjudication panels (:mod:`biasforge.annotation.review.adjudication`), whose answers the next pull merges.

Outputs (written atomically to ``--out``): ``reviewed.parquet`` (candidate columns with the
same Arrow types, corrections applied, plus ``original_text``, ``corrected_by``,
``adjudicated_by`` and ``decision``), ``decisions.parquet`` (per record: decision, reason,
submitted/discarded/missing answers, discards' notes, correction, adjudication),
``responses.parquet`` (every answer), ``agreement.json``, ``report.md`` and ``manifest.json``.
Accepted corrections of translated items are stored in the translation memory as preferred
translations (:meth:`biasforge.translation_memory.TranslationMemory.prefer`).
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from biasforge.annotation.client.api import check, http, iter_records, questions, users
from biasforge.annotation.client.connection import Connection, client
from biasforge.annotation.client.names import check_dataset_name
from biasforge.annotation.client.workspaces import ensure_workspace, members
from biasforge.annotation.review import adapting, adjudication, annotators, private_state, quality
from biasforge.annotation.review.adjudication import adjudication_name
from biasforge.annotation.review.agreement import agreement_report
from biasforge.annotation.review.competence import Estimates
from biasforge.annotation.review.controls import load as control_items
from biasforge.annotation.review.controls import withheld
from biasforge.annotation.review.decide import POLICIES, Answer, Decision, decide, proposals_of
from biasforge.annotation.review.preservation import labels_changed
from biasforge.annotation.review.push import foreign_dataset
from biasforge.annotation.review.registry import pushed_from, run_of
from biasforge.annotation.review.report import review_report
from biasforge.contract.adaptation import ADAPTATION, ADAPTATION_NOTE, NATIVE
from biasforge.contract.redact import public_path, public_url
from biasforge.contract.reviewed import KIND as REVIEWED_KIND
from biasforge.contract.reviewed import write_reviewed
from biasforge.contract.rundir import Run, read_run, run_identity
from biasforge.errors import BiasforgeError, OutputExistsError
from biasforge.families import Family, family_of
from biasforge.families.base import LABELS_CHANGED
from biasforge.files import replaceable_manifest, staged_directory
from biasforge.translation_memory import TranslationMemory

__all__ = ["POLICIES", "adjudication_name", "collect", "pull"]


TIME_COLUMNS = ["id", "annotator", "status", "at"]
#: the reason of an item a ``--control-share`` made a control of (never pushed as an item)
WITHHELD = "made into a control item by `annotate push --control-share`: not sent for review"


@dataclass
class Collected:
    """What a dataset holds: answers per record, every answer as a long table, suggestions."""

    answers: dict[str, list[Answer]]
    long: pd.DataFrame
    suggested: dict[str, int]  # judged question -> records that carried a suggestion for it
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)  # per external id
    # when each response was last saved (columns id, annotator, status, at): annotators' pace
    times: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=TIME_COLUMNS))
    questions: set[str] = field(default_factory=set)  # what the dataset asks


def _answer(response: dict, names: dict[str, str]) -> Answer:
    values = {q: (v or {}).get("value") for q, v in (response.get("values") or {}).items()}
    return Answer(names.get(response["user_id"], response["user_id"]), response["status"], values)


def _long_rows(external: str, answer: Answer) -> list[dict[str, Any]]:
    return [
        {
            "id": external,
            "annotator": answer.user,
            "status": answer.status,
            "question": question,
            "value": json.dumps(value, ensure_ascii=False)
            if isinstance(value, list | dict)
            else value,
        }
        for question, value in answer.values.items()
    ]


def collect(connection: Connection, dataset_id: str, judged: list[str] | None = None) -> Collected:
    """Every response per external id (any status), and which judged questions had
    suggestions (pre-selected answers anchor annotators; the card must say so)."""
    with http(connection) as api:
        names = {u["id"]: u["username"] for u in users(api)}
        question_names = {q["id"]: q["name"] for q in questions(api, dataset_id)}
        per_record: dict[str, list[Answer]] = {}
        rows: list[dict[str, Any]] = []
        suggested: Counter[str] = Counter()
        metadata: dict[str, dict[str, Any]] = {}
        times: list[tuple] = []
        for record in iter_records(api, dataset_id, include="responses,suggestions"):
            external = str(record.get("external_id"))
            metadata[external] = record.get("metadata") or {}
            answers = [_answer(r, names) for r in record.get("responses") or []]
            times += [(external, a.user, a.status, r.get("updated_at"))
                      for a, r in zip(answers, record.get("responses") or [], strict=True)]  # fmt: skip
            per_record[external] = answers
            for answer in answers:
                rows += _long_rows(external, answer)
            for suggestion in record.get("suggestions") or []:
                name = question_names.get(suggestion["question_id"])
                if judged is None or name in judged:
                    suggested[name] += 1
    long = pd.DataFrame(rows, columns=["id", "annotator", "status", "question", "value"])
    return Collected(
        per_record, long, dict(suggested), metadata, pd.DataFrame(times, columns=TIME_COLUMNS),
        set(question_names.values()),
    )  # fmt: skip


def shown_to_annotators(
    connection: Connection, dataset_id: str, family: Family, legacy: int = 0
) -> dict:
    """What an annotator of the dataset saw, read from its settings on the server: field
    titles, the metadata they could filter by, the metadata kept from them; with the family's
    note (for the dataset card, which must not claim more than the settings show), and its
    note on the ``legacy`` records pushed before keyed arrangements, if any."""
    with http(connection) as api:
        fields = check(api.get(f"/api/v1/datasets/{dataset_id}/fields"))["items"]
        meta = check(api.get(f"/api/v1/me/datasets/{dataset_id}/metadata-properties"))["items"]
    return {
        "fields": [f["title"] for f in fields],
        "filters": [m["title"] for m in meta if m["visible_for_annotators"]],
        "hidden": [m["name"] for m in meta if not m["visible_for_annotators"]],
        "note": family.review.seen_note,
        **({"legacy": family.review.legacy_note.format(records=legacy)} if legacy else {}),
    }


def _dataset(connection: Connection, name: str):
    from biasforge.annotation.review.push import find_dataset

    return find_dataset(client(connection), connection.workspace, name)


def _annotators(connection: Connection) -> set[str]:
    """Who can answer: members of the annotation workspace (owners are not counted)."""
    with http(connection) as api:
        workspace = ensure_workspace(api, connection.workspace)
        return {u["username"] for u in members(api, workspace["id"])}


@dataclass
class Outcome:
    """Every record's decision, and what follows from them."""

    reviewed: list[dict[str, Any]] = field(default_factory=list)  # rows + review columns
    details: list[dict[str, Any]] = field(default_factory=list)  # decisions.parquet rows
    to_adjudicate: list[tuple[dict, Decision, list[Answer]]] = field(default_factory=list)
    corrected: list[tuple[dict, dict]] = field(default_factory=list)  # (before, after)

    @property
    def counts(self) -> Counter:
        return Counter(d["decision"] for d in self.details)


def _schema_problems(family: Family, row: dict, schema: pa.Schema) -> list[str]:
    table = pa.Table.from_pylist([row], schema=schema)
    return [str(v) for v in family.schema.check(table, release=True)]


def apply_decision(
    family: Family, row: dict, decision: Decision, schema: pa.Schema
) -> tuple[Decision, dict]:
    """The row with the agreed labels and correction applied; a correction that cannot be
    applied, or whose result breaks the family's schema, leaves the record pending with the
    reason (sent to adjudication unless an adjudicator already gave it)."""
    if decision.decision != "accept":
        return decision, dict(row)
    try:
        new = family.review.apply_answers(dict(row), decision.decided)
        if decision.correction:
            if family.review.apply_correction is None:
                raise ValueError(f"{family.name} items take no corrections")
            new = family.review.recheck(
                row, family.review.apply_correction(new, decision.correction)
            )
        problems = _schema_problems(family, new, schema) if new != row else []
        if problems:
            raise ValueError("; ".join(problems))
    except ValueError as exc:
        decision.decision = "pending"
        decision.reason = f"correction cannot be applied: {exc}"
        decision.adjudicate = True  # an adjudicated one is sent back: never stalls
        decision.sent_back = decision.adjudicated_by is not None
        return decision, dict(row)
    return decision, new


def _detail(rid: str, decision: Decision, corrected: bool, routed: bool) -> dict[str, Any]:
    return {
        "id": rid,
        "decision": decision.decision,
        "reason": decision.reason,
        "submitted": decision.submitted,
        "discarded": decision.discarded,
        "missing": decision.missing,
        "discards": json.dumps(dict(decision.discards), ensure_ascii=False),
        "to_adjudication": routed,
        "adjudicated_by": decision.adjudicated_by,
        "corrected": corrected,
        "corrected_by": list(decision.corrected_by) if corrected else [],
        "correction": decision.correction if corrected else None,
        "decided": json.dumps(decision.decided, ensure_ascii=False, sort_keys=True),
        "adaptation": decision.adaptation,
        "adaptation_note": decision.adaptation_note if decision.adaptation else None,
    }


def shown_differently(family: Family, row: dict, stored: dict[str, Any]) -> str | None:
    """Why the answers cannot map back: the record was shown with hidden metadata (e.g. the
    keyed check of the StereoSet option order) other than this version derives for it with
    the dataset's key; None when they agree. ``family`` is bound to the key."""
    if not family.review.hidden_metadata:
        return None
    expected = family.review.to_record(row).get("metadata", {})
    for key in family.review.hidden_metadata:
        if stored.get(key) != expected.get(key):
            return (
                f"the record was shown with {key}={stored.get(key)!r}, not {expected.get(key)!r}: "
                "it was pushed by another version or with another private key; push it again "
                "to a new dataset"
            )
    return None


def decide_all(
    family: Family,
    candidates: list[dict[str, Any]],
    collected: Collected,
    merged: adjudication.Merged,
    *,
    policy: str,
    min_submitted: int,
    annotators: set[str],
    schema: pa.Schema,
    estimates: Estimates | None = None,
    withheld: frozenset[str] | set[str] = frozenset(),
) -> Outcome:
    """Decide every candidate of the run from its answers (and adjudication); under a model
    policy, ``estimates`` holds each record's most probable answers. ``withheld`` items were
    made into controls and never pushed: pending, with that reason."""
    outcome = Outcome()
    for row in candidates:
        rid = str(row["id"])
        answers = collected.answers.get(rid, [])
        can_answer = len(annotators - {a.user for a in answers})
        estimated = estimates.answers_for(policy, rid) if estimates else None
        decision = decide(
            family, row, answers, policy=policy, min_submitted=min_submitted,
            can_answer=can_answer, adjudicated=merged.answers.get(rid), estimated=estimated,
        )  # fmt: skip
        if rid in withheld and not answers:
            decision = Decision("pending", WITHHELD)
        stored = collected.metadata.get(rid, {})
        stale = shown_differently(family, row, stored) if answers else None
        if stale:
            decision = Decision("pending", stale, submitted=decision.submitted,
                                discarded=decision.discarded, missing=decision.missing)  # fmt: skip
        decision, new = apply_decision(family, row, decision, schema)
        corrected = new != row and decision.correction is not None
        if decision.adjudicate:
            decision.proposals = decision.proposals or proposals_of(
                family, row, [a for a in answers if a.status == "submitted"]
            )
            outcome.to_adjudicate.append((row, decision, answers))
        if decision.decision == "accept" and new != row:
            outcome.corrected.append((row, new))
        outcome.reviewed.append(
            {
                **new,
                "original_text": family.review.original_text(row) if corrected else None,
                "corrected_by": list(decision.corrected_by) if corrected else None,
                "adjudicated_by": decision.adjudicated_by,
                "decision": decision.decision,
                **_labels_changed(family, row, new, decision.decision),
                **_adaptation(family, decision, row),
            }
        )
        outcome.details.append(_detail(rid, decision, corrected, decision.adjudicate))
    return outcome


def _labels_changed(family: Family, before: dict, after: dict, decision: str) -> dict:
    """The ``labels_changed`` column, for a family whose source carries labels."""
    if family.review.source_labels is None:
        return {}
    return {LABELS_CHANGED[0]: labels_changed(family, before, after, decision)}


def _adaptation(family: Family, decision: Decision, row: dict) -> dict:
    """The ``adaptation`` columns, for a family that translates whose dataset asked the
    question (None where no decision was reached); a native item stays ``native``."""
    if family.review.adaptation is None:
        return {}
    if row.get(ADAPTATION) == NATIVE:
        return {ADAPTATION: NATIVE, ADAPTATION_NOTE: row.get(ADAPTATION_NOTE)}
    note = decision.adaptation_note if decision.adaptation else None
    return {ADAPTATION: decision.adaptation, ADAPTATION_NOTE: note}


def write_back_corrections(
    family: Family, pairs: list[tuple[dict, dict]], origin: str
) -> dict[str, Any]:
    """Store accepted corrections of machine-translated items as preferred translations
    (an item without a ``translation`` record, e.g. templated BEC-Pro, was not translated)."""
    entries = []
    for before, after in pairs:
        src_lang, lang = str(before.get("source_language") or ""), str(before.get("language") or "")
        if src_lang and src_lang != lang and before.get("translation"):
            for source, text in family.review.corrected_sources(before, after):
                entries.append((source, src_lang, lang, text))
    if not entries:
        return {"written": 0, "target": None}
    with TranslationMemory() as memory:
        for source, src_lang, lang, text in entries:
            memory.prefer(source, src_lang, lang, text, origin=origin)
        target = str(getattr(memory, "path", "translation memory"))
    return {"written": len(entries), "target": target}


def _run_behind(connection: Connection, dataset: str, run_dir: str | Path | None) -> Path:
    run_path = Path(run_dir) if run_dir else run_of(connection.url, connection.workspace, dataset)
    if run_path is None:
        raise BiasforgeError(f"which run was {dataset!r} pushed from? pass --run RUN_DIR")
    return run_path


def other_run(
    connection: Connection, dataset: str, dataset_id: str, run: Run, family: Family
) -> str | None:
    """Why ``run`` is not the run the dataset was pushed from, or None: its family must be
    the dataset's (its questions say which), and its identity the one recorded at push."""
    problem = foreign_dataset(connection, dataset_id, family)
    if problem:
        return f"dataset {dataset!r} {problem}: the run holds {family.name} items"
    pushed = pushed_from(connection.url, connection.workspace, dataset) or {}
    if pushed.get("family") not in (None, family.name):
        return f"it holds {family.name} items; {dataset!r} was pushed from a {pushed['family']} run"
    if pushed.get("identity") not in (None, run_identity(run.manifest)):
        if Path(pushed["run"]) == run.path.resolve():
            return f"its candidates changed since {dataset!r} was pushed from it"
        return (
            f"its candidates are not those {dataset!r} was pushed from "
            f"({public_path(Path(pushed['run']))}); pass that run"
        )
    return None


def reviewed_folder_problem(out: Path, dataset: str, workspace: str) -> str | None:
    """Why ``out`` may not be replaced by a pull of ``dataset``, or None: only an earlier
    pull of the same dataset and workspace, unchanged since (its manifest says so), is ours
    to replace — never another dataset's folder, a run, a release or the user's files."""
    problem, manifest = replaceable_manifest(out, REVIEWED_KIND)
    if problem:
        return problem
    if manifest.get("kind") != "reviewed":
        return "is not a reviewed-records folder"
    if (manifest.get("dataset"), manifest.get("workspace")) != (dataset, workspace):
        return (
            f"holds the reviewed records of dataset {manifest.get('dataset')!r} "
            f"(workspace {manifest.get('workspace')!r}), not of {dataset!r}"
        )
    return None


def _check_out(out: Path, dataset: str, workspace: str, overwrite: bool) -> None:
    """Refuse an existing ``--out`` before anything is done (on the server included)."""
    if not (out.exists() or out.is_symlink()):
        return
    if not overwrite:
        raise OutputExistsError(
            f"{out} already exists; choose another --out or pass --overwrite to replace it"
        )
    problem = reviewed_folder_problem(out, dataset, workspace)
    if problem:
        raise OutputExistsError(
            f"--out {out}: {problem}; --overwrite only replaces an earlier pull of this dataset"
        )


def _agreement(family: Family, long: pd.DataFrame) -> dict[str, Any]:
    answers = long[long["status"] == "submitted"].rename(columns={"id": "item"})
    judged = family.review.label_questions
    answers = answers[answers["question"].isin(judged)].dropna(subset=["value"])
    return agreement_report(answers, judged)


@dataclass(frozen=True)
class Asked:
    """What a pull was asked to do (its options, once parsed)."""

    policy: str
    adjudicate: bool
    adjudicators: tuple[str, ...]
    dry_run: bool


@dataclass
class Gathered:
    """What a pull reads before deciding anything: the dataset, the run behind it, every
    answer and adjudication, and the annotator models' estimates."""

    dataset: str
    target: Any  # the Argilla dataset
    run_path: Path
    run: Run
    family: Family
    min_submitted: int
    collected: Collected
    key: Any  # the dataset's private key (family hooks bound to it)
    merged: Any  # adjudicators' answers
    assessed: Any  # quality.Quality
    rows: list[dict[str, Any]]  # the run's candidates, in order

    @property
    def items(self) -> set[str]:
        return {str(row["id"]) for row in self.rows}


def pull(
    dataset: str,
    out: str | Path,
    connection: Connection,
    *,
    policy: str = "unanimous",
    run_dir: str | Path | None = None,
    adjudicate: bool = True,
    adjudicators: list[str] | None = None,
    dry_run: bool = False,
    overwrite: bool = False,
    min_competence: float = quality.DEFAULT_MIN_COMPETENCE,
) -> dict[str, Any]:
    """Pull, decide and write the reviewed records; see the module docstring. ``dry_run``
    writes the folder but changes nothing on the server nor in the translation memory;
    ``overwrite`` lets it replace an earlier pull of the same dataset (nothing else);
    annotators whose competence is below ``min_competence`` are named in the report's To-do."""
    if policy not in POLICIES:
        raise BiasforgeError(f"--policy must be one of {', '.join(POLICIES)}")
    check_dataset_name(dataset)  # callers of the API too, not only the command line
    _check_out(Path(out), dataset, connection.workspace, overwrite)
    asked = Asked(policy, adjudicate, tuple(adjudicators or ()), dry_run)
    with _one_pull_at_a_time(connection, dataset, dry_run):
        gathered = _gather(connection, dataset, run_dir, asked, min_competence)
        outcome, routed = _decide(connection, gathered, asked)
        return _write(Path(out), connection, gathered, outcome, routed, asked)


@contextlib.contextmanager
def _one_pull_at_a_time(connection: Connection, dataset: str, dry_run: bool):
    """Refuse a second pull of one dataset while one runs on this machine: both would send
    the same records to adjudication, and the server refuses the second copy with a raw
    "422 ... same external ids". A dry run changes nothing on the server and need not wait."""
    if dry_run:
        yield
        return
    from filelock import FileLock, Timeout

    state = private_state.path(connection.url, connection.workspace, dataset)
    locks = state.parent.parent / "pull-locks"  # not in private/: that holds only keys
    locks.mkdir(parents=True, exist_ok=True)
    lock = FileLock(locks / f"{state.stem}.lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise BiasforgeError(
            f"another `annotate pull` of {dataset!r} (workspace {connection.workspace!r}) is "
            "running on this machine; run this one when it has ended"
        ) from None
    try:
        yield
    finally:
        lock.release()


def _gather(
    connection: Connection,
    dataset: str,
    run_dir: str | Path | None,
    asked: Asked,
    min_competence: float,
) -> Gathered:
    """Everything the decisions are made from (an unknown adjudicator or dataset, or another
    run than the one pushed, is refused before anything is changed)."""
    target = _dataset(connection, dataset)
    if target is None:
        raise BiasforgeError(
            f"no dataset {dataset!r} in workspace {connection.workspace!r} at {connection.url}"
        )
    with http(connection) as api:  # an unknown adjudicator is refused before anything is done
        workspace = ensure_workspace(api, connection.workspace)
        adjudication.adjudicators(api, workspace["id"], list(asked.adjudicators))
    run_path = _run_behind(connection, dataset, run_dir)
    run = read_run(run_path)
    family = family_of(run.candidates["family"].unique(), str(run_path))
    mismatch = other_run(connection, dataset, str(target.id), run, family)
    if mismatch:
        raise BiasforgeError(f"--run {public_path(run_path)}: {mismatch}")
    distribution = target.settings.distribution
    min_submitted = int((distribution.min_submitted if distribution else 1) or 1)
    collected = collect(connection, str(target.id), family.review.label_questions)
    key = private_state.dataset_key(
        connection.url, connection.workspace, dataset, family, collected.metadata, create=False,
        doing="pull",
    )  # fmt: skip
    family = family.with_key(key).asked(collected.questions)  # asked before issue 44: as then
    answered = {rid: {a.user for a in answers} for rid, answers in collected.answers.items()}
    merged = adjudication.read(connection, dataset, answered)
    rows = family.review.units(run.table.to_pylist())  # per item, or per unit reviewed
    items = {str(row["id"]) for row in rows}
    assessed = quality.assess(
        family, collected.long, items, control_items(connection.url, connection.workspace, dataset),
        policy=asked.policy, min_competence=min_competence,
    )  # fmt: skip
    return Gathered(
        dataset, target, run_path, run, family, min_submitted, collected, key, merged, assessed,
        rows,
    )  # fmt: skip


def _decide(
    connection: Connection, gathered: Gathered, asked: Asked
) -> tuple[Outcome, adjudication.Routed]:
    """Every record's decision; the undecided ones sent to adjudication (unless a dry run)."""
    g = gathered
    outcome = decide_all(
        g.family, g.rows, g.collected, g.merged, policy=asked.policy,
        min_submitted=g.min_submitted, annotators=_annotators(connection),
        schema=g.run.table.schema, estimates=g.assessed.estimates,
        withheld=withheld(connection.url, connection.workspace, g.dataset),
    )  # fmt: skip
    settled = {d["id"] for d in outcome.details if d["adjudicated_by"]}
    routed = (
        adjudication.route(
            connection, g.dataset, g.family, outcome.to_adjudicate, list(asked.adjudicators),
            g.merged, settled=settled, dry_run=asked.dry_run,
        )
        if asked.adjudicate
        else adjudication.Routed()
    )  # fmt: skip
    return outcome, routed


def _write(
    out: Path,
    connection: Connection,
    gathered: Gathered,
    outcome: Outcome,
    routed: adjudication.Routed,
    asked: Asked,
) -> dict[str, Any]:
    """The reviewed-records folder: rows, decisions, answers, agreement, report, provenance."""
    g = gathered
    g.collected.long = quality.items_only(g.collected.long, g.items)  # control answers stay out
    summary = _summary(connection, g, outcome, asked.policy)
    provenance = _provenance(connection, g, outcome, routed, asked)
    origin = f"argilla:{connection.workspace}/{g.dataset}"
    if asked.dry_run:
        outcome.corrected = []  # a trial pull teaches the translation memory nothing
    outcome.reviewed = g.family.review.spread(outcome.reviewed, g.run.table.to_pylist())
    return _write_reviewed(
        out, g.run.table.schema, g.family, outcome, g.collected, summary, provenance, origin
    )


def _summary(connection: Connection, g: Gathered, outcome: Outcome, policy: str) -> dict[str, Any]:
    """agreement.json: agreement, decisions, what annotators were shown, quality."""
    summary = {
        "dataset": g.dataset,
        "policy": policy,
        "min_submitted": g.min_submitted,
        "questions": _agreement(g.family, g.collected.long),
        "decisions": dict(outcome.counts),
        "suggestions": g.collected.suggested,
        "shown": shown_to_annotators(
            connection, str(g.target.id), g.family, len(set(g.key.legacy) & g.items)
        ),
        "adjudicated_by": dict(
            Counter(d["adjudicated_by"] for d in outcome.details if d["adjudicated_by"])
        ),
        "corrected": sum(d["corrected"] for d in outcome.details),
        "discarded_answers": sum(d["discarded"] for d in outcome.details),
        **({"adaptation": adapting.summary(outcome.details)} if g.family.review.adaptation else {}),
    }
    accepted = _accepted(g.rows, outcome)
    summary.update(
        quality.summarise(g.assessed, g.family, g.collected, summary["questions"], accepted)
    )
    return summary


def _provenance(
    connection: Connection, g: Gathered, outcome: Outcome, routed: adjudication.Routed, asked: Asked
) -> dict[str, Any]:
    """What the manifest records of the pull: dataset, server, run, decisions, adjudication."""
    return {
        "dataset": g.dataset,
        "workspace": connection.workspace,
        "server": public_url(connection.url),
        "family": g.family.name,
        "policy": asked.policy,
        "run": public_path(g.run_path),
        "run_manifest": g.run.manifest,
        "run_stats": g.run.stats,
        "decisions": dict(outcome.counts),
        "adjudication": {
            "dataset": adjudication_name(g.dataset),
            "panels": routed.panels,
            "sent": routed.sent,
            "moved": routed.moved,
            "removed": routed.removed,
            "sent_back": routed.sent_back,
            "dry_run": asked.dry_run,
            "waiting": len(outcome.to_adjudicate) if asked.adjudicate else 0,
            "waiting_in": routed.waiting,
            "adjudicators": routed.adjudicators,
            "owners": routed.owners,
            "removed_datasets": routed.emptied,
            "removed_panels": routed.panels_removed,
            "merged": len(g.merged.answers),
            "ignored": g.merged.ignored,
        },
    }


def _accepted(candidates: list[dict], outcome: Outcome) -> list[tuple[dict, dict]]:
    """(candidate row, reviewed row) of every accepted record."""
    return [
        (row, reviewed)
        for row, reviewed in zip(candidates, outcome.reviewed, strict=True)
        if reviewed["decision"] == "accept"
    ]


def _write_reviewed(
    out: Path,
    schema: pa.Schema,
    family: Family,
    outcome: Outcome,
    collected: Collected,
    summary: dict[str, Any],
    provenance: dict[str, Any],
    origin: str,
) -> dict[str, Any]:
    """Write the reviewed-records folder atomically; corrections go to the translation memory."""
    for name, kind in (*family.review.review_columns, ("decision", pa.string())):
        if name not in schema.names:  # a run with native items has the adaptation columns
            schema = schema.append(pa.field(name, kind))
    with staged_directory(out, overwrite=True, kind=REVIEWED_KIND, family=family.name) as stage:
        people, minimum = summary.get("annotators") or {}, summary["min_competence"]
        if annotators.plot(people, minimum, stage / annotators.PLOT):
            summary["plot"] = annotators.PLOT
        tm = write_back_corrections(family, outcome.corrected, origin=origin)
        return write_reviewed(
            stage,
            reviewed=pa.Table.from_pylist(outcome.reviewed, schema=schema),
            details=outcome.details,
            responses=collected.long,
            agreement=summary,
            report_md=review_report(summary, outcome.details, provenance["adjudication"], tm),
            provenance={**provenance, "translation_memory": tm},
        )
