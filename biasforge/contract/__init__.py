"""The file contract between the stages: what each stage writes and the next one reads.

Data flows one way, curation → annotation → exports → scoring, through folders:

- a *run directory* (:mod:`biasforge.contract.rundir`), written by curation;
- *reviewed records* (:mod:`biasforge.contract.reviewed`), written by ``annotate pull``;
- a *release* (:mod:`biasforge.contract.release`), written by ``export release``;
- a *score folder* (:mod:`biasforge.contract.score`), written by ``score``, ``score merge`` and
  ``score import-lm-eval``.

Each ends with a ``manifest.json`` written and verified by :mod:`biasforge.contract.manifest`
(kind, family, checksums, no path outside the folder); each module above names its files once
and has the writer and the verifying reader of its folder. :mod:`biasforge.contract.folders`
reads items from any of them by the kind its manifest names (``export convert``, scoring), and
:mod:`biasforge.contract.exported` is the rule for the single files ``export convert`` writes.
Records are typed and checked by their family's :class:`~biasforge.contract.schema.FamilySchema`
(see :mod:`biasforge.families`). Every stage imports this package; none re-implements it.
"""

from biasforge.contract.manifest import (
    package_versions,
    read_manifest,
    verify_manifest,
    write_manifest,
)
from biasforge.contract.markdown import crosstab_md, excerpt, fmt, frame_md, md_table
from biasforge.contract.rundir import Run, RunResult, input_entry, is_run, read_run, write_run
from biasforge.contract.schema import CHECK, SPAN, Column, FamilySchema, Violation

__all__ = [
    "CHECK",
    "SPAN",
    "Column",
    "FamilySchema",
    "Run",
    "RunResult",
    "Violation",
    "crosstab_md",
    "excerpt",
    "fmt",
    "frame_md",
    "input_entry",
    "is_run",
    "md_table",
    "package_versions",
    "read_manifest",
    "read_run",
    "verify_manifest",
    "write_manifest",
    "write_run",
]
