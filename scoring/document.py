"""One score report, two renderings: the blocks it is made of, and its markdown.

A command builds a ``Document`` once — headings, paragraphs, tables, figures — and writes it
as ``report.md`` (tables through the contract's ``biasforge.contract.markdown``) and as the
self-contained ``report.html`` (``biasforge.scoring.html``), so the two never disagree. A table cell
may carry the figure it shows (an id and the exact value) so the HTML can be checked
against the machine-readable results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from biasforge.contract.markdown import frame_md
from biasforge.scoring.uncertainty import Resampling, with_interval


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    """Text with inline ``code`` and **bold** (markdown), nothing else."""

    text: str


@dataclass(frozen=True)
class Table:
    """A table as shown; ``marks`` maps (row position, column) to (figure id, exact value)."""

    frame: pd.DataFrame
    digits: int = 2
    marks: dict[tuple[int, str], tuple[str, float]] = field(default_factory=dict)


@dataclass(frozen=True)
class Figure:
    """A PNG file of the output folder and what it shows."""

    file: str
    caption: str


Block = Heading | Paragraph | Table | Figure


@dataclass
class Document:
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> Document:
        self.blocks.extend(blocks)
        return self


def to_markdown(document: Document) -> str:
    """The report as GitHub-flavoured markdown."""
    parts = [f"# {document.title}\n"]
    for block in document.blocks:
        if isinstance(block, Heading):
            parts.append(f"\n{'#' * block.level} {block.text}\n")
        elif isinstance(block, Paragraph):
            parts.append(f"{block.text}\n")
        elif isinstance(block, Table):
            parts.append(frame_md(block.frame, block.digits))
        else:
            parts.append(f"![{block.caption}]({block.file})\n\n*{block.caption}*\n")
    return "\n".join(parts)


def interval_table(
    frame: pd.DataFrame,
    keys: Sequence[str],
    metrics: Sequence[str],
    figure_id: Callable[[dict, str], str],
    digits: int = 1,
) -> Table:
    """``keys`` columns as they are and each metric as ``61.5 [59.8, 63.2]`` from the
    ``<metric>``, ``<metric>_low`` and ``<metric>_high`` columns; each metric cell is marked
    with ``figure_id(row, metric)`` and its exact value."""
    shown, marks = [], {}
    for position, record in enumerate(frame.to_dict("records")):
        cells = {key: record[key] for key in keys}
        for metric in metrics:
            value = record[metric]
            low, high = record.get(f"{metric}_low"), record.get(f"{metric}_high")
            cells[metric] = with_interval(value, low, high, digits)
            marks[(position, metric)] = (figure_id(record, metric), float(value))
        shown.append(cells)
    return Table(pd.DataFrame(shown, columns=[*keys, *metrics]), digits, marks)


def interval_note(resampling: Resampling, strata: str) -> Paragraph:
    """What the brackets mean, said once per report."""
    if not resampling.enabled:
        return Paragraph("Intervals were turned off (`--bootstrap 0`).")
    return Paragraph(
        f"Brackets are {resampling.level:.0%} percentile bootstrap intervals: items resampled "
        f"with replacement within {strata}, {resampling.n_resamples} resamples "
        f"(`scipy.stats.bootstrap`, seed {resampling.seed}). Design: conditional on {strata} "
        "— those are held fixed, not resampled — so an interval says how much a figure would "
        "move with another draw of items for these same ones; it does not cover another "
        "choice of them (resampling them too would widen it), nor how far the items are from "
        "the population of sentences they stand for."
    )
