"""What a family declares to be scored: a ``ScoringTask``, in the shape of lm-evaluation-harness's
``Task`` (``lm_eval/api/task.py``).

A task builds its requests from the model interface's generic questions
(``biasforge.scoring.interface``: "how likely is this continuation?", "what is at these masked
positions?") and turns each model's answers into per-item rows (``score``); it declares its
per-item file, the tables it aggregates the rows into (figures with bootstrap intervals), how
two models are paired for comparisons, the per-item bias it plots across models, and the
sections of its report. The runner (``biasforge.scoring.runner``) owns everything else, as
lm-eval's evaluator does: the model loop, the per-item files, comparisons, the cross-model
plots, the report's frame, ``models.json``, the manifest and ``score merge`` (re-aggregating
per-item rows read back from score folders of one release).

A family names its tasks by import string in ``Family.scoring_tasks`` ("module:attr", loaded
only when the ``score`` command needs them, so the core never imports torch); ``load_task``
resolves one. The task's own command-line options are the keyword parameters of its
``settings`` method (typer-annotated); the options every command shares are declared once in
``biasforge.scoring.options``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from biasforge.errors import BiasforgeError
from biasforge.families.base import load_object
from biasforge.scoring.document import Block
from biasforge.scoring.interface import LanguageModel, ModelIdentity
from biasforge.scoring.uncertainty import Resampling


@dataclass
class Answers:
    """What ``ScoringTask.score`` returns for one model: its per-item rows, how it was scored
    (kept in ``models.json`` or ``<model>/identity.json``) and notes for this run's report."""

    rows: pd.DataFrame
    procedure: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)


@dataclass
class Scored:
    """One model's per-item rows as the aggregations read them: from a run, or read back from
    a score folder by ``score merge`` (then ``seconds`` is unknown and ``notes`` empty)."""

    rows: pd.DataFrame
    identity: ModelIdentity
    procedure: dict[str, str] = field(default_factory=dict)
    seconds: float = float("nan")
    notes: dict[str, str] = field(default_factory=dict)


@dataclass
class Results:
    """What a task's aggregations and report sections see."""

    source: dict  # the dataset's identity (``scoring.data.dataset_identity``)
    items: pd.DataFrame | None  # the items scored (merged: rebuilt by ``items_from_rows``)
    scored: dict[str, Scored]  # model name -> its rows
    resampling: Resampling
    run: dict  # the run options the manifest records (the task's included)
    stage: Path  # the folder being written (figures go there)
    tables: dict[str, Any] = field(default_factory=dict)  # what ``tables`` returned


@dataclass(frozen=True)
class ItemBias:
    """The per-item bias a task plots across models: ``column`` of the rows indexed by
    ``index`` (``ScoringTask.bias`` may compute it instead), its axis label, the benchmark's
    name in titles and the report's heading. The runner writes ``item_bias.csv``, the
    distribution plot and, with two models or more, the Spearman correlation heatmap."""

    column: str
    label: str
    what: str
    heading: str
    index: str = "id"


class ScoringTask:
    """One ``score`` subcommand a family declares (see the module docstring). Subclasses set
    the class attributes and override ``score``, ``tables`` and the report sections."""

    name: str = ""  # the subcommand; folders record ``score <name>``
    family: str = ""  # whose items it reads
    title: str = ""  # the report's title
    per_item: str = ""  # the file of per-item rows
    per_model: bool = False  # per-item rows in <model>/<per_item> (with identity.json)
    compared: str = "Models compared"  # heading of the paired comparisons ("" for none)
    digits: int = 2  # decimals of the comparisons table
    item_bias: ItemBias | None = None
    item_id: str = "id"  # the per-item rows' column naming their item (to score a subset)

    @property
    def help(self) -> str:
        """The command's help: the class docstring."""
        return type(self).__doc__ or ""

    # -- what a run asks ---------------------------------------------------------------------
    def settings(self, options: Any) -> Any:
        """The task's own options (its keyword parameters are its command-line options),
        checked before any model is loaded; ``options`` are the shared ``RunOptions``."""
        return None

    def select(
        self, items: pd.DataFrame, settings: Any, limit: int | None, where: str
    ) -> pd.DataFrame:
        """The items to score (``where`` names the dataset in errors): the first ``limit``."""
        return items.head(limit).reset_index(drop=True) if limit else items

    def inputs(self, settings: Any) -> list[Path]:
        """The files the task's own options name: read, so never written over (``--out``)."""
        return []

    def run_options(self, settings: Any, items: pd.DataFrame) -> dict:
        """The task's entries of the manifest's options (read back by ``score merge``): settings
        that are a mapping of option names to values, as they are; none otherwise."""
        return dict(settings) if isinstance(settings, Mapping) else {}

    def score(self, lm: LanguageModel, items: pd.DataFrame, settings: Any, folder: Path) -> Answers:
        """Ask ``lm`` this task's requests and give its per-item rows (``folder`` is the
        model's own folder when ``per_model``)."""
        raise NotImplementedError

    # -- what the folder holds ---------------------------------------------------------------
    def read_rows(self, path: Path) -> pd.DataFrame:
        """Per-item rows read back from a score folder (``score merge``)."""
        return pd.read_csv(path, dtype={"id": str, "model": str})

    def items_from_rows(self, rows: list[pd.DataFrame]) -> pd.DataFrame | None:
        """The items as the aggregations need them, rebuilt from the models' rows when merging
        (the release is not needed on the machine that merges); None if they need none."""
        return None

    def tables(self, results: Results) -> dict[str, Any]:
        """Aggregated tables, file name -> DataFrame (``.csv``) or JSON value (``.json``)."""
        return {}

    def pairing(self, results: Results, a: str, b: str) -> tuple:
        """(figures, a's features, b's features[, crossed design]) on the items both scored."""
        raise NotImplementedError

    def bias(self, results: Results, name: str) -> Any:
        """The per-item bias of model ``name`` (``item_bias``): a Series or a mapping."""
        assert self.item_bias is not None
        rows = results.scored[name].rows
        return rows.set_index(self.item_bias.index)[self.item_bias.column]

    # -- the report --------------------------------------------------------------------------
    def intro(self, results: Results) -> list[Block]:
        """What the report says before the dataset and models."""
        return []

    def body(self, results: Results) -> list[Block]:
        """The task's tables and figures, after the dataset and models."""
        return []

    def shown(self, results: Results, name: str) -> dict[str, str]:
        """The procedure columns of model ``name`` in the report's model table."""
        return results.scored[name].procedure

    def recorded(self, results: Results, name: str) -> dict[str, str]:
        """What ``models.json`` records of model ``name`` beside its identity."""
        return results.scored[name].procedure


def registered_tasks() -> dict[str, ScoringTask]:
    """Task name -> task, for every scoring task of every registered family."""
    from biasforge import families

    tasks: dict[str, ScoringTask] = {}
    for name in families.names():
        for reference in families.get(name).scoring_tasks:
            task = load_task(reference)
            tasks.setdefault(task.name, task)
    return tasks


def load_task(reference: str) -> ScoringTask:
    """The task object named by ``"module:attr"``; one clear error when it cannot be found."""
    task = load_object(reference, "scoring task")
    if not isinstance(task, ScoringTask):
        raise BiasforgeError(f"scoring task {reference!r} is not a ScoringTask")
    return task
