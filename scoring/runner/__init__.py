"""The one scoring runner: what every ``score`` command does, whatever the family.

As lm-evaluation-harness's evaluator runs every task, the runner runs every ``ScoringTask``
(``biasforge.scoring.tasks``): it loads the items and the models one at a time, asks the task
for each model's per-item rows (``run``), then writes the folder (``folder``): the per-item
file, the task's aggregated tables, paired comparisons of the models, the per-item bias across
models, ``report.md`` and ``report.html`` (one ``Document``), ``models.json`` and, last, the
manifest of the score-folder contract (``biasforge.contract.score``). ``score merge``
(``merge``) reads the per-item rows back from folders of one release and writes the folder
again, by the same code, as one run of all the models would have.
"""

from biasforge.scoring.runner.lineup import RunOptions, each_model, unique_names
from biasforge.scoring.runner.merge import merge
from biasforge.scoring.runner.run import ScoreRequest, run_task

__all__ = ["RunOptions", "ScoreRequest", "each_model", "merge", "run_task", "unique_names"]
