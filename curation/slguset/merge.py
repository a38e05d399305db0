"""The tasks' rows, merged in corpus order with duplicates across tasks dropped — in bounded
memory, whatever the corpus size.

Every task writes its rows already sorted (:mod:`biasforge.curation.slguset.rows`: each line starts
with a fixed-width corpus-position key), so the merge is external and streaming:

1. **k-way merge** (:func:`merged_lines`): ``heapq.merge`` over the row files, one buffered
   line per file in memory; with more than :data:`FAN_IN` files they are first merged in
   groups into sorted files on disk.
2. **Sharded hashes on disk** (:func:`find_duplicates`): one pass over the merged stream writes
   each row's (sentence hash, kept?, position) into hash shards on disk; each shard — sized to
   hold about :data:`SHARD_ROWS` rows, however big the corpus — is sorted with numpy and the
   losers are found: the first *kept* copy of a sentence wins, or the first copy if every copy
   was rejected (a rejected sentence that another task kept is a duplicate too). Their
   positions are written sorted, one file per shard.
3. **Second merged pass** (:func:`stream_rows`): rows whose position is a loser (the shards'
   loser files merged, again with ``heapq.merge``) are skipped; the rest are yielded one by
   one, in corpus order, for the streaming parquet writer.

The result is the same for any number of tasks: the same rows, the same order, the same
duplicate count.
"""

from __future__ import annotations

import heapq
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from biasforge.curation.slguset.rows import HASH_LEN, JSON_AT, KEY_LEN, ROWS_SUFFIX

KEPT = "kept"
REJECTED = "rejected"
FAN_IN = 64  # files merged at once
SHARD_ROWS = 1 << 20  # rows per hash shard (≈ 25 MB of numpy while it is sorted)
FLUSH_ROWS = 1 << 16  # signatures buffered in memory before they go to their shard files
BUFFER = 1 << 20  # bytes of read buffer per open row file
SIG = np.dtype([("h1", "<u8"), ("h2", "<u8"), ("kind", "u1"), ("pos", "<u8")])
BYTES_PER_ROW_GUESS = 400  # a row line is ≥ ~600 bytes; guess low, so shards come out small


def row_files(parts_dir: str | Path) -> list[Path]:
    """Every task's row files, kept and rejected (sorted by path: a fixed merge order)."""
    parts = Path(parts_dir)
    files = sorted((parts / KEPT).glob(f"*{ROWS_SUFFIX}"))
    files += sorted((parts / REJECTED).glob(f"*/*{ROWS_SUFFIX}"))
    return [f for f in files if f.stat().st_size]


def _lines(path: Path) -> Iterator[str]:
    with open(path, encoding="utf-8", buffering=BUFFER) as handle:
        yield from handle


def _merge_into(files: list[Path], out: Path) -> Path:
    with open(out, "w", encoding="utf-8", buffering=BUFFER) as handle:
        handle.writelines(heapq.merge(*(_lines(f) for f in files)))
    return out


@contextmanager
def merged_lines(files: list[Path], scratch: Path) -> Iterator[Iterator[str]]:
    """All lines of the sorted ``files``, in key order. Lines start with their unique
    position key, so comparing whole lines compares keys: ``heapq.merge`` needs no key
    function. More than :data:`FAN_IN` files are merged in rounds through ``scratch``."""
    scratch.mkdir(parents=True, exist_ok=True)
    level = 0
    while len(files) > FAN_IN:
        groups = [files[i : i + FAN_IN] for i in range(0, len(files), FAN_IN)]
        files = [_merge_into(g, scratch / f"merge-{level}-{i:05d}") for i, g in enumerate(groups)]
        level += 1
    with ExitStack() as stack:
        handles = [stack.enter_context(open(f, encoding="utf-8", buffering=BUFFER)) for f in files]
        yield heapq.merge(*handles)


@dataclass
class Duplicates:
    """Positions (in the merged stream) of the rows that are duplicates, in loser files."""

    files: list[Path]
    count: int
    rows: int

    def positions(self) -> Iterator[int]:
        """The losers' positions in increasing order (the shards' sorted files merged)."""
        arrays = [np.memmap(f, dtype="<u8", mode="r") for f in self.files if f.stat().st_size]
        return heapq.merge(*(map(int, a) for a in arrays))


def _shard_count(files: list[Path]) -> int:
    rows = sum(f.stat().st_size for f in files) // BYTES_PER_ROW_GUESS
    count = 1
    while count * SHARD_ROWS < rows:
        count *= 2
    return count


def find_duplicates(files: list[Path], scratch: Path) -> Duplicates:
    """Steps 1 and 2 of the module docstring: hash shards on disk, losers per shard."""
    shards = _shard_count(files)
    bits = shards.bit_length() - 1
    shard_dir = scratch / "shards"
    shard_dir.mkdir(parents=True, exist_ok=True)
    paths = [shard_dir / f"{i:05d}.sig" for i in range(shards)]
    buffers: list[list[tuple[int, int, int, int]]] = [[] for _ in range(shards)]
    buffered = rows = 0

    def flush() -> None:
        for path, buffer in zip(paths, buffers, strict=True):
            if buffer:
                with open(path, "ab") as handle:
                    np.array(buffer, dtype=SIG).tofile(handle)
                buffer.clear()

    h_at = KEY_LEN + 3
    with merged_lines(files, scratch) as lines:
        for pos, line in enumerate(lines):
            digest = line[h_at : h_at + HASH_LEN]
            h1, h2 = int(digest[:16], 16), int(digest[16:], 16)
            kind = 0 if line[KEY_LEN + 1] == "k" else 1  # kept copies sort first
            buffers[h1 >> (64 - bits) if bits else 0].append((h1, h2, kind, pos))
            buffered += 1
            rows += 1
            if buffered >= FLUSH_ROWS:
                flush()
                buffered = 0
    flush()
    losers, count = [], 0
    for path in paths:
        if not path.exists():
            continue
        sig = np.fromfile(path, dtype=SIG)
        sig = sig[np.lexsort((sig["pos"], sig["kind"], sig["h2"], sig["h1"]))]
        first = np.ones(len(sig), dtype=bool)
        first[1:] = (sig["h1"][1:] != sig["h1"][:-1]) | (sig["h2"][1:] != sig["h2"][:-1])
        lost = np.sort(sig["pos"][~first])
        out = path.with_suffix(".dup")
        lost.astype("<u8").tofile(out)
        losers.append(out)
        count += len(lost)
        os.remove(path)
        del sig, first, lost
    return Duplicates(losers, count, rows)


def stream_rows(parts_dir: str | Path, scratch: str | Path) -> Iterator[tuple[str, dict]]:
    """(``"k"`` or ``"r"``, candidate row) in corpus order, duplicates dropped; the generator's
    return value is the :class:`Duplicates` it dropped (``yield from`` gets it)."""
    scratch = Path(scratch)
    files = row_files(parts_dir)
    try:
        duplicates = find_duplicates(files, scratch)
        losers = duplicates.positions()
        next_loser = next(losers, -1)
        with merged_lines(files, scratch) as lines:
            for pos, line in enumerate(lines):
                if pos == next_loser:
                    next_loser = next(losers, -1)
                    continue
                row = json.loads(line[JSON_AT:])
                row["family"] = "slguset"
                row["language"] = "zh"
                row["source_language"] = "zh"
                yield line[KEY_LEN + 1], row
        return duplicates
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
