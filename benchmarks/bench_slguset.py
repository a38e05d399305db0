"""Throughput of the SlguSet corpus stages: raw characters/s per process, 1 → 2 processes.

Builds a corpus of at least ``--mb`` MB (default 50) by repeating the bundled People's Daily
sample. By default every copy is made *unique* (the copy number is written after each sentence
terminator), so duplicate removal cannot skip the jieba work of later copies: the figure is the
cost of new text. ``--repeat`` measures plain repetition instead (later copies are duplicates,
as a crawl with much boilerplate would be). Each configuration runs in its own subprocess (the
same ``curate(Options(...), out)`` call the CLI makes, datatrove LocalPipelineExecutor
underneath), so peak memory is that run's own: the parent process's RSS plus its largest
datatrove worker.

The machine has 2 cores shared with other work: run it when the machine is quiet (check
``uptime``) and read the speed-up with that in mind.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def build_corpus(path: Path, megabytes: float, unique: bool) -> int:
    from curation.slguset.sample import BUNDLED_SAMPLE

    sample = BUNDLED_SAMPLE.read_text(encoding="utf-8")
    target = int(megabytes * (1 << 20))
    written = copy = 0
    with open(path, "w", encoding="utf-8") as out:
        while written < target:
            text = sample
            if unique:  # a number at the start of every sentence of this copy
                for mark in ("\u3000\u3000", "。", "！", "？"):
                    text = text.replace(mark, f"{mark}{copy}")
            data = text.encode("utf-8")
            out.write(text)
            written += len(data)
            copy += 1
    return written


def worker(corpus: Path, num_proc: int) -> dict:
    from curation.slguset import Options, curate

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        stats = curate(Options(corpus=[corpus], num_proc=num_proc), Path(tmp) / "run").stats
        wall = time.perf_counter() - started
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = me.ru_maxrss
    # the pool workers and the manager are forked from this process and reaped by it: their
    # CPU time is in RUSAGE_CHILDREN
    cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    return {
        "num_proc": num_proc,
        "raw_chars": stats["raw_chars"],
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "mining_s": stats["seconds"]["mining_wall"],
        "kept": stats["kept"],
        "rejected": stats["rejected"],
        "duplicates": stats["duplicates"],
        "task_cpu_s": stats["task_cpu_seconds"],
        "task_rss_mb": stats["task_peak_rss_mb"],
        "parent_rss_mb": round(own / 1024, 1),
        "largest_worker_rss_mb": max(stats["task_peak_rss_mb"].values(), default=0.0),
        "peak_rss_mb": round(own / 1024 + sum(stats["task_peak_rss_mb"].values()), 1)
        if num_proc > 1
        else round(own / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=50.0, help="corpus size in MB (>= 50)")
    parser.add_argument("--repeat", action="store_true", help="plain repetition (duplicates)")
    parser.add_argument("--procs", default="1,2", help="process counts to compare")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--num-proc", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.num_proc)))
        return
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.txt"
        size = build_corpus(corpus, args.mb, unique=not args.repeat)
        print(
            f"corpus: {size / (1 << 20):.1f} MB ({'repeated copies' if args.repeat else 'unique copies'}"
            f" of the bundled sample); cores: {os.cpu_count()}; load average before: {load:.2f}"
        )
        results = []
        for n in [int(p) for p in args.procs.split(",")]:
            out = subprocess.run(
                [sys.executable, __file__, "--worker", str(corpus), "--num-proc", str(n)],
                capture_output=True,
                text=True,
                check=True,
            )
            result = json.loads(out.stdout.strip().splitlines()[-1])
            results.append(result)
            per_proc = result["raw_chars"] / result["mining_s"] / n
            task_cpu = sum(result["task_cpu_s"].values())
            per_cpu = result["raw_chars"] / task_cpu if task_cpu else 0.0
            print(
                f"{n} process(es): {result['raw_chars']:,} raw chars in {result['mining_s']:.1f} s "
                f"mining ({result['wall_s']:.1f} s with merge and write) = {per_proc:,.0f} raw "
                f"chars/s per process (wall clock); {per_cpu:,.0f} raw chars per CPU-second of "
                f"the mining tasks ({task_cpu:.1f} CPU-s; whole run {result['cpu_s']:.1f} CPU-s); "
                f"peak memory {result['peak_rss_mb']} MB (parent {result['parent_rss_mb']} MB, "
                f"tasks {result['task_rss_mb']} MB); kept {result['kept']}, rejected "
                f"{result['rejected']}, duplicates {result['duplicates']}"
            )
        if len(results) >= 2:
            base, other = results[0], results[-1]
            speedup = base["mining_s"] / other["mining_s"]
            ideal = other["num_proc"] / base["num_proc"]
            print(
                f"speed-up {base['num_proc']} -> {other['num_proc']} processes: {speedup:.2f}x "
                f"(ideal {ideal:.0f}x, efficiency {speedup / ideal:.0%}); "
                f"load average after: {os.getloadavg()[0]:.2f}"
            )
            base_cpu = sum(base["task_cpu_s"].values())
            other_cpu = sum(other["task_cpu_s"].values())
            if base_cpu and other_cpu:
                print(
                    f"CPU time of the mining tasks: {base_cpu:.1f} s with {base['num_proc']}, "
                    f"{other_cpu:.1f} s with {other['num_proc']} (ratio {base_cpu / other_cpu:.2f}; "
                    "1.00 = the split adds no work, so the wall-clock speed-up is bounded only "
                    "by free cores)"
                )
            same = base["kept"] == other["kept"] and base["rejected"] == other["rejected"]
            print(f"same candidates with 1 and {other['num_proc']} processes: {same}")


if __name__ == "__main__":
    main()
