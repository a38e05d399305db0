"""The BEC-Pro procedures live in ``biasforge.scoring.tasks.becpro``; this name stays for
existing imports (the parity tests, the benchmarks)."""

from biasforge.scoring.tasks.becpro import (
    GROUP_ORDER,
    MARKER,
    PROCEDURES,
    association_table,
    bartl_logprobs,
    bartl_reads,
    bartl_width,
    figures,
    published_masking,
    score_items,
    tsv_masks,
)

__all__ = [
    "GROUP_ORDER",
    "MARKER",
    "PROCEDURES",
    "association_table",
    "bartl_logprobs",
    "bartl_reads",
    "bartl_width",
    "figures",
    "published_masking",
    "score_items",
    "tsv_masks",
]
