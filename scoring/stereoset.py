"""The StereoSet procedures live in ``biasforge.scoring.tasks.stereoset``; this name stays for
existing imports (the parity tests, the benchmarks)."""

from biasforge.scoring.tasks.stereoset import (
    LABELS,
    OFFICIAL_MLM,
    examples_from,
    intrasentence_method,
    item_bias,
    official_mlm,
    predictions_json,
    score_intersentence,
    score_intrasentence,
)

__all__ = [
    "LABELS",
    "OFFICIAL_MLM",
    "examples_from",
    "intrasentence_method",
    "item_bias",
    "official_mlm",
    "predictions_json",
    "score_intersentence",
    "score_intrasentence",
]
