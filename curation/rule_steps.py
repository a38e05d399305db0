"""The datatrove driver of the rule protocol (:mod:`biasforge.rules`), for corpus-scale
families: a rule over one document is a pipeline step.

A :class:`RuleStep` declares ``rule`` (its name), ``severity`` and ``description`` and gives
each document a verdict (``verdict(doc) -> (passed, detail)``). The verdict is recorded on the
document as the protocol says, the same as the pandas driver
(:func:`biasforge.curation.checks.run_checks`) records it on a row: on ``checks``, a failed
``review`` rule on ``review_reasons`` (the document goes on, counted as ``flagged``), a failed
``reject`` rule on ``reasons`` (the document is dropped with the rule's name, to datatrove's
exclusion writer when there is one).
"""

from __future__ import annotations

from abc import abstractmethod

from datatrove.data import Document
from datatrove.pipeline.filters.base_filter import BaseFilter
from datatrove.pipeline.writers.disk_base import DiskWriter

from biasforge.curation.checks import Check
from biasforge.rules import ItemVerdicts, Severity, Verdict

CHECK_STATE = ("checks", "review_reasons", "reasons")  # what the protocol records on an item


def record_on(doc: Document, verdict: Verdict) -> bool:
    """Record ``verdict`` on the document's metadata; False when it drops the document."""
    meta = doc.metadata
    state = ItemVerdicts(meta["checks"], meta.setdefault("review_reasons", []))
    alive = state.record(verdict)
    if state.reasons:
        meta["reasons"] = state.reasons
    return alive


class RuleStep(BaseFilter):
    """One rule of the protocol as a datatrove step (a filter that only drops on ``reject``)."""

    rule: str
    description: str
    severity: Severity = "reject"

    def __init__(self, exclusion_writer: DiskWriter | None = None) -> None:
        self.name = self.rule  # before datatrove names the step's stats
        super().__init__(exclusion_writer)

    @abstractmethod
    def verdict(self, doc: Document) -> tuple[bool, str]:
        """(passed, detail) for one document."""

    def filter(self, doc: Document) -> bool | tuple[bool, str]:
        return self.apply(doc, *self.verdict(doc))

    def apply(self, doc: Document, passed: bool, detail: str) -> bool | tuple[bool, str]:
        """Record the verdict; a failed reject rule drops the document with its name."""
        verdict = Verdict.of(self, passed, detail)
        if verdict.flags:
            self.stat_update("flagged")
        return True if record_on(doc, verdict) else (False, self.rule)


class CheckStep(RuleStep):
    """A pandas check (:class:`~biasforge.curation.checks.Check`) as a datatrove step, so a
    rule written for batches runs on a corpus too: each document is a one-row batch of its
    metadata, with its text in ``text_field``."""

    def __init__(
        self, check: Check, text_field: str = "text", exclusion_writer: DiskWriter | None = None
    ) -> None:
        self.rule, self.severity, self.description = check.name, check.severity, check.description
        self.check, self.text_field = check, text_field
        super().__init__(exclusion_writer)

    def verdict(self, doc: Document) -> tuple[bool, str]:
        import pandas as pd

        row = {k: v for k, v in doc.metadata.items() if k not in CHECK_STATE}
        result = self.check.fn(pd.DataFrame([{**row, self.text_field: doc.text}]))
        return bool(result["passed"].iloc[0]), str(result["detail"].iloc[0])
