"""One rule protocol for every stage: a rule gives each item one verdict with its reason.

As in datatrove, where a filter is one verdict with a reason, a rule here has a ``name``, a
``severity`` and a ``description``, and says of each item whether it passed and why
(``detail``). What a verdict does to an item is decided here once, whichever driver ran the
rule — the pandas driver :func:`biasforge.curation.checks.run_checks` (batches of items) or
the datatrove driver :mod:`biasforge.curation.rule_steps` (corpus-scale families) — and when
review recomputes an item's state after a correction (:func:`review_state`):

* every verdict is recorded on the item (its ``checks`` list, what a reviewer reads);
* a failed ``reject`` rule removes the item, with ``"rule: detail"`` among its ``reasons``;
* a failed ``review`` rule keeps it and flags it: ``needs_review`` and ``review_reasons``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Severity = Literal["reject", "review"]


class Rule(Protocol):
    """What every rule declares, whatever runs it."""

    name: str
    severity: Severity
    description: str


@dataclass(frozen=True)
class Verdict:
    """One rule's verdict on one item."""

    rule: str
    severity: Severity
    passed: bool
    detail: str

    @classmethod
    def of(cls, rule: Rule, passed: object, detail: object) -> Verdict:
        return cls(rule.name, rule.severity, bool(passed), str(detail))

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> Verdict:
        """A verdict as recorded in an item's ``checks`` list."""
        return cls(
            str(entry.get("rule")), entry.get("severity"), bool(entry.get("passed")),
            str(entry.get("detail")),
        )  # fmt: skip

    def entry(self) -> dict[str, Any]:
        """The verdict as an item's ``checks`` list records it (key order is the contract's)."""
        return {
            "rule": self.rule, "passed": self.passed, "severity": self.severity,
            "detail": self.detail,
        }  # fmt: skip

    @property
    def reason(self) -> str:
        return f"{self.rule}: {self.detail}"

    @property
    def rejects(self) -> bool:
        return not self.passed and self.severity == "reject"

    @property
    def flags(self) -> bool:
        return not self.passed and self.severity == "review"


@dataclass
class ItemVerdicts:
    """What the verdicts on one item add up to (lists shared with the item, if given)."""

    checks: list[dict[str, Any]] = field(default_factory=list)
    review_reasons: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    def record(self, verdict: Verdict) -> bool:
        """Record ``verdict``; False when it removes the item."""
        self.checks.append(verdict.entry())
        if verdict.rejects:
            self.reasons.append(verdict.reason)
        elif verdict.flags:
            self.review_reasons.append(verdict.reason)
        return not verdict.rejects


def review_state(checks: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``needs_review`` and ``review_reasons`` of an item from its recorded verdicts (review
    recomputes them after a correction re-runs the family's checks)."""
    checks = list(checks)
    reasons = [v.reason for v in map(Verdict.from_entry, checks) if v.flags]
    return {"checks": checks, "needs_review": bool(reasons), "review_reasons": reasons}
