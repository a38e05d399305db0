"""The score commands: load items, score each model, write tables, figures and reports.

Each command writes its output folder atomically (``staged_directory``): ``report.md`` and the
self-contained ``report.html`` (one ``biasforge.scoring.document.Document``), CSV tables with interval
bounds, PNG figures, per-model files, ``models.json`` and, last, ``manifest.json``.
"""

from biasforge.scoring.commands.becpro import run_becpro
from biasforge.scoring.commands.common import RunOptions
from biasforge.scoring.commands.slguset import run_slguset
from biasforge.scoring.commands.stereoset import NSPOptions, evaluate_predictions, run_stereoset

__all__ = [
    "NSPOptions",
    "RunOptions",
    "evaluate_predictions",
    "run_becpro",
    "run_slguset",
    "run_stereoset",
]
