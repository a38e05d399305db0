"""The pandas driver of the rule protocol (:mod:`biasforge.rules`): checks over batches.

A check is a rule whose ``fn`` is a plain function over a batch (a pandas DataFrame) that
returns, for every row, a ``passed`` flag and a ``detail`` string. It never mutates its input
and keeps no state, so the same function runs in a test, under
``datasets.Dataset.map(batched=True)`` or inside a datatrove step. :func:`run_checks` applies
checks in order, records every verdict on the item as the protocol says (``checks``,
``review_reasons``, ``reasons``), counts and times each check, and splits the batch into kept
and rejected rows; rejected rows are kept for inspection with their reasons, never thrown away.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import pandas as pd

from biasforge.rules import ItemVerdicts, Severity, Verdict

CheckFn = Callable[[pd.DataFrame], pd.DataFrame]


@dataclass(frozen=True)
class Check:
    """A named rule: ``fn(batch)`` returns a frame with ``passed`` (bool) and ``detail`` (str)."""

    name: str
    fn: CheckFn
    severity: Severity
    description: str


@dataclass
class CheckStats:
    """What one check did in a run: how many rows it saw, failed, and how long it took."""

    name: str
    severity: Severity
    description: str
    seen: int = 0
    failed: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        return {"rule": data.pop("name"), **data, "seconds": round(self.seconds, 6)}


@dataclass
class CheckResult:
    kept: pd.DataFrame
    rejected: pd.DataFrame
    stats: list[CheckStats] = field(default_factory=list)


def verdicts(
    passed: Sequence[bool] | pd.Series, detail: Sequence[str] | pd.Series, index
) -> pd.DataFrame:
    """Build the frame a check returns, aligned with the batch's index."""
    return pd.DataFrame({"passed": list(passed), "detail": list(detail)}, index=index)


def run_checks(batch: pd.DataFrame, checks: Sequence[Check]) -> CheckResult:
    """Apply ``checks`` in order (cheap ones first) and split ``batch`` into kept/rejected.

    A row that fails a ``reject`` check is not shown to the checks after it, as in a datatrove
    pipeline; ``review`` checks see every surviving row. Each row gets a ``checks`` list of
    ``{rule, passed, severity, detail}``, plus ``needs_review``/``review_reasons`` and, for
    rejected rows, ``reasons``.
    """
    items = {idx: ItemVerdicts() for idx in batch.index}
    alive = pd.Series(True, index=batch.index)
    all_stats: list[CheckStats] = []
    for check in checks:
        stats = CheckStats(check.name, check.severity, check.description)
        subset = batch[alive]
        started = time.perf_counter()
        result = check.fn(subset) if len(subset) else verdicts([], [], subset.index)
        stats.seconds = time.perf_counter() - started
        if not result.index.equals(subset.index):
            raise RuntimeError(f"check {check.name!r} returned verdicts for other rows than given")
        stats.seen = len(subset)
        found = zip(result.index, result["passed"], result["detail"], strict=True)
        for idx, passed, detail in found:
            verdict = Verdict.of(check, passed, detail)
            stats.failed += not verdict.passed
            if not items[idx].record(verdict):
                alive[idx] = False
        all_stats.append(stats)
    out = batch.copy()
    out["checks"] = [items[idx].checks for idx in out.index]
    out["needs_review"] = [bool(items[idx].review_reasons) for idx in out.index]
    out["review_reasons"] = [items[idx].review_reasons for idx in out.index]
    kept = out[alive].reset_index(drop=True)
    rejected = out[~alive].copy()
    rejected["reasons"] = [items[idx].reasons for idx in rejected.index]
    return CheckResult(kept=kept, rejected=rejected.reset_index(drop=True), stats=all_stats)
