"""Two-way ("pigeonhole") bootstrap for items that cross two factors, e.g. BEC-Pro's
professions × person words (× templates, kept within).

Hand-written with numpy: ``scipy.stats.bootstrap`` resamples independent observations only.
Following Owen (2007, "The pigeonhole bootstrap", Ann. Appl. Stat. 1(2)), each resample draws
the levels of *both* factors with replacement, independently, and keeps every item at a drawn
pair of levels (all its replicates: BEC-Pro's templates). A level is exchanged only with the
levels that occur in exactly the same strata (a profession with the professions of its group,
a person word with the words of its gender), so every stratum keeps its size and the same
drawn professions serve a group's female and male cells — which is what makes P(f) − P(m)
vary only as much as another draw of professions and person words would make it.

The design must be complete within every stratum (each pair of levels present, each with the
same number of replicates); ``CrossedDesign.of`` returns ``None`` otherwise, and the caller
falls back to resampling items.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CrossedDesign:
    """Per stratum, the item indices as a (rows, columns, replicates) grid, and the level
    codes of each grid axis; levels grouped into blocks of exchangeable levels."""

    grids: tuple[np.ndarray, ...]
    row_levels: tuple[np.ndarray, ...]
    column_levels: tuple[np.ndarray, ...]
    row_blocks: tuple[np.ndarray, ...]
    column_blocks: tuple[np.ndarray, ...]
    n_rows: int
    n_columns: int

    @classmethod
    def of(cls, rows: Sequence, columns: Sequence, sizes: Sequence[int]) -> CrossedDesign | None:
        """The design of items labelled ``rows`` × ``columns`` (in item order, strata of
        ``sizes`` one after the other); ``None`` when a stratum is not a complete crossing."""
        row_codes, row_names = _codes(rows)
        column_codes, column_names = _codes(columns)
        bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        grids, row_levels, column_levels = [], [], []
        for start, end in itertools.pairwise(bounds):
            grid = _grid(row_codes[start:end], column_codes[start:end], start)
            if grid is None:
                return None
            grids.append(grid[0])
            row_levels.append(grid[1])
            column_levels.append(grid[2])
        return cls(
            tuple(grids),
            tuple(row_levels),
            tuple(column_levels),
            _blocks(row_levels, len(row_names)),
            _blocks(column_levels, len(column_names)),
            len(row_names),
            len(column_names),
        )

    def resampled_indices(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """(n, items) item indices of ``n`` two-way resamples, strata in their order."""
        row_draw = _draw(rng, self.row_blocks, self.n_rows, n)
        column_draw = _draw(rng, self.column_blocks, self.n_columns, n)
        pieces = []
        for grid, rows, columns in zip(
            self.grids, self.row_levels, self.column_levels, strict=True
        ):
            at_row = _positions(rows, self.n_rows)[row_draw[:, rows]]  # (n, rows)
            at_column = _positions(columns, self.n_columns)[column_draw[:, columns]]
            picked = grid[at_row[:, :, None], at_column[:, None, :]]  # (n, rows, columns, reps)
            pieces.append(picked.reshape(n, -1))
        return np.concatenate(pieces, axis=1)


def crossed_interval(
    design: CrossedDesign,
    x: np.ndarray,
    compute: Callable[[np.ndarray], np.ndarray],
    n_resamples: int,
    seed: int,
    level: float,
    batch: int = 100,
) -> np.ndarray:
    """(figures, 2) percentile interval of ``compute`` over two-way resamples of ``x``
    (features, items); ``compute`` takes (features, batch, items) like ``Figures.compute``."""
    rng = np.random.default_rng(seed)
    draws = []
    for start in range(0, n_resamples, batch):
        indices = design.resampled_indices(rng, min(batch, n_resamples - start))
        draws.append(compute(x[:, indices]))  # (figures, batch)
    values = np.concatenate(draws, axis=-1)
    alpha = (1 - level) / 2
    with np.errstate(invalid="ignore"):
        return np.stack(
            [np.nanquantile(values, alpha, axis=-1), np.nanquantile(values, 1 - alpha, axis=-1)],
            axis=-1,
        )


def _codes(labels: Sequence) -> tuple[np.ndarray, np.ndarray]:
    names, codes = np.unique(np.asarray(labels, dtype=str), return_inverse=True)
    return codes, names


def _grid(rows: np.ndarray, columns: np.ndarray, offset: int):
    """(grid, row levels, column levels) of one stratum, or None when it is incomplete."""
    row_levels, column_levels = np.unique(rows), np.unique(columns)
    cell = np.searchsorted(row_levels, rows) * len(column_levels) + np.searchsorted(
        column_levels, columns
    )
    counts = np.bincount(cell, minlength=len(row_levels) * len(column_levels))
    if counts.min() != counts.max():
        return None
    order = np.argsort(cell, kind="stable") + offset
    return order.reshape(len(row_levels), len(column_levels), -1), row_levels, column_levels


def _blocks(levels_by_stratum: list[np.ndarray], n_levels: int) -> tuple[np.ndarray, ...]:
    """Levels grouped by the exact set of strata they occur in."""
    where: dict[int, list[int]] = {}
    for stratum, levels in enumerate(levels_by_stratum):
        for level in levels:
            where.setdefault(int(level), []).append(stratum)
    blocks: dict[tuple[int, ...], list[int]] = {}
    for level in range(n_levels):
        blocks.setdefault(tuple(where.get(level, [])), []).append(level)
    return tuple(np.array(levels) for levels in blocks.values())


def _draw(rng: np.random.Generator, blocks, n_levels: int, n: int) -> np.ndarray:
    """(n, levels): each level replaced by a level drawn with replacement from its block."""
    draw = np.empty((n, n_levels), dtype=int)
    for block in blocks:
        draw[:, block] = rng.choice(block, size=(n, len(block)), replace=True)
    return draw


def _positions(levels: np.ndarray, n_levels: int) -> np.ndarray:
    """Level code -> its position among ``levels`` (-1 when absent)."""
    positions = np.full(n_levels, -1)
    positions[levels] = np.arange(len(levels))
    return positions
