"""SlguSet at scale: throughput per process (1 vs 2 processes) and peak memory (small vs large
corpus), each against a baseline measured in the same run.

Builds corpora by repeating the bundled People's Daily sample: ``--mb`` (default 50) and
``--large-mb`` (default 200; the issue's target is 500 — pass ``--large-mb 500`` where the cores
allow). By default every copy is made *unique* (the copy number is written after each sentence
terminator), so duplicate removal cannot skip the jieba work of later copies: the figure is the
cost of new text. ``--repeat`` measures plain repetition instead.

Each configuration runs in its own subprocess (the same ``curate(Options(...), out)`` call the
CLI makes, datatrove's LocalPipelineExecutor underneath). Peak memory is the peak of the sum of
the resident memory of that subprocess and every process below it (datatrove's workers and
manager), sampled every 0.1 s with psutil, plus each process's own ``ru_maxrss``.

* throughput: the ``--mb`` corpus with 1 and with 2 processes; raw characters per second per
  process (wall clock of the mining) and per CPU-second of the mining tasks; the speed-up is
  the 1-process run's mining time over the 2-process run's;
* name check: the ``--mb`` corpus with 1 process with and without the second-stage check
  (``--name-check none``), one after the other; the ratio, and what it predicts at the idle
  baseline measured without the check (``--idle-baseline``);
* memory: the ``--mb`` and the ``--large-mb`` corpus with ``--mem-procs`` processes (default
  2); the ratio is large over small;
* pathological lines (``--pathological``, alone): the cost per raw character of lines without
  a sentence end — ``--patho-mb`` (default 2) of 70,001-character lines (``他是一个好人，`` ×
  10,000 + ``。``, each made unique by its number) and one 14.7 MB line without any — against
  the same amount of the normal corpus, 1 process each, one after the other; the ratio must
  stay <= 3 (it grew with the line's length before such a "sentence" was bounded).

The machine has 2 cores shared with other work: the load average is printed before and after,
and the CPU-second figures do not depend on it the way wall-clock figures do.
"""

from __future__ import annotations

import argparse
import contextlib
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
    from biasforge.curation.slguset.sample import BUNDLED_SAMPLE

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


LONG_PHRASE = "他是一个好人，"
LONG_REPEAT = 10_000  # 70,001 characters with the final 。


def build_long_lines(path: Path, megabytes: float) -> int:
    """``megabytes`` of 70,001-character lines, each one sentence without an inner end."""
    target, written, number = int(megabytes * (1 << 20)), 0, 0
    with open(path, "w", encoding="utf-8") as out:
        while written < target:
            line = f"{number}{LONG_PHRASE * LONG_REPEAT}。\n"  # unique: no duplicate to skip
            out.write(line)
            written += len(line.encode("utf-8"))
            number += 1
    return written


def build_huge_line(path: Path, megabytes: float = 14.7) -> int:
    """One line of ``megabytes`` without any sentence end (the issue's 14.7 MB line)."""
    phrase = LONG_PHRASE.encode("utf-8")
    path.write_bytes(phrase * (int(megabytes * 1e6) // len(phrase)) + b"\n")
    return path.stat().st_size


def cost_per_char(result: dict) -> tuple[float, float]:
    """(wall seconds of the mining, CPU seconds of the tasks) per raw character."""
    chars = result["raw_chars"]
    return result["mining_s"] / chars, sum(result["task_cpu_s"].values()) / chars


def report_pathological(folder: Path, args: argparse.Namespace) -> None:
    """Long lines against the normal corpus, the same number of megabytes, in this run."""
    normal, long_lines, huge = folder / "normal.txt", folder / "long.txt", folder / "huge.txt"
    size = build_corpus(normal, args.patho_mb, unique=True)
    build_long_lines(long_lines, args.patho_mb)
    build_huge_line(huge)
    base = measure(normal, 1, args.name_check)
    print(f"normal corpus ({size / (1 << 20):.1f} MB): " + describe(base), flush=True)
    wall0, cpu0 = cost_per_char(base)
    print(
        f"PATHOLOGICAL baseline, normal corpus: {wall0 * 1e6:.2f} us wall, {cpu0 * 1e6:.2f} us "
        "CPU per raw character"
    )
    for label, corpus in (("70,001-character lines", long_lines), ("one 14.7 MB line", huge)):
        result = measure(corpus, 1, args.name_check)
        print(f"{label}: " + describe(result), flush=True)
        wall, cpu = cost_per_char(result)
        print(
            f"PATHOLOGICAL {label}: {wall * 1e6:.2f} us wall, {cpu * 1e6:.2f} us CPU per raw "
            f"character; ratio to the normal corpus {wall / wall0:.2f} wall, {cpu / cpu0:.2f} "
            f"CPU (target <= 3); rejections {result['rejections']}"
        )


def worker(corpus: Path, num_proc: int, name_check: str = "lac") -> dict:
    from biasforge.curation.slguset import Options, curate

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        options = Options(corpus=[corpus], num_proc=num_proc, name_check=name_check)
        stats = curate(options, Path(tmp) / "run").stats
        wall = time.perf_counter() - started
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    # the pool workers and the manager are forked from this process and reaped by it: their
    # CPU time is in RUSAGE_CHILDREN
    cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    return {
        "num_proc": num_proc,
        "raw_chars": stats["raw_chars"],
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "mining_s": stats["seconds"]["mining_wall"],
        "merge_s": stats["seconds"]["merge"],
        "name_check": name_check,  # the LAC second stage's own time and what it read:
        "lac_s": stats["seconds"].get("person_name_lac", 0.0),
        "lac_chars": stats["lac_chars"],
        "lac_cpu_s": stats["lac_cpu_seconds"]["cpu_seconds"],
        "lac_load_cpu_s": stats["lac_cpu_seconds"]["load_cpu_seconds"],
        "kept": stats["kept"],
        "rejected": stats["rejected"],
        "rejections": stats["rejections_per_rule"],
        "duplicates": stats["duplicates"],
        "task_cpu_s": stats["task_cpu_seconds"],
        "task_rss_mb": stats["task_peak_rss_mb"],
        "parent_rss_mb": round(me.ru_maxrss / 1024, 1),
    }


def measure(corpus: Path, num_proc: int, name_check: str = "lac") -> dict:
    """Run :func:`worker` in a subprocess; sample the RSS of its process tree meanwhile."""
    import psutil

    command = subprocess.Popen(
        [
            *(sys.executable, __file__, "--worker", str(corpus), "--num-proc", str(num_proc)),
            *("--name-check", name_check),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    root = psutil.Process(command.pid)
    peak = 0
    while command.poll() is None:
        total = 0
        try:
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        for proc in procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                total += proc.memory_info().rss
        peak = max(peak, total)
        time.sleep(0.1)
    out, _ = command.communicate()
    if command.returncode:
        raise SystemExit(f"worker failed ({command.returncode})")
    result = json.loads(out.strip().splitlines()[-1])
    result["tree_peak_rss_mb"] = round(peak / (1 << 20), 1)
    return result


def describe(result: dict) -> str:
    n = result["num_proc"]
    per_proc = result["raw_chars"] / result["mining_s"] / n
    task_cpu = sum(result["task_cpu_s"].values())
    per_cpu = result["raw_chars"] / task_cpu if task_cpu else 0.0
    return (
        f"{n} process(es): {result['raw_chars']:,} raw chars in {result['mining_s']:.1f} s "
        f"mining + {result['merge_s']:.1f} s merge = {per_proc:,.0f} raw chars/s per process "
        f"(wall clock); {per_cpu:,.0f} raw chars per CPU-second of the mining tasks "
        f"({task_cpu:.1f} CPU-s); peak memory of the process tree "
        f"{result['tree_peak_rss_mb']} MB (ru_maxrss: parent {result['parent_rss_mb']} MB, "
        f"tasks {result['task_rss_mb']} MB); kept {result['kept']}, rejected "
        f"{result['rejected']}, duplicates {result['duplicates']}; name check "
        f"{result['name_check']}: LAC read {result['lac_chars']:,} characters in "
        f"{result['lac_s']:.1f} s wall, {result['lac_cpu_s']:.1f} CPU-s "
        f"({100 * result['lac_cpu_s'] / task_cpu if task_cpu else 0:.1f} % of the mining CPU; "
        f"{lac_speed(result):,.0f} characters per CPU-second) + {result['lac_load_cpu_s']:.1f} "
        "CPU-s loading its model"
    )


def lac_speed(result: dict) -> float:
    return result["lac_chars"] / result["lac_cpu_s"] if result["lac_cpu_s"] else 0.0


def per_cpu_second(result: dict) -> float:
    return result["raw_chars"] / sum(result["task_cpu_s"].values())


def report_name_check(with_check: dict | None, corpus: Path, args: argparse.Namespace) -> None:
    """The second-stage check's cost: 1 process with and without it, one after the other in
    this run, as a ratio (the load changes less between two runs than between two days)."""
    if with_check is None:
        with_check = measure(corpus, 1, args.name_check)
        print(describe(with_check), flush=True)
    without = measure(corpus, 1, "none")
    print(describe(without), flush=True)
    wall = with_check["raw_chars"] / with_check["mining_s"]
    base = without["raw_chars"] / without["mining_s"]
    cpu, cpu_base = per_cpu_second(with_check), per_cpu_second(without)
    # LAC's own CPU per raw character, added to the idle miner's time per raw character
    # (CPU-seconds on a busy machine run slower than idle ones: this errs low)
    lac_per_char = with_check["lac_cpu_s"] / with_check["raw_chars"]
    print(
        f"NAME CHECK {args.name_check} vs none (baseline), 1 process: {wall:,.0f} vs {base:,.0f} "
        f"raw chars/s wall (ratio {wall / base:.2f}), {cpu:,.0f} vs {cpu_base:,.0f} per "
        f"CPU-second (ratio {cpu / cpu_base:.2f}); at the idle baseline of "
        f"{args.idle_baseline:,.0f} raw chars/s (README) the CPU ratio predicts "
        f"{args.idle_baseline * cpu / cpu_base:,.0f} with the check, and LAC's own CPU "
        f"{1 / (1 / args.idle_baseline + lac_per_char):,.0f} (target >= 300,000)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=50.0, help="small corpus, MB")
    parser.add_argument("--large-mb", type=float, default=200.0, help="large corpus, MB")
    parser.add_argument("--repeat", action="store_true", help="plain repetition (duplicates)")
    parser.add_argument("--mem-procs", type=int, default=2, help="processes of the memory runs")
    parser.add_argument(
        "--skip", default="", help="throughput, name-check and/or memory, comma-separated"
    )
    parser.add_argument(
        "--name-check", default="lac", help="second-stage name check: lac (default) or none"
    )
    parser.add_argument(
        "--idle-baseline",
        type=float,
        default=488_507,
        help="raw chars/s of 1 process without the check on an idle machine (README: the "
        "lower of two runs)",
    )
    parser.add_argument(
        "--pathological",
        action="store_true",
        help="only the pathological-line mode: long lines against the normal corpus",
    )
    parser.add_argument(
        "--patho-mb", type=float, default=2.0, help="MB of each corpus of --pathological"
    )
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--num-proc", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.num_proc, args.name_check)))
        return
    skip = set(filter(None, args.skip.split(",")))
    print(f"cores: {os.cpu_count()}; load average before: {os.getloadavg()[0]:.2f}")
    if args.pathological:
        with tempfile.TemporaryDirectory() as tmp:
            report_pathological(Path(tmp), args)
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.txt"
        size = build_corpus(small, args.mb, unique=not args.repeat)
        kind = "repeated copies" if args.repeat else "unique copies"
        print(f"small corpus: {size / (1 << 20):.1f} MB ({kind} of the bundled sample)")
        runs: dict[tuple[str, int], dict] = {}
        if "throughput" not in skip:
            for n in (1, 2):
                runs["small", n] = measure(small, n, args.name_check)
                print(describe(runs["small", n]), flush=True)
            one, two = runs["small", 1], runs["small", 2]
            speedup = one["mining_s"] / two["mining_s"]
            cpu_one = one["raw_chars"] / sum(one["task_cpu_s"].values())
            cpu_two = two["raw_chars"] / sum(two["task_cpu_s"].values())
            print(
                f"THROUGHPUT per process, 1 process (baseline): "
                f"{one['raw_chars'] / one['mining_s']:,.0f} raw chars/s wall, "
                f"{cpu_one:,.0f} per CPU-second; 2 processes: "
                f"{two['raw_chars'] / two['mining_s'] / 2:,.0f} raw chars/s wall each, "
                f"{cpu_two:,.0f} per CPU-second (ratio {cpu_two / cpu_one:.2f} of baseline)"
            )
            print(
                f"SCALING 1 -> 2 processes: {speedup:.2f}x wall clock (target 1.8x); "
                f"load average now {os.getloadavg()[0]:.2f}; same candidates: "
                f"{(one['kept'], one['rejected']) == (two['kept'], two['rejected'])}"
            )
        if "name-check" not in skip and args.name_check != "none":
            report_name_check(runs.get(("small", 1)), small, args)
        if "memory" not in skip:
            n = args.mem_procs
            if ("small", n) not in runs:
                runs["small", n] = measure(small, n, args.name_check)
                print(describe(runs["small", n]), flush=True)
            small.unlink()
            large = Path(tmp) / "large.txt"
            size = build_corpus(large, args.large_mb, unique=not args.repeat)
            print(f"large corpus: {size / (1 << 20):.1f} MB", flush=True)
            runs["large", n] = measure(large, n, args.name_check)
            print(describe(runs["large", n]))
            a, b = runs["small", n]["tree_peak_rss_mb"], runs["large", n]["tree_peak_rss_mb"]
            print(
                f"PEAK MEMORY with {n} process(es): {args.mb:g} MB corpus {a} MB (baseline), "
                f"{args.large_mb:g} MB corpus {b} MB: ratio {b / a:.2f} (target <= 1.2)"
            )
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
