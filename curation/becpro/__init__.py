"""BEC-Pro: the Bias Evaluation Corpus with Professions (Bartl et al. 2020) in any language.

Sentences come from five templates × 60 professions × 18 person phrases. Each language is a
folder of data (:mod:`~biasforge.curation.becpro.lexicon`, ``docs/becpro-languages.md``):
English and German as Bartl et al. published them, Spanish and Basque after the TFG of
Azpillaga Rivera (2021), French new, and any folder a user writes.

``curate(Options(lang="es"), out)`` builds one corpus into a run directory and returns its
:class:`~biasforge.contract.rundir.RunResult`; ``biasforge curate becpro`` is a thin layer over it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Options", "curate"]


def __getattr__(name: str) -> Any:
    """The pipeline's entry points, imported when first asked for: the command (built from
    ``.options`` when ``biasforge`` starts) needs none of the pipeline's dependencies."""
    if name in __all__:
        from biasforge.curation.becpro import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
