"""CrowS-Pairs curation: read the CSV, audit it (Blodgett et al. 2021 as review flags),
translate each pair with its differing words tagged through the translation memory, check
the pair is still minimal, write a run directory. Same-language runs translate nothing."""

from __future__ import annotations

from biasforge.curation.options import lazy_pipeline

__all__ = ["Options", "curate"]

__getattr__ = lazy_pipeline(__name__, __all__)
