"""CrowS-Pairs (Nangia et al. 2020): the ``score crowspairs`` task."""

from __future__ import annotations

from biasforge.scoring.tasks import ScoreRequest, ScoringTask


def command(request: ScoreRequest) -> None:
    """Percent of pairs where the model prefers the more-stereotypical sentence, per bias type
    with bootstrap intervals (masked LMs: metric.py's shared-token pseudo-log-likelihood;
    causal LMs: sentence log-likelihood)."""
    from biasforge.scoring.commands.crowspairs import run_crowspairs

    run_crowspairs(request.dataset, request.models, request.out, request.options)


TASK = ScoringTask("crowspairs", command.__doc__ or "", command)
