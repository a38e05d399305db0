"""The authors' published BBQ instances and UnifiedQA answers (six categories): test data, in
``tests/data/bbq/published`` (the source and licence: ``curation/data/bbq/README.md``)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "data" / "bbq" / "published"
#: the categories whose published files the snapshot holds
PUBLISHED = (
    "Age",
    "Disability_status",
    "Nationality",
    "Physical_appearance",
    "Religion",
    "Sexual_orientation",
)
PRED_FIELDS = ("unifiedqa-t5-11b_pred_race", "unifiedqa-t5-11b_pred_arc")


def predictions(category: str) -> list[dict]:
    """``results/UnifiedQA/preds_CATEGORY.jsonl`` as the authors published it."""
    path = HERE / f"preds_{category}.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def instances(category: str) -> list[dict]:
    """``data/CATEGORY.jsonl``: the predictions file without its three prediction fields."""
    return [
        {k: v for k, v in row.items() if not k.startswith("unifiedqa-")}
        for row in predictions(category)
    ]
