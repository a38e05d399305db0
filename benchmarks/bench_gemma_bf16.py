"""Gemma 3 270M in bfloat16 against float32 on English StereoSet: do the paper's figures stay
put, and what does bf16 cost on this CPU?

Scores the first N intrasentence items of the dev set (``../shared/data/stereoset``) with
``biasforge score stereoset -m gemma3-270m`` twice, ``--dtype float32`` (the baseline) and
``--dtype bfloat16``, in this run, and prints LMS, SS and ICAT of each, their differences
(measured on 150 items: LMS 0.33, SS 0.13, ICAT 0.48 points apart) and the time ratio. A CPU
without native bf16 (no AVX-512-BF16) emulates each bf16 matmul: there bf16 is many times
slower than float32 (477 s against 24 s for 150 items across two machines of the same kind);
the unit test scores 12 items in bf16 only (tests/scoring/test_gemma.py).

Usage: ``.venv/bin/python benchmarks/bench_gemma_bf16.py [--items 150]``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.scoring.official_reference import flat_jsonl_items  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "stereoset" / "stereoset_dev_en.jsonl"
FIGURES = ("LMS", "SS", "ICAT")


def score(items: Path, out: Path, dtype: str) -> tuple[pd.Series, float]:
    """(overall intrasentence figures, wall seconds) of one scoring run."""
    command = [sys.executable, "-m", "biasforge.cli", "score", "stereoset", "-d", str(items),
               "-m", "gemma3-270m", "-o", str(out), "--dtype", dtype, "--no-progress"]  # fmt: skip
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    results = pd.read_csv(out / "results.csv")
    overall = results[(results["split"] == "intrasentence") & (results["domain"] == "overall")]
    return overall.iloc[0], seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=150, help="intrasentence items scored")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        items = Path(tmp) / "items.parquet"
        flat_jsonl_items(str(DATA), split="intrasentence", limit=args.items).to_parquet(items)
        full, full_s = score(items, Path(tmp) / "float32", "float32")
        half, half_s = score(items, Path(tmp) / "bfloat16", "bfloat16")
    print(f"{args.items} items   " + "   ".join(f"{f:>6}" for f in FIGURES) + "   seconds")
    for name, row, seconds in (("float32", full, full_s), ("bfloat16", half, half_s)):
        print(f"{name:<10}" + "   ".join(f"{row[f]:6.2f}" for f in FIGURES) + f"   {seconds:7.1f}")
    print("difference" + "   ".join(f"{abs(half[f] - full[f]):6.2f}" for f in FIGURES))
    print(f"bf16 / float32 time: {half_s / full_s:.2f}")


if __name__ == "__main__":
    main()
