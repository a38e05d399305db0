"""Curating a family in its own language (StereoSet-en, CrowS-Pairs-en): no engine, no memory.

The French StereoSet paper compares English with French on the same models, so the
English source must go through the same pipeline as a translation (audit, structure checks,
flags, run directory, release) to be released and scored the same way. When the target
language is the source language nothing is sent and nothing is read from or written to the
translation memory: every text passes through unchanged, so no key is needed and a run is
reproducible from its source alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from biasforge.curation.translation.base import Request, Translator
from biasforge.curation.translation.runner import Outcome, RunStats, Unit

#: the engine id such a run records in its config and report
ENGINE_ID = "none (source language)"


class PassThrough(Translator):
    """A translator for a run whose target is the source language: texts come back as sent
    (tags included), so the alignment code reads the source's own attribute back."""

    engine_id = ENGINE_ID
    max_batch = 1_000_000

    def options_key(self) -> dict[str, Any]:
        return {}

    def send(self, request: Request) -> list[str]:
        return list(request.texts)


def pass_through(units: Iterable[Unit]) -> tuple[dict[Unit, Outcome], RunStats]:
    """Each unit's own text as its outcome, and stats saying nothing was sent."""
    distinct = list(dict.fromkeys(units))
    outcomes = {unit: Outcome(unit.text, cache_hit=False) for unit in distinct}
    stats = RunStats(units=len(distinct), characters_total=sum(len(u.text) for u in distinct))
    return outcomes, stats
