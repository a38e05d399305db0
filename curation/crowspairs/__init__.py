"""CrowS-Pairs curation: read the CSV, audit it (Blodgett et al. 2021 as review flags),
translate each pair with its differing words tagged through the translation memory, check
the pair is still minimal, write a run directory. Same-language runs translate nothing."""

from __future__ import annotations

from typing import Any

__all__ = ["Options", "curate"]


def __getattr__(name: str) -> Any:
    """The pipeline's entry points, imported when first asked for: the command (built from
    ``.options`` when ``biasforge`` starts) needs none of the pipeline's dependencies."""
    if name in __all__:
        from biasforge.curation.crowspairs import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
