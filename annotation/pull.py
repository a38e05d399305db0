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
translations (``curation.translation.memory.TranslationMemory.prefer``).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from annotation.agreement import agreement_report
from annotation.api import http, iter_records, users
from annotation.connection import Connection, client
from annotation.families import Family, family_of
from annotation.registry import run_of
from biasforge.errors import BiasforgeError
from biasforge.files import sha256_file, staged_directory, write_json_atomic, write_text_atomic

POLICIES = ("unanimous", "majority")


def adjudication_name(dataset: str) -> str:
    return f"{dataset}-adjudication"


def plain(value: Any) -> Any:
    """numpy arrays from parquet → lists (recursively), so rows rebuild with pyarrow."""
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


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
        family.to_record(row)["suggestions"].get(family.correction[0])
        if family.correction
        else None
    )
    if adjudicated is not None:
        votes = {
            q: [str(adjudicated[q])] for q in family.criteria if adjudicated.get(q) is not None
        }
        corrections = (
            [str(adjudicated.get(family.correction[0]) or original)] if family.correction else []
        )
        source, n = "adjudicated", 1
    else:
        submitted = responses
        if len(submitted) < min_submitted:
            return Decision(
                "pending", f"{len(submitted)} of {min_submitted} answers so far", len(submitted), {}
            )
        votes = {q: [str(r[q]) for r in submitted if r.get(q) is not None] for q in family.criteria}
        corrections = (
            [str(r.get(family.correction[0]) or original).strip() for r in submitted]
            if family.correction
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
    if family.correction:
        agreed = combine(corrections, "unanimous" if source == "adjudicated" else policy)
        if agreed is None:
            return Decision(
                "pending", "annotators proposed different corrections", n, decided, adjudicate=True
            )
        if agreed != (original or "").strip():
            correction = agreed
    if not family.accepts(decided):
        return Decision(
            "reject", f"{source}: " + ", ".join(f"{q}={v}" for q, v in decided.items()), n, decided
        )
    return Decision("accept", f"{source}: all criteria met", n, decided, correction)


def apply_decision(family: Family, row: dict[str, Any], decision: Decision) -> dict[str, Any]:
    """The row with the agreed labels and correction applied (StereoSet labels, corrected text)."""
    row = dict(row)
    if decision.decision != "accept":
        return row
    if family.name == "stereoset":
        sentences = [dict(s) for s in row.get("sentences") or []]
        for index, item in enumerate(sentences[:3], 1):
            item["label"] = decision.decided.get(f"label_{index}", item["label"])
        row["sentences"] = sentences
    if decision.correction and family.apply_correction:
        row = family.apply_correction(row, decision.correction)
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
        settings = family.settings(
            min_submitted=1,
            extra_fields=(("votes", "Annotators' answers", True),),
            guidelines="# Adjudication\n\nThese items had no agreed answer. Read the annotators' "
            "answers, then give the final answer to every question; it replaces their votes.\n\n"
            + family.guidelines,
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
                    "| annotator | " + " | ".join(family.criteria) + " |",
                    "|---" * (len(family.criteria) + 1) + "|",
                ]
                for vote in votes.get(str(row["id"]), []):
                    lines.append(
                        f"| {vote['_user']} | "
                        + " | ".join(str(vote.get(q)) for q in family.criteria)
                        + " |"
                    )
                if family.correction:
                    for vote in votes.get(str(row["id"]), []):
                        text = vote.get(family.correction[0])
                        if text:
                            lines.append(f"\n**{vote['_user']}'s correction:**\n\n```\n{text}\n```")
                item["fields"]["votes"] = "\n".join(lines)
            check(api.post(f"/api/v1/datasets/{target.id}/records/bulk", json={"items": items}))
    return len(todo)


def write_back_corrections(
    family: Family, pairs: list[tuple[dict, dict]], out: Path, origin: str
) -> dict[str, Any]:
    """Store accepted corrections of translated items as preferred translations."""
    entries = []
    for before, after in pairs:
        src_lang, lang = str(before.get("source_language") or ""), str(before.get("language") or "")
        if not src_lang or src_lang == lang:
            continue
        if family.name == "stereoset":
            if after.get("context") != before.get("context"):
                entries.append((before["source_text"], src_lang, lang, after["context"]))
            sources = list(before.get("source_sentences") or [])
            for index, (old, new) in enumerate(
                zip(before.get("sentences") or [], after.get("sentences") or [], strict=False)
            ):
                if old.get("sentence") != new.get("sentence") and index < len(sources):
                    entries.append((sources[index], src_lang, lang, new["sentence"]))
        elif after.get("sentence") != before.get("sentence") and before.get("source_text"):
            entries.append((before["source_text"], src_lang, lang, after["sentence"]))
    if not entries:
        return {"written": 0, "target": None}
    try:
        from curation.translation.memory import TranslationMemory
    except ImportError:  # translation memory not available: keep the corrections next to the output
        with open(out / "corrections.jsonl", "w", encoding="utf-8") as handle:
            for source, src_lang, lang, text in entries:
                handle.write(
                    json.dumps(
                        {
                            "source_text": source,
                            "source_lang": src_lang,
                            "target_lang": lang,
                            "text": text,
                        },
                        ensure_ascii=False,
                    )
                    + "\n"
                )
        return {"written": len(entries), "target": "corrections.jsonl"}
    with TranslationMemory() as memory:
        for source, src_lang, lang, text in entries:
            memory.prefer(source, src_lang, lang, text, origin=origin)
        target = str(getattr(memory, "path", "translation memory"))
    return {"written": len(entries), "target": target}


def _report(
    name: str, policy: str, counts: Counter, agreement: dict[str, Any], adjudication: int, tm: dict
) -> str:
    lines = [
        f"# Review of `{name}`",
        "",
        f"Policy: **{policy}**.",
        "",
        "| decision | records |",
        "|---|---|",
    ]
    lines += [f"| {k} | {counts.get(k, 0)} |" for k in ("accept", "reject", "pending")]
    lines += [
        "",
        "## Agreement",
        "",
        "| question | items | Krippendorff α | Fleiss κ (items) | % unanimous |",
        "|---|---|---|---|---|",
    ]

    def fmt(x):
        return "–" if x is None else f"{x:.3f}"

    for q, a in agreement.items():
        lines.append(
            f"| {q} | {a['items']} | {fmt(a['krippendorff_alpha'])} | {fmt(a['fleiss_kappa'])} ({a['fleiss_items']}) | {fmt(a['percent_unanimous'])} |"
        )
    for q, a in agreement.items():
        lines += [
            "",
            f"### `{q}`: each annotator against the others",
            "",
            "| annotator | items | pairwise agreement | α without them |",
            "|---|---|---|---|",
        ]
        for who, fig in a["per_annotator"].items():
            lines.append(
                f"| {who} | {fig['items']} | {fmt(fig['pairwise_agreement'])} | {fmt(fig['alpha_without'])} |"
            )
    lines += [
        "",
        f"Records sent to adjudication (`{adjudication_name(name)}`): {adjudication}.",
        f"Corrections written to the translation memory: {tm['written']}.",
        "",
    ]
    return "\n".join(lines)


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
    from curation.rundir import read_run

    if policy not in POLICIES:
        raise BiasforgeError(f"--policy must be one of {', '.join(POLICIES)}")
    target = _dataset(connection, dataset)
    if target is None:
        raise BiasforgeError(
            f"no dataset {dataset!r} in workspace {connection.workspace!r} at {connection.url}"
        )
    run_path = Path(run_dir) if run_dir else run_of(connection.url, connection.workspace, dataset)
    if run_path is None:
        raise BiasforgeError(f"which run was {dataset!r} pushed from? pass --run RUN_DIR")
    run = read_run(run_path)
    family = family_of(run.candidates)
    min_submitted = int(
        (target.settings.distribution.min_submitted if target.settings.distribution else 1) or 1
    )

    votes, long = collect(connection, str(target.id))
    adjudicated: dict[str, dict] = {}
    adjudication = _dataset(connection, adjudication_name(dataset))
    if adjudication is not None:
        adj_votes, _ = collect(connection, str(adjudication.id))
        adjudicated = {rid: v[-1] for rid, v in adj_votes.items() if v}

    candidates = [
        {k: plain(v) for k, v in row.items()} for row in run.candidates.to_dict(orient="records")
    ]
    reviewed, details, to_adjudicate, corrected_pairs = [], [], [], []
    for row in candidates:
        rid = str(row["id"])
        decision = decide(
            family, row, votes.get(rid, []), policy, min_submitted, adjudicated.get(rid)
        )
        try:
            new_row = apply_decision(family, row, decision)
        except ValueError as exc:
            decision = Decision(
                "pending",
                f"correction cannot be applied: {exc}",
                decision.annotators,
                decision.decided,
                adjudicate=rid not in adjudicated,
            )
            new_row = dict(row)
        if decision.adjudicate and rid not in adjudicated:
            to_adjudicate.append(row)
        if decision.decision == "accept" and new_row != row:
            corrected_pairs.append((row, new_row))
        reviewed.append({**new_row, "decision": decision.decision})
        details.append(
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

    answers = long[long["status"] == "submitted"].rename(columns={"id": "item"})
    answers = answers[answers["question"].isin(family.label_questions)].dropna(subset=["value"])
    agreement = agreement_report(answers, family.label_questions)
    sent = push_adjudication(connection, dataset, family, to_adjudicate, votes) if adjudicate else 0

    schema = pq.read_schema(Path(run_path) / "candidates.parquet").append(
        pa.field("decision", pa.string())
    )
    counts = Counter(d["decision"] for d in details)
    out = Path(out)
    with staged_directory(out, overwrite=True) as stage:
        pq.write_table(pa.Table.from_pylist(reviewed, schema=schema), stage / "reviewed.parquet")
        pq.write_table(pa.Table.from_pylist(details), stage / "decisions.parquet")
        pq.write_table(
            pa.Table.from_pandas(long, preserve_index=False), stage / "responses.parquet"
        )
        tm = write_back_corrections(
            family, corrected_pairs, stage, origin=f"argilla:{connection.workspace}/{dataset}"
        )
        summary = {
            "dataset": dataset,
            "policy": policy,
            "min_submitted": min_submitted,
            "questions": agreement,
            "decisions": dict(counts),
        }
        write_json_atomic(stage / "agreement.json", summary)
        write_text_atomic(
            stage / "report.md", _report(dataset, policy, counts, agreement, sent, tm)
        )
        files = sorted(p.name for p in stage.iterdir() if p.is_file())
        manifest = {
            "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "dataset": dataset,
            "workspace": connection.workspace,
            "server": connection.url,
            "family": family.name,
            "policy": policy,
            "run": str(Path(run_path).resolve()),
            "run_manifest": run.manifest,
            "run_stats": run.stats,
            "decisions": dict(counts),
            "adjudication": {
                "dataset": adjudication_name(dataset),
                "sent": sent,
                "merged": len(adjudicated),
            },
            "translation_memory": tm,
            "files": {name: sha256_file(stage / name) for name in files},
        }
        write_json_atomic(stage / "manifest.json", manifest)
    return manifest
