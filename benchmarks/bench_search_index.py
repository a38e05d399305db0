"""What the search index costs to keep: records indexed per second and database size, this
tree's ``annotation/server/sql_index.py`` against the one of a git revision, same run.

The index is written as the engine's hooks write it (``write_records``, 500 records a call),
synthetic records as in ``bench_search.py``, each index into a fresh SQLite database in WAL
mode; the two alternate ``--rounds`` times and the median is kept.

    python benchmarks/bench_search_index.py [--records 30000] [--before main] [--rounds 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_search import synthetic  # noqa: E402


def load(folder: Path, name: str):
    """``sql_index`` from ``folder`` (with the sibling modules it imports) as module ``name``."""
    sys.path.insert(0, str(folder))
    try:
        spec = importlib.util.spec_from_file_location(name, folder / "sql_index.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(folder))
        for sibling in ("words", "write_gate"):
            sys.modules.pop(sibling, None)


def at_revision(revision: str, work: Path) -> Path:
    folder = work / "before"
    folder.mkdir()
    for name in ("sql_index.py", "write_gate.py", "words.py"):
        shown = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{revision}:annotation/server/{name}"],
            capture_output=True, text=True,
        )  # fmt: skip
        if shown.returncode == 0:
            (folder / name).write_text(shown.stdout, encoding="utf-8")
    return folder


def index(module, path: Path, records: int) -> tuple[float, float]:
    """(seconds, MB) to index ``records`` synthetic records into a fresh database."""
    conn = module.connect(str(path))
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE records (id TEXT, dataset_id TEXT, status TEXT)")
    module.ensure_schema(conn)
    rng = random.Random(18)
    batches = []
    for start in range(0, records, 500):
        batch = []
        for i in range(start, min(start + 500, records)):
            item = synthetic(i, rng)
            when = "2026-01-01 00:00:00.000000"
            batch.append((f"{i:032x}", item["fields"], item["metadata"], when, "pending"))
        batches.append(batch)
    began = time.perf_counter()
    for batch in batches:
        module.write_records(conn, "ds", batch)
    seconds = time.perf_counter() - began
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return seconds, path.stat().st_size / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=30_000)
    parser.add_argument("--before", default="main", metavar="REV")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-index-"))
    try:
        modules = {
            "now": load(ROOT / "annotation" / "server", "sql_index_now"),
            f"at {args.before}": load(at_revision(args.before, work), "sql_index_before"),
        }
        results: dict = {name: [] for name in modules}
        for round_ in range(args.rounds):
            for name, module in modules.items():
                path = work / f"{round_}-{name.replace(' ', '_')}.sqlite"
                results[name].append(index(module, path, args.records))
        print(f"{args.records} records, 500 a call, median of {args.rounds}:")
        (now, then) = (
            [statistics.median(x) for x in zip(*r, strict=True)] for r in results.values()
        )
        for name, (seconds, size) in zip(results, (now, then), strict=True):
            print(
                f"{name:>12s}: {seconds:6.2f} s = {args.records / seconds:7.0f} records/s, {size:6.1f} MB"
            )
        print(
            f"ratio now / {args.before}: time {now[0] / then[0]:.2f}, size {now[1] / then[1]:.2f}"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
