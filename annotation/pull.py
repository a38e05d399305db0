"""``biasforge annotate pull``: responses → agreement → decisions → reviewed records.

For every record, the submitted answers of each deciding question are combined under a policy:
``unanimous`` (every annotator gave the same answer, as SlguSet required) or ``majority`` (more
than half did). The correction text question is combined the same way (an unchanged
pre-filled text counts as "no change"). A record with at least ``min_submitted`` answers whose
questions are all decided gets ``accept`` or ``reject`` from the family's rule; one without
enough answers stays ``pending``; one where annotators disagree also stays ``pending`` and is
sent to the adjudication dataset (``NAME-adjudication``, one adjudicator per record), whose
answers override the votes on the next pull.

Outputs (written atomically to ``--out``): ``reviewed.parquet`` (candidate columns with the
same Arrow types, corrections applied, plus ``decision``), ``decisions.parquet`` (per record:
decision, reason, number of annotators, votes), ``responses.parquet`` (every answer),
``agreement.json``, ``report.md`` and ``manifest.json`` (checksums, the run behind them).
Accepted corrections of translated items are stored in the translation memory as preferred
translations (:meth:`biasforge.translation_memory.TranslationMemory.prefer`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from annotation.agreement import agreement_report
from annotation.api import http, iter_records, users
from annotation.connection import Connection, client
from annotation.registry import run_of
from biasforge.contract.manifest import write_manifest
from biasforge.contract.markdown import md_table
from biasforge.contract.rundir import read_run
from biasforge.errors import BiasforgeError
from biasforge.families import Family, family_of
from biasforge.files import staged_directory, write_json_atomic, write_text_atomic
from biasforge.translation_memory import TranslationMemory

POLICIES = ("unanimous", "majority")


def adjudication_name(dataset: str) -> str:
    return f"{dataset}-adjudication"


def combine(values: list[str], policy: str) -> str | None:
    """The decided value of one question, or None when the policy is not met."""
    if not values:
        return None
    value, count = Counter(values).most_common(1)[0]
    if policy == "unanimous":
        return value if count == len(values) else None
    return value if count * 2 > len(values) else None


@dataclass
class Decision:
    decision: str  # accept | reject | pending
    reason: str
    annotators: int
    decided: dict[str, str]
    correction: str | None = None  # the agreed corrected text, when it differs
    adjudicate: bool = False


def decide(
    family: Family,
    row: dict[str, Any],
    responses: list[dict[str, Any]],
    policy: str,
    min_submitted: int,
    adjudicated: dict[str, Any] | None = None,
) -> Decision:
    """Decide one record from its submitted responses (``{question: value}`` dicts)."""
    original = (
        family.review.record(row)["suggestions"].get(family.review.correction[0])
        if family.review.correction
        else None
    )
    if adjudicated is not None:
        votes = {
            q: [str(adjudicated[q])]
            for q in family.review.criteria
            if adjudicated.get(q) is not None
        }
        corrections = (
            [str(adjudicated.get(family.review.correction[0]) or original)]
            if family.review.correction
            else []
        )
        source, n = "adjudicated", 1
    else:
        submitted = responses
        if len(submitted) < min_submitted:
            return Decision(
                "pending", f"{len(submitted)} of {min_submitted} answers so far", len(submitted), {}
            )
        votes = {
            q: [str(r[q]) for r in submitted if r.get(q) is not None]
            for q in family.review.criteria
        }
        corrections = (
            [str(r.get(family.review.correction[0]) or original).strip() for r in submitted]
            if family.review.correction
            else []
        )
        source, n = policy, len(submitted)
    decided = {
        q: combine(v, "unanimous" if source == "adjudicated" else policy) for q, v in votes.items()
    }
    undecided = sorted(q for q, v in decided.items() if v is None)
    if undecided:
        return Decision(
            "pending", f"no {policy} answer on: {', '.join(undecided)}", n, {}, adjudicate=True
        )
    correction = None
    if family.review.correction:
        agreed = combine(corrections, "unanimous" if source == "adjudicated" else policy)
        if agreed is None:
            return Decision(
                "pending", "annotators proposed different corrections", n, decided, adjudicate=True
            )
        if agreed != (original or "").strip():
            correction = agreed
    if not family.review.accepts(decided):
        return Decision(
            "reject", f"{source}: " + ", ".join(f"{q}={v}" for q, v in decided.items()), n, decided
        )
    return Decision("accept", f"{source}: all criteria met", n, decided, correction)


def apply_decision(family: Family, row: dict[str, Any], decision: Decision) -> dict[str, Any]:
    """The row with the agreed labels and correction applied (StereoSet labels, corrected text)."""
    row = dict(row)
    if decision.decision != "accept":
        return row
    row = family.review.apply_answers(row, decision.decided)
    if decision.correction and family.review.apply_correction:
        row = family.review.apply_correction(row, decision.correction)
    return row


def collect(connection: Connection, dataset_id: str) -> tuple[dict[str, list[dict]], pd.DataFrame]:
    """Submitted responses per external id, and every response as a long table."""
    with http(connection) as api:
        names = {u["id"]: u["username"] for u in users(api)}
        per_record: dict[str, list[dict]] = {}
        rows = []
        for record in iter_records(api, dataset_id, include="responses"):
            external = str(record.get("external_id"))
            per_record.setdefault(external, [])
            for response in record.get("responses") or []:
                user = names.get(response["user_id"], response["user_id"])
                values = {
                    q: (v or {}).get("value") for q, v in (response.get("values") or {}).items()
                }
                for question, value in values.items():
                    rows.append(
                        {
                            "id": external,
                            "annotator": user,
                            "status": response["status"],
                            "question": question,
                            "value": json.dumps(value, ensure_ascii=False)
                            if isinstance(value, list | dict)
                            else value,
                        }
                    )
                if response["status"] == "submitted":
                    per_record[external].append({**values, "_user": user})
    long = pd.DataFrame(rows, columns=["id", "annotator", "status", "question", "value"])
    return per_record, long


def _dataset(connection: Connection, name: str):
    rg_client = client(connection)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rg_client.datasets(name=name, workspace=connection.workspace)


def push_adjudication(
    connection: Connection,
    dataset: str,
    family: Family,
    rows: list[dict],
    votes: dict[str, list[dict]],
) -> int:
    """Send undecided records to ``NAME-adjudication`` (one adjudicator; votes shown)."""
    import argilla as rg

    from annotation.api import check, questions
    from annotation.push import ensure_workspace, existing_ids, record_payloads

    if not rows:
        return 0
    rg_client = client(connection)
    ensure_workspace(rg_client, connection.workspace)
    name = adjudication_name(dataset)
    target = _dataset(connection, name)
    if target is None:
        settings = family.review.settings(
            min_submitted=1,
            extra_fields=(("votes", "Annotators' answers", True),),
            guidelines="# Adjudication\n\nThese items had no agreed answer. Read the annotators' "
            "answers, then give the final answer to every question; it replaces their votes.\n\n"
            + family.review.guidelines,
        )
        target = rg.Dataset(
            name=name, workspace=connection.workspace, settings=settings, client=rg_client
        ).create()
    present = existing_ids(connection, str(target.id))
    todo = [row for row in rows if str(row["id"]) not in present]
    with http(connection) as api:
        question_ids = {q["name"]: q["id"] for q in questions(api, str(target.id))}
        for start in range(0, len(todo), 500):
            batch = todo[start : start + 500]
            items = record_payloads(family, batch, question_ids)
            for item, row in zip(items, batch, strict=True):
                lines = [
                    md_table(
                        ["annotator", *family.review.criteria],
                        [
                            [vote["_user"], *(vote.get(q) for q in family.review.criteria)]
                            for vote in votes.get(str(row["id"]), [])
                        ],
                    )
                ]
                if family.review.correction:
                    for vote in votes.get(str(row["id"]), []):
                        text = vote.get(family.review.correction[0])
                        if text:
                            lines.append(f"\n**{vote['_user']}'s correction:**\n\n```\n{text}\n```")
                item["fields"]["votes"] = "\n".join(lines)
            check(api.post(f"/api/v1/datasets/{target.id}/records/bulk", json={"items": items}))
    return len(todo)


def write_back_corrections(
    family: Family, pairs: list[tuple[dict, dict]], origin: str
) -> dict[str, Any]:
    """Store accepted corrections of translated items as preferred translations."""
    entries = []
    for before, after in pairs:
        src_lang, lang = str(before.get("source_language") or ""), str(before.get("language") or "")
        if src_lang and src_lang != lang:
            for source, text in family.review.corrected_sources(before, after):
                entries.append((source, src_lang, lang, text))
    if not entries:
        return {"written": 0, "target": None}
    with TranslationMemory() as memory:
        for source, src_lang, lang, text in entries:
            memory.prefer(source, src_lang, lang, text, origin=origin)
        target = str(getattr(memory, "path", "translation memory"))
    return {"written": len(entries), "target": target}


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _report(
    name: str, policy: str, counts: Counter, agreement: dict[str, Any], adjudication: int, tm: dict
) -> str:
    decisions = [[k, counts.get(k, 0)] for k in ("accept", "reject", "pending")]
    figures = [
        [
            q,
            a["items"],
            _figure(a["krippendorff_alpha"]),
            f"{_figure(a['fleiss_kappa'])} ({a['fleiss_items']})",
            _figure(a["percent_unanimous"]),
        ]
        for q, a in agreement.items()
    ]
    lines = [f"# Review of `{name}`", "", f"Policy: **{policy}**.", ""]
    lines += [md_table(["decision", "records"], decisions), "", "## Agreement", ""]
    header = ["question", "items", "Krippendorff α", "Fleiss κ (items)", "% unanimous"]
    lines.append(md_table(header, figures))
    for q, a in agreement.items():
        rows = [
            [who, fig["items"], _figure(fig["pairwise_agreement"]), _figure(fig["alpha_without"])]
            for who, fig in a["per_annotator"].items()
        ]
        lines += ["", f"### `{q}`: each annotator against the others", ""]
        lines.append(md_table(["annotator", "items", "pairwise agreement", "α without them"], rows))
    lines += [
        "",
        f"Records sent to adjudication (`{adjudication_name(name)}`): {adjudication}.",
        f"Corrections written to the translation memory: {tm['written']}.",
        "",
    ]
    return "\n".join(lines)


@dataclass
class Outcome:
    """Every record's decision, and what follows from them."""

    reviewed: list[dict[str, Any]] = field(default_factory=list)  # rows + decision
    details: list[dict[str, Any]] = field(default_factory=list)  # decisions.parquet rows
    to_adjudicate: list[dict[str, Any]] = field(default_factory=list)
    corrected: list[tuple[dict, dict]] = field(default_factory=list)  # (before, after)

    @property
    def counts(self) -> Counter:
        return Counter(d["decision"] for d in self.details)


def _decide_row(family: Family, row: dict, decision: Decision, adjudicated: bool) -> tuple:
    """The row after the decision; a correction that cannot be applied leaves it pending."""
    try:
        return decision, apply_decision(family, row, decision)
    except ValueError as exc:
        pending = Decision(
            "pending",
            f"correction cannot be applied: {exc}",
            decision.annotators,
            decision.decided,
            adjudicate=not adjudicated,
        )
        return pending, dict(row)


def decide_all(
    family: Family,
    candidates: list[dict[str, Any]],
    votes: dict[str, list[dict]],
    adjudicated: dict[str, dict],
    policy: str,
    min_submitted: int,
) -> Outcome:
    """Decide every candidate of the run from the votes (and adjudications)."""
    outcome = Outcome()
    for row in candidates:
        rid = str(row["id"])
        decision = decide(
            family, row, votes.get(rid, []), policy, min_submitted, adjudicated.get(rid)
        )
        decision, new_row = _decide_row(family, row, decision, rid in adjudicated)
        if decision.adjudicate and rid not in adjudicated:
            outcome.to_adjudicate.append(row)
        if decision.decision == "accept" and new_row != row:
            outcome.corrected.append((row, new_row))
        outcome.reviewed.append({**new_row, "decision": decision.decision})
        outcome.details.append(
            {
                "id": rid,
                "decision": decision.decision,
                "reason": decision.reason,
                "annotators": decision.annotators,
                "adjudicated": rid in adjudicated,
                "corrected": new_row != row,
                "decided": json.dumps(decision.decided, ensure_ascii=False, sort_keys=True),
            }
        )
    return outcome


def _run_behind(connection: Connection, dataset: str, run_dir: str | Path | None) -> Path:
    run_path = Path(run_dir) if run_dir else run_of(connection.url, connection.workspace, dataset)
    if run_path is None:
        raise BiasforgeError(f"which run was {dataset!r} pushed from? pass --run RUN_DIR")
    return run_path


def _adjudicated(connection: Connection, dataset: str) -> dict[str, dict]:
    """The adjudicator's answer per record, from ``NAME-adjudication`` if it exists."""
    adjudication = _dataset(connection, adjudication_name(dataset))
    if adjudication is None:
        return {}
    adj_votes, _ = collect(connection, str(adjudication.id))
    return {rid: v[-1] for rid, v in adj_votes.items() if v}


def _agreement(family: Family, long: pd.DataFrame) -> dict[str, Any]:
    answers = long[long["status"] == "submitted"].rename(columns={"id": "item"})
    questions = family.review.label_questions
    answers = answers[answers["question"].isin(questions)].dropna(subset=["value"])
    return agreement_report(answers, questions)


def pull(
    dataset: str,
    out: str | Path,
    connection: Connection,
    *,
    policy: str = "unanimous",
    run_dir: str | Path | None = None,
    adjudicate: bool = True,
) -> dict[str, Any]:
    """Pull, decide and write the reviewed records; see the module docstring."""
    if policy not in POLICIES:
        raise BiasforgeError(f"--policy must be one of {', '.join(POLICIES)}")
    target = _dataset(connection, dataset)
    if target is None:
        raise BiasforgeError(
            f"no dataset {dataset!r} in workspace {connection.workspace!r} at {connection.url}"
        )
    run_path = _run_behind(connection, dataset, run_dir)
    run = read_run(run_path)
    family = family_of(run.candidates["family"].unique(), str(run_path))
    distribution = target.settings.distribution
    min_submitted = int((distribution.min_submitted if distribution else 1) or 1)

    votes, long = collect(connection, str(target.id))
    adjudicated = _adjudicated(connection, dataset)
    rows = pq.read_table(run.path / "candidates.parquet").to_pylist()  # nulls stay None
    outcome = decide_all(family, rows, votes, adjudicated, policy, min_submitted)
    agreement = _agreement(family, long)
    sent = (
        push_adjudication(connection, dataset, family, outcome.to_adjudicate, votes)
        if adjudicate
        else 0
    )
    summary = {
        "dataset": dataset,
        "policy": policy,
        "min_submitted": min_submitted,
        "questions": agreement,
        "decisions": dict(outcome.counts),
    }
    provenance = {
        "dataset": dataset,
        "workspace": connection.workspace,
        "server": connection.url,
        "family": family.name,
        "policy": policy,
        "run": str(Path(run_path).resolve()),
        "run_manifest": run.manifest,
        "run_stats": run.stats,
        "decisions": dict(outcome.counts),
        "adjudication": {
            "dataset": adjudication_name(dataset),
            "sent": sent,
            "merged": len(adjudicated),
        },
    }
    origin = f"argilla:{connection.workspace}/{dataset}"
    return _write_reviewed(Path(out), run_path, family, outcome, long, summary, provenance, origin)


def _write_reviewed(
    out: Path,
    run_path: Path,
    family: Family,
    outcome: Outcome,
    long: pd.DataFrame,
    summary: dict[str, Any],
    provenance: dict[str, Any],
    origin: str,
) -> dict[str, Any]:
    """Write the reviewed-records folder atomically; corrections go to the translation memory."""
    schema = pq.read_schema(Path(run_path) / "candidates.parquet").append(
        pa.field("decision", pa.string())
    )
    with staged_directory(out, overwrite=True) as stage:
        reviewed = pa.Table.from_pylist(outcome.reviewed, schema=schema)
        pq.write_table(reviewed, stage / "reviewed.parquet")
        pq.write_table(pa.Table.from_pylist(outcome.details), stage / "decisions.parquet")
        pq.write_table(
            pa.Table.from_pandas(long, preserve_index=False), stage / "responses.parquet"
        )
        tm = write_back_corrections(family, outcome.corrected, origin=origin)
        write_json_atomic(stage / "agreement.json", summary)
        sent = provenance["adjudication"]["sent"]
        report = _report(
            summary["dataset"], summary["policy"], outcome.counts, summary["questions"], sent, tm
        )
        write_text_atomic(stage / "report.md", report)
        return write_manifest(stage, "reviewed", **provenance, translation_memory=tm)
