"""Translate many texts through the memory: plan, dry-run cost, batching, retries, failures.

The unit of work is a :class:`Unit` (a text plus the options that change its translation).
:func:`plan` tells, without sending anything, which units the memory already holds and how
many characters the rest would cost. :func:`translate_units` sends only those, in batches that
share options, retries retryable errors with exponential backoff, commits every successful
batch to the memory at once (so an interrupted run resumes), and returns one
:class:`Outcome` per unit: a translation, or the reason it has none. Nothing is dropped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from biasforge.translation_memory import TranslationMemory, memory_key
from curation.translation.base import TranslationError, Translator

#: stay well under DeepL's 128 KiB request body limit
MAX_BATCH_CHARS = 30_000
#: DeepL API Pro list price, EUR per million characters (check your own contract)
DEFAULT_PRICE_PER_MILLION = 20.0


@dataclass(frozen=True)
class Unit:
    """One text to translate, with the options that change its translation."""

    text: str
    context: str | None = None
    xml: bool = False


@dataclass(frozen=True)
class Outcome:
    text: str | None
    cache_hit: bool
    error: str | None = None


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff: ``delay * multiplier**n`` seconds, capped, ``attempts`` tries."""

    attempts: int = 5
    delay: float = 1.0
    multiplier: float = 2.0
    max_delay: float = 60.0

    def pause(self, attempt: int) -> float:
        return min(self.delay * self.multiplier**attempt, self.max_delay)


@dataclass
class Plan:
    units: list[Unit]
    hits: dict[Unit, str]
    missing: list[Unit]
    characters_total: int
    characters_to_send: int

    def cost(self, price_per_million: float = DEFAULT_PRICE_PER_MILLION) -> float:
        return self.characters_to_send * price_per_million / 1_000_000


@dataclass
class RunStats:
    units: int = 0
    cache_hits: int = 0
    requests: int = 0
    retries: int = 0
    characters_total: int = 0
    characters_sent: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "units": self.units,
            "cache_hits": self.cache_hits,
            "requests": self.requests,
            "retries": self.retries,
            "characters_total": self.characters_total,
            "characters_sent": self.characters_sent,
            "failed": self.failed,
            "errors": self.errors[:20],
        }


def _options(translator_options: dict[str, Any], unit: Unit) -> dict[str, Any]:
    opts = dict(translator_options)
    if unit.context:
        opts["context"] = unit.context
    if unit.xml:
        opts["xml"] = True
    return opts


def unit_key(engine: str, options: dict[str, Any], source: str, target: str, unit: Unit) -> str:
    return memory_key(engine, source, target, _options(options, unit), unit.text)


def plan(
    units: Iterable[Unit],
    *,
    engine: str,
    options: dict[str, Any],
    source: str,
    target: str,
    memory: TranslationMemory,
) -> Plan:
    """What a run would send: units not in the memory, and their character count."""
    units = list(dict.fromkeys(units))
    keys = {u: unit_key(engine, options, source, target, u) for u in units}
    stored = memory.get_many(keys.values())
    hits = {u: stored[k] for u, k in keys.items() if k in stored}
    missing = [u for u in units if u not in hits]
    return Plan(
        units=units,
        hits=hits,
        missing=missing,
        characters_total=sum(len(u.text) for u in units),
        characters_to_send=sum(len(u.text) for u in missing),
    )


def _batches(units: Sequence[Unit], max_batch: int) -> list[list[Unit]]:
    groups: dict[tuple[str | None, bool], list[Unit]] = {}
    for unit in units:
        groups.setdefault((unit.context, unit.xml), []).append(unit)
    batches: list[list[Unit]] = []
    for group in groups.values():
        current: list[Unit] = []
        chars = 0
        for unit in group:
            if current and (len(current) >= max_batch or chars + len(unit.text) > MAX_BATCH_CHARS):
                batches.append(current)
                current, chars = [], 0
            current.append(unit)
            chars += len(unit.text)
        if current:
            batches.append(current)
    return batches


def translate_units(
    units: Iterable[Unit],
    translator: Translator,
    memory: TranslationMemory,
    *,
    source: str,
    target: str,
    retry: RetryPolicy | None = None,
    progress: bool = True,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[dict[Unit, Outcome], RunStats]:
    """Translate ``units`` (memory first), returning one outcome per unit and run stats."""
    from tqdm import tqdm

    retry = retry or RetryPolicy()
    options = translator.options_key()
    the_plan = plan(
        units,
        engine=translator.engine_id,
        options=options,
        source=source,
        target=target,
        memory=memory,
    )
    stats = RunStats(
        units=len(the_plan.units),
        cache_hits=len(the_plan.hits),
        characters_total=the_plan.characters_total,
    )
    outcomes: dict[Unit, Outcome] = {
        u: Outcome(text, cache_hit=True) for u, text in the_plan.hits.items()
    }
    fatal: str | None = None
    batches = _batches(the_plan.missing, translator.max_batch)
    bar = tqdm(
        total=len(the_plan.missing),
        desc=f"translating {source}→{target}",
        unit="text",
        disable=not progress or not batches,
    )
    for batch in batches:
        if fatal:
            for unit in batch:
                outcomes[unit] = Outcome(None, False, f"not sent: {fatal}")
            bar.update(len(batch))
            continue
        texts = [u.text for u in batch]
        error: str | None = None
        for attempt in range(retry.attempts):
            stats.requests += 1
            try:
                result = translator.translate(
                    texts, source, target, context=batch[0].context, xml=batch[0].xml
                )
            except TranslationError as exc:
                error = str(exc)
                if exc.fatal:
                    fatal = error
                    break
                if not exc.retryable or attempt == retry.attempts - 1:
                    break
                stats.retries += 1
                sleep(retry.pause(attempt))
                continue
            error = None
            stats.characters_sent += sum(len(t) for t in texts)
            memory.put_many(
                translator.engine_id,
                source,
                target,
                _options(options, batch[0]),
                [(u.text, text, len(u.text)) for u, text in zip(batch, result, strict=True)],
            )
            for unit, text in zip(batch, result, strict=True):
                outcomes[unit] = Outcome(text, cache_hit=False)
            break
        if error is not None:
            stats.errors.append(error)
            for unit in batch:
                outcomes[unit] = Outcome(None, False, error)
        bar.update(len(batch))
    bar.close()
    stats.failed = sum(1 for o in outcomes.values() if o.error)
    return outcomes, stats
