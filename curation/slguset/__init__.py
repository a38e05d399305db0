"""SlguSet (Zhao et al.): gender-neutral Chinese news sentences with one gender keyword,
mined from a corpus by a datatrove pipeline.

``curate(Options(corpus=...), out)`` writes the run directory; :mod:`.pipeline` tells how the
same steps run on a cluster.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Options", "curate"]


def __getattr__(name: str) -> Any:
    """The pipeline's entry points, imported when first asked for: the command (built from
    ``.options`` when ``biasforge`` starts) needs none of the pipeline's dependencies."""
    if name in __all__:
        from biasforge.curation.slguset import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
