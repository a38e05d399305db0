"""The official StereoSet JSON layout (Nadeem et al. 2021), so existing tools read our items.

``{"version": …, "data": {"intrasentence": [example…], "intersentence": [example…]}}`` with
``example = {"id", "target", "bias_type", "context", "sentences": [{"id", "sentence",
"labels": [{"human_id", "label"}], "gold_label"}]}``. The official loader (``dataloader.py``
of the StereoSet repository) requires: string sentence ids, a gold label among stereotype /
anti-stereotype / unrelated, a non-empty list of ``{human_id, label}`` labels (nothing else in
a label), and for intrasentence items a context word containing ``BLANK`` whose position
exists in every sentence (it reads the filled-in word there). The evaluator then looks up one
sentence per gold label of each example and scores by sentence id, so ids must be unique.

Our items carry one gold label per sentence (the reviewed one), not the five crowd labels of
the original; each sentence gets a single label from ``human_id`` :data:`GOLD_HUMAN_ID`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from biasforge.errors import InputError
from biasforge.families.stereoset import LABELS as GOLD_LABELS
from biasforge.families.stereoset import SCHEMA, SPLITS
from biasforge.files import write_text_atomic

GOLD_HUMAN_ID = "biasforge-gold"


def _sentences(value: Any) -> list[dict[str, Any]]:
    return [dict(s) for s in (list(value) if value is not None else [])]


def loader_problems(example: dict[str, Any], split: str) -> list[str]:
    """Why the official loader or evaluator would fail on ``example`` (empty when fine)."""
    problems = []
    golds = [s.get("gold_label") for s in example["sentences"]]
    if sorted(golds) != sorted(GOLD_LABELS):
        problems.append(f"needs one sentence per gold label {GOLD_LABELS}, has {golds}")
    for s in example["sentences"]:
        if not isinstance(s.get("id"), str) or not s["id"]:
            problems.append("a sentence has no string id")
    if split == "intrasentence":
        words = example["context"].split(" ")
        positions = [i for i, w in enumerate(words) if "BLANK" in w]
        if not positions:
            problems.append("no BLANK word in the context")
        else:
            for s in example["sentences"]:
                if len(s["sentence"].split(" ")) <= positions[-1]:
                    problems.append(
                        f"sentence {s['sentence']!r} has no word at the BLANK's position {positions[-1]}"
                    )
    return problems


def to_stereoset_json(items: pd.DataFrame, version: str) -> dict[str, Any]:
    """Build the official layout from StereoSet items; raise on an item the loader would reject."""
    missing = [c for c in SCHEMA.missing(items.columns) if c not in ("family", "language")]
    other_family = "family" in items.columns and (items["family"] != SCHEMA.family).any()
    if missing or other_family:  # no family column: items as scoring reads a bare table
        raise InputError(
            "items",
            "not StereoSet items"
            + (f": missing column(s) {', '.join(missing)}" if missing else "")
            + "; stereoset-json converts StereoSet releases or runs",
        )
    data: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    seen: set[str] = set()
    for row in items.itertuples(index=False):
        split = str(row.split)
        if split not in data:
            raise InputError("items", f"unknown split {split!r}", record=str(row.id))
        example = {
            "id": str(row.id),
            "target": str(row.target),
            "bias_type": str(row.bias_type),
            "context": str(row.context),
            "sentences": [
                {
                    "id": str(s["id"]),
                    "sentence": str(s["sentence"]),
                    "labels": [{"human_id": GOLD_HUMAN_ID, "label": str(s["label"])}],
                    "gold_label": str(s["label"]),
                }
                for s in _sentences(row.sentences)
            ],
        }
        problems = loader_problems(example, split)
        for s in example["sentences"]:
            if s["id"] in seen:
                problems.append(f"duplicate sentence id {s['id']!r}")
            seen.add(s["id"])
        if example["id"] in seen:
            problems.append("duplicate item id")
        seen.add(example["id"])
        if problems:
            raise InputError("items", "; ".join(problems), record=example["id"])
        data[split].append(example)
    return {"version": version, "data": data}


def write_stereoset_json(items: pd.DataFrame, out: str | Path, version: str) -> dict[str, int]:
    """Write the JSON atomically; return how many examples each split got."""
    document = to_stereoset_json(items, version)
    write_text_atomic(out, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    return {split: len(examples) for split, examples in document["data"].items()}


def write(items: pd.DataFrame, out: str | Path, *, label: str) -> str:
    """``export convert --format stereoset-json``: the JSON and a summary line."""
    counts = write_stereoset_json(items, out, label)
    return (
        f"wrote {counts['intrasentence']} intrasentence and {counts['intersentence']} "
        f"intersentence examples to {out} (official StereoSet layout)"
    )
