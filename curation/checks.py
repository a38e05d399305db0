"""Rule checks with one verdict and one reason per item, in the manner of datatrove filters.

A check is a plain function over a batch (a pandas DataFrame) that returns, for every row, a
``passed`` flag and a ``detail`` string. It never mutates its input and keeps no state, so the
same function runs in a test, under ``datasets.Dataset.map(batched=True)`` or inside a
datatrove step. :func:`run_checks` applies checks in order, records every verdict on the item
(``checks`` column), counts and times each check, and splits the batch into kept and rejected
rows; rejected rows are kept for inspection with their reasons, never thrown away.

Two severities: ``reject`` removes the item (it is broken), ``review`` keeps it and flags it
for annotators (the rules could not decide).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Literal

import pandas as pd

Severity = Literal["reject", "review"]
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
    records: dict[object, list[dict[str, object]]] = {idx: [] for idx in batch.index}
    alive = pd.Series(True, index=batch.index)
    reasons: dict[object, list[str]] = {idx: [] for idx in batch.index}
    review: dict[object, list[str]] = {idx: [] for idx in batch.index}
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
        for idx, passed, detail in zip(
            result.index, result["passed"], result["detail"], strict=True
        ):
            passed = bool(passed)
            records[idx].append(
                {
                    "rule": check.name,
                    "passed": passed,
                    "severity": check.severity,
                    "detail": str(detail),
                }
            )
            if not passed:
                stats.failed += 1
                if check.severity == "reject":
                    alive[idx] = False
                    reasons[idx].append(f"{check.name}: {detail}")
                else:
                    review[idx].append(f"{check.name}: {detail}")
        all_stats.append(stats)
    out = batch.copy()
    out["checks"] = [records[idx] for idx in out.index]
    out["needs_review"] = [bool(review[idx]) for idx in out.index]
    out["review_reasons"] = [review[idx] for idx in out.index]
    kept = out[alive].reset_index(drop=True)
    rejected = out[~alive].copy()
    rejected["reasons"] = [reasons[idx] for idx in rejected.index]
    return CheckResult(kept=kept, rejected=rejected.reset_index(drop=True), stats=all_stats)
