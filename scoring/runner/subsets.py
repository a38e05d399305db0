"""Scores on the items a culture kept as they were (issue 44), for every task.

A release of a family that translates records what review did about each item's culture
(:mod:`biasforge.contract.adaptation`). The runner scores every item but the ``removed`` ones
(:func:`scored_items`), and when some scored items were ``modified`` or ``native``, gives every
figure of the task again on the ``transferred`` items alone, with the same intervals: the
task's own ``tables`` and report ``body`` run on the subset (rows restricted by the task's
``item_id`` column), their files written under ``transferred/``. No task knows of it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pandas as pd

from biasforge.contract.adaptation import ADAPTATION, REMOVED, TRANSFERRED, scored, transferred_ids
from biasforge.scoring.document import Block, Figure, Heading, Paragraph
from biasforge.scoring.tasks import Results, ScoringTask

SUBSET = "transferred"  # the folder of the subset's files


def scored_items(items: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The items to score (the removed ones left out) and how many were left out."""
    kept = scored(items)
    return kept, len(items) - len(kept)


def _moved(block: Block) -> Block:
    """A block of the subset's report section, its figure read from the subset's folder and
    its headings one level down."""
    if isinstance(block, Figure):
        return replace(block, file=f"{SUBSET}/{block.file}")
    if isinstance(block, Heading):
        return replace(block, level=block.level + 1)
    return block


def _subset(task: ScoringTask, results: Results, ids: set[str]) -> Results:
    """``results`` restricted to the items ``ids``, written to the subset's folder."""
    stage = results.stage / SUBSET
    stage.mkdir(exist_ok=True)
    items = results.items
    if items is not None:
        items = items[items["id"].astype(str).isin(ids)].reset_index(drop=True)
    scored_rows = {
        name: replace(s, rows=s.rows[s.rows[task.item_id].astype(str).isin(ids)])
        for name, s in results.scored.items()
    }
    return Results(results.source, items, scored_rows, results.resampling, results.run, stage)


def transferred_blocks(task: ScoringTask, results: Results, write) -> list[Block]:
    """The report section on the transferred items (none when every scored item is
    transferred, or the items carry no adaptation); ``write(path, value)`` writes a table."""
    items = results.items
    ids = transferred_ids(items) if items is not None else None
    if ids is None:
        return []
    sub = _subset(task, results, ids)
    sub.tables = task.tables(sub)
    for file, value in sub.tables.items():
        write(sub.stage / file, value)
    assert items is not None
    counts = Counter(items[ADAPTATION].fillna(TRANSFERRED))
    others = ", ".join(f"{k}: {n}" for k, n in sorted(counts.items()) if k != TRANSFERRED)
    removed = int(results.run.get("removed_items") or 0)
    text = (
        f"Every figure above is on the {len(items)} items scored (the {removed} items review "
        f"`{REMOVED}` as not recognised in the target culture are never scored; {others}). "
        f"Below, the same figures on the {len(ids)} `{TRANSFERRED}` items alone (kept as "
        f"translated), with the same intervals; their files are in `{SUBSET}/`."
    )
    return [
        Heading("On the transferred items only"),
        Paragraph(text),
        *(_moved(b) for b in task.body(sub)),
    ]


def removed_note(removed: int) -> list[Block]:
    """What the report says when items were left out as removed but no subset differs."""
    if not removed:
        return []
    return [
        Paragraph(
            f"{removed} items that review `{REMOVED}` (the stereotype is not recognised in the "
            "target culture) were left out: every figure is on the other items."
        )
    ]
