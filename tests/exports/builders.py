"""Real inputs for the export tests: run directories and reviewed-records folders.

StereoSet candidates are built from the bundled English dev set following the candidate
contract (RULES.md / DESIGN.md), independently of the StereoSet curation pipeline.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from biasforge import families
from biasforge.contract.rundir import write_run
from biasforge.files import sha256_file, write_json_atomic
from tests.conftest import SHARED

STEREOSET_EN = SHARED / "data" / "stereoset" / "stereoset_dev_en.jsonl"
LABELS = ("stereotype", "anti-stereotype", "unrelated")

# the family's candidate record (the contract), without the optional columns that an English
# source item has no value for
STEREOSET_SCHEMA = pa.schema(
    [
        f
        for f in families.get("stereoset").schema.arrow
        if f.name not in {"source_sentences", "variant"}
    ]
)


def _hid(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def stereoset_rows(path: Path = STEREOSET_EN) -> list[dict]:
    """Every English dev item as a candidate row (no filtering)."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for index, line in enumerate(handle):
            raw = json.loads(line)
            split, context = raw["type"], raw["context"]
            rid = _hid("stereoset", "en", f"dev:{index}")
            prefix, _, suffix = context.partition("BLANK")
            sentences = []
            for label in LABELS:
                text = raw[label]
                attribute = (
                    text[len(prefix) : len(text) - len(suffix)]
                    if split == "intrasentence"
                    else text
                )
                sentences.append(
                    {
                        "id": _hid(rid, label),
                        "label": label,
                        "sentence": text,
                        "attribute": attribute,
                    }
                )
            rows.append(
                {
                    "id": rid,
                    "family": "stereoset",
                    "language": "en",
                    "source_id": f"dev:{index}",
                    "source_language": "en",
                    "source_text": context,
                    "split": split,
                    "bias_type": raw["bias_type"],
                    "target": raw["target"],
                    "context": context,
                    "sentences": sentences,
                    "checks": [],
                    "needs_review": False,
                    "review_reasons": [],
                    "translation": None,
                }
            )
    return rows


def one_blank(row: dict) -> bool:
    return row["split"] != "intrasentence" or row["context"].count("BLANK") == 1


def write_stereoset_run(out: Path, rows: list[dict]) -> Path:
    """A run directory: items whose context has several BLANKs go to rejected.parquet."""
    kept = [
        dict(r, checks=[{"rule": "one_blank", "passed": True, "severity": "reject", "detail": ""}])
        for r in rows
        if one_blank(r)
    ]
    rejected = [
        dict(
            r,
            checks=[
                {"rule": "one_blank", "passed": False, "severity": "reject", "detail": "2 BLANKs"}
            ],
            reasons=["one_blank: 2 BLANKs"],
        )
        for r in rows
        if not one_blank(r)
    ]
    stats = {
        "family": "stereoset",
        "items": len(rows),
        "kept": len(kept),
        "rejected": len(rejected),
        "needs_review": 0,
        "structure": {"identical_but_attribute": sum(r["split"] == "intrasentence" for r in kept)},
        "rules": [
            {
                "rule": "one_blank",
                "severity": "reject",
                "description": "exactly one BLANK",
                "seen": len(rows),
                "failed": len(rejected),
                "seconds": 0.0,
            }
        ],
    }
    return write_run(
        out,
        candidates=pd.DataFrame(kept),
        rejected=pd.DataFrame(rejected),
        schema=families.get("stereoset").schema,
        stats=stats,
        report_md="# test run\n",
        inputs=[
            {
                "role": "stereoset dev (en)",
                "path": str(STEREOSET_EN),
                "sha256": sha256_file(STEREOSET_EN),
            }
        ],
        config={"family": "stereoset", "language": "en", "source": "dev"},
    ).path


def write_reviewed(
    out: Path,
    table: pa.Table,
    decisions: list[str],
    agreement: dict | None = None,
    run: Path | None = None,
) -> Path:
    """A reviewed-records folder as `annotate pull` writes it: candidate columns + decision,
    and a manifest of kind ``reviewed`` that embeds the run's manifest and stats (when given)."""
    from biasforge.contract.manifest import write_manifest
    from biasforge.contract.rundir import read_run

    out.mkdir(parents=True)
    reviewed = table.append_column("decision", pa.array(decisions, pa.string()))
    pq.write_table(reviewed, out / "reviewed.parquet")
    if agreement is not None:
        write_json_atomic(out / "agreement.json", agreement)
    behind = read_run(run) if run else None
    write_manifest(
        out, "reviewed", dataset=out.name, family=table.column("family")[0].as_py(),
        run_manifest=behind.manifest if behind else None,
        run_stats=behind.stats if behind else None,
    )  # fmt: skip
    return out
