"""The SlguSet procedures live in ``biasforge.scoring.tasks.slguset``; this name stays for
existing imports (the parity tests, the benchmarks)."""

from biasforge.scoring.tasks.slguset import (
    FIGURES,
    THRESHOLD,
    biased_topics,
    figures,
    per_pair,
    score_items,
    summary,
    summary_vector,
    topic_words,
)

__all__ = [
    "FIGURES",
    "THRESHOLD",
    "biased_topics",
    "figures",
    "per_pair",
    "score_items",
    "summary",
    "summary_vector",
    "topic_words",
]
