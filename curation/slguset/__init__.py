"""SlguSet (Zhao et al.): gender-neutral Chinese news sentences with one gender keyword,
mined from a corpus by a datatrove pipeline.

``curate(Options(corpus=...), out)`` writes the run directory; :mod:`.pipeline` tells how the
same steps run on a cluster.
"""

from biasforge.curation.slguset.pipeline import Options, curate

__all__ = ["Options", "curate"]
