"""StereoSet in another language (StereoSet-fr, Adam-Cuvillier et al. 2024): audit the English
source, translate it through the translation memory, check the structure, flag adaptations.

``curate(Options(lang="fr"), out)`` writes a run directory and returns its
:class:`~biasforge.contract.rundir.RunResult`; ``dry_run(Options(...))`` says what a run would
send and cost without sending anything. ``biasforge curate stereoset`` is a thin layer over
both; see this folder's README.md for the steps.
"""

from __future__ import annotations

from biasforge.curation.options import lazy_pipeline

__all__ = ["DryRun", "Options", "curate", "dry_run"]

__getattr__ = lazy_pipeline(__name__, __all__)
