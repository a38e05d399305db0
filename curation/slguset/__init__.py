"""SlguSet (Zhao et al.): gender-neutral Chinese news sentences with one gender keyword,
mined from a corpus by a datatrove pipeline.

``curate(Options(corpus=...), out)`` writes the run directory; :mod:`.pipeline` tells how the
same steps run on a cluster.
"""

from __future__ import annotations

from biasforge.curation.options import lazy_pipeline

__all__ = ["Options", "curate"]

__getattr__ = lazy_pipeline(__name__, __all__)
