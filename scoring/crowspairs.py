"""The CrowS-Pairs procedures live in ``biasforge.scoring.tasks.crowspairs``; this name stays for
existing imports (the parity tests, the benchmarks)."""

from biasforge.scoring.tasks.crowspairs import (
    OVERALL,
    answers,
    figures,
    pair_scores,
    procedure,
    results,
    score_pairs,
)

__all__ = ["OVERALL", "answers", "figures", "pair_scores", "procedure", "results", "score_pairs"]
