"""The run's counts and timings, read from datatrove's own per-task stats files.

Every executor (local, Slurm, Ray) writes ``stats/RANK.json`` under its logging folder: each
step's counters and time. They are summed with datatrove's ``PipelineStats`` and read by step
name; the per-task files also give each task's CPU time and peak memory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from datatrove.utils.stats import MetricStats, PipelineStats, Stats

from biasforge.curation.checks import CheckStats
from biasforge.curation.slguset import filters, flags

REJECT_RULES = (
    filters.SentenceLengthFilter,
    filters.PreprocessFilter,
    filters.NonGenderWordFilter,
    filters.CollectiveFormFilter,
    filters.PersonNameFilter,
)
SECOND_STAGE = {"thulac": filters.ThulacNameFilter}  # rules only some taggers run
NAME_CHECK = {"lac": filters.LacNameFilter}  # the last reject rule, unless the run turned it off
REVIEW_RULES = (
    flags.OtherGenderTermFlag,
    flags.BiologicalSexFlag,
    flags.CounterpartSenseFlag,
    flags.CollectiveKeywordFlag,
)
FAILED = {"reject": "dropped", "review": "flagged"}  # the counter of failed verdicts
KEYWORD_STEPS = ("keyword_prefilter (document)", "keyword_prefilter (sentence)")


def task_stats(logging_dir: str | Path) -> dict[int, PipelineStats]:
    """Each finished task's step stats, by rank."""
    out = {}
    for path in sorted(Path(logging_dir, "stats").glob("*.json")):
        out[int(path.stem)] = PipelineStats.from_json(json.loads(path.read_text("utf-8")))
    return out


def by_step(stats: PipelineStats) -> dict[str, Stats]:
    """Step name → its stats (datatrove names them ``TYPE: name``)."""
    return {s.name.split(": ", 1)[-1]: s for s in stats.stats}


def _total(step: Stats | None, key: str) -> float:
    """A counter's total (read back from JSON, a counter is a number or a dict)."""
    if step is None or key not in step.stats:
        return 0
    value = step.stats[key]
    return (value if isinstance(value, MetricStats) else MetricStats.from_dict(value)).total


def _count(step: Stats | None, key: str) -> int:
    return int(_total(step, key))


def _seconds(step: Stats | None) -> float:
    return step.time_stats.total if step is not None else 0.0


def mined_counts(logging_dir: str | Path, tagger: str, name_check: str = "lac") -> dict[str, Any]:
    """The funnel, the rules and the timings of all tasks together."""
    per_task = task_stats(logging_dir)
    steps = by_step(sum(per_task.values(), start=PipelineStats()))
    reader, splitter = steps.get("SlguSet corpus reader"), steps.get("sentence splitter")
    documents, sentences = steps.get(KEYWORD_STEPS[0]), steps.get(KEYWORD_STEPS[1])
    usage = {rank: by_step(stats).get("task usage") for rank, stats in per_task.items()}
    return {
        "documents": _count(reader, "documents"),
        "raw_chars": _count(reader, "raw_chars"),
        "bad_lines": _count(reader, "bad_lines"),
        "documents_without_keyword": _count(documents, "dropped"),
        "sentences_seen": _count(splitter, "sentences"),
        "sentences_without_keyword": _count(sentences, "dropped"),
        "duplicates": _count(steps.get(filters.DuplicateFilter.name), "dropped"),
        "quote_repairs": _count(steps.get("quote repair"), "quote_repairs"),
        "thulac_chars": _count(steps.get(filters.ThulacNameFilter.rule), "chars"),
        "lac_chars": _count(steps.get(filters.LacNameFilter.rule), "chars"),
        "lac_cpu_seconds": {  # tagging, and loading the model once per task
            key: round(_value(steps.get(filters.LacNameFilter.rule), key), 3)
            for key in ("cpu_seconds", "load_cpu_seconds")
        },
        "rules": [r.as_dict() for r in _rules(steps, tagger, name_check)],
        "seconds": {
            name: round(s.time_stats.total, 6) for name, s in steps.items() if s.time_stats.total
        },
        "task_cpu_seconds": {str(r): _value(u, "cpu_seconds") for r, u in usage.items()},
        "task_peak_rss_mb": {str(r): _value(u, "peak_rss_mb") for r, u in usage.items()},
    }


def _value(step: Stats | None, key: str) -> float:
    return float(_total(step, key))


def _rules(steps: dict[str, Stats], tagger: str, name_check: str) -> list[CheckStats]:
    out = []
    extra = tuple(
        table[key]
        for table, key in ((SECOND_STAGE, tagger), (NAME_CHECK, name_check))
        if key in table
    )
    for rule in (*REJECT_RULES, *extra, *REVIEW_RULES):
        step = steps.get(rule.rule)
        description = (
            rule.describe(tagger) if rule is filters.PersonNameFilter else rule.description
        )
        failed = _count(step, FAILED[rule.severity])
        out.append(
            CheckStats(
                rule.rule, rule.severity, description, _count(step, "total"), failed,
                _seconds(step),
            )
        )  # fmt: skip
    return out


def keyword_seconds(seconds: dict[str, float]) -> float:
    """Time of the regex prefilter: on documents, splitting, and on sentences."""
    return sum(seconds.get(name, 0.0) for name in (*KEYWORD_STEPS, "sentence splitter"))
