"""StereoSet in another language (StereoSet-fr, Adam-Cuvillier et al. 2024): audit the English
source, translate it through the translation memory, check the structure, flag adaptations.

``curate(Options(lang="fr"), out)`` writes a run directory and returns its
:class:`~biasforge.contract.rundir.RunResult`; ``dry_run(Options(...))`` says what a run would
send and cost without sending anything. ``biasforge curate stereoset`` is a thin layer over
both; see this folder's README.md for the steps.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DryRun", "Options", "curate", "dry_run"]


def __getattr__(name: str) -> Any:
    """The pipeline's entry points, imported when first asked for: the command (built from
    ``.options`` when ``biasforge`` starts) needs none of the pipeline's dependencies."""
    if name in __all__:
        from biasforge.curation.stereoset import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
