"""CrowS-Pairs curation: read the CSV, audit it (Blodgett et al. 2021 as review flags),
translate each pair with its differing words tagged through the translation memory, check
the pair is still minimal, write a run directory. Same-language runs translate nothing."""

from biasforge.curation.crowspairs.pipeline import Options, curate

__all__ = ["Options", "curate"]
