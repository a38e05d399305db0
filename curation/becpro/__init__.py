"""BEC-Pro: the Bias Evaluation Corpus with Professions (Bartl et al. 2020) in any language.

Sentences come from five templates × 60 professions × 18 person phrases. Each language is a
folder of data (:mod:`~biasforge.curation.becpro.lexicon`, ``docs/becpro-languages.md``):
English and German as Bartl et al. published them, Spanish and Basque after the TFG of
Azpillaga Rivera (2021), French new, and any folder a user writes.

``curate(Options(lang="es"), out)`` builds one corpus into a run directory and returns its
:class:`~biasforge.contract.rundir.RunResult`; ``biasforge curate becpro`` is a thin layer over it.
"""

from __future__ import annotations

from biasforge.curation.options import lazy_pipeline

__all__ = ["Options", "curate"]

__getattr__ = lazy_pipeline(__name__, __all__)
