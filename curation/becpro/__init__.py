"""BEC-Pro: the Bias Evaluation Corpus with Professions (Bartl et al. 2020) in en, es and eu.

Sentences come from five templates × 60 professions × 18 person phrases; the Spanish and
Basque versions follow the TFG of Azpillaga Rivera (2021), Table 4.3 and Annex B.

``curate(Options(lang="es"), out)`` builds one corpus into a run directory and returns its
:class:`~biasforge.contract.rundir.RunResult`; ``biasforge curate becpro`` is a thin layer over it.
"""

from biasforge.curation.becpro.pipeline import Options, curate

__all__ = ["Options", "curate"]
