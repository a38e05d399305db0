"""Translate many texts through the memory: plan, dry-run cost, batching, retries, failures.

The unit of work is a :class:`Unit` (a text plus the options that change its translation).
:func:`plan` tells, without sending anything, which units the memory already holds and how
many characters the rest would cost. :func:`translate_units` sends only those, in batches that
share options and stay under the translator's request size limit (a text too long for one
request is cut at sentence ends, see :mod:`biasforge.curation.translation.sizing`), retries retryable
errors with exponential backoff, commits every successful batch to the memory at once (so an
interrupted run resumes), and returns one :class:`Outcome` per unit: a translation, or the
reason it has none. Nothing is dropped. An error that no later request can escape (a rejected
key, an exhausted quota) stops the sending and is kept in :attr:`RunStats.fatal`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from biasforge.curation.translation.base import TranslationError, Translator
from biasforge.curation.translation.sizing import fit_context, join_pieces, json_bytes, split_text
from biasforge.progress import progress_bar
from biasforge.translation_memory import TranslationMemory, memory_key

#: characters per request: a failed request costs at most this much to resend
MAX_BATCH_CHARS = 30_000
#: share of a request's size limit that the ``context`` parameter may take
CONTEXT_SHARE = 4
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
    """A unit's translation, or why it has none (``refused``: retrying cannot help)."""

    text: str | None
    cache_hit: bool
    error: str | None = None
    refused: bool = False


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
    """What a run would do: the units the memory answers, and the requests it would send.

    ``characters_to_send`` counts what the requests carry (a text cut at sentence ends loses
    the whitespace between its pieces), never the ``refused`` units, so a dry run's count is
    what the real run sends."""

    units: list[Unit]
    hits: dict[Unit, str]
    missing: list[Unit]
    characters_total: int
    characters_to_send: int
    #: units not in the memory that cannot be sent at all, with the reason
    refused: dict[Unit, str] = field(default_factory=dict)
    requests: _Requests | None = None

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
    #: the error that stopped all sending (rejected key, quota), if one did
    fatal: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "errors": self.errors[:20]}


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
    max_batch: int = 50,
    limit: int | None = None,
) -> Plan:
    """What a run would send: units not in the memory, cut into the requests
    :func:`translate_units` sends (``max_batch`` texts, ``limit`` JSON bytes: the translator's
    ``max_batch`` and ``max_request_bytes``), their character count and the units refused."""
    units = list(dict.fromkeys(units))
    keys = {u: unit_key(engine, options, source, target, u) for u in units}
    stored = memory.get_many(keys.values())
    hits = {u: stored[k] for u, k in keys.items() if k in stored}
    missing = [u for u in units if u not in hits]
    requests = _plan_requests(missing, max_batch, limit)
    return Plan(
        units=units,
        hits=hits,
        missing=missing,
        characters_total=sum(len(u.text) for u in units),
        characters_to_send=sum(len(p.text) for batch in requests.batches for p in batch),
        refused=requests.refused,
        requests=requests,
    )


def plan_for(
    units: Iterable[Unit],
    translator: Translator,
    memory: TranslationMemory,
    *,
    source: str,
    target: str,
) -> Plan:
    """:func:`plan` with ``translator``'s engine, options and request limits: the one plan
    both a dry run and :func:`translate_units` use."""
    return plan(
        units,
        engine=translator.engine_id,
        options=translator.options_key(),
        source=source,
        target=target,
        memory=memory,
        max_batch=translator.max_batch,
        limit=getattr(translator, "max_request_bytes", None),
    )


@dataclass(frozen=True)
class _Piece:
    """One text of a request: a whole unit, or piece ``index`` of a unit cut at sentences."""

    unit: Unit
    index: int
    text: str


@dataclass
class _Requests:
    """The planned requests, with what is needed to reassemble cut units."""

    batches: list[list[_Piece]] = field(default_factory=list)
    #: per unit: the whitespace between its pieces (empty for a unit sent whole)
    gaps: dict[Unit, list[str]] = field(default_factory=dict)
    #: units that cannot be sent at all, with the reason
    refused: dict[Unit, str] = field(default_factory=dict)


def request_context(context: str | None, limit: int | None) -> str | None:
    """The ``context`` parameter actually sent: cut to its last sentences when it would take
    more than 1/CONTEXT_SHARE of a request (it guides the translation; it is not translated)."""
    if not context or limit is None:
        return context
    return fit_context(context, limit // CONTEXT_SHARE)


def _pieces(units: Sequence[Unit], budget: int | None, out: _Requests) -> list[_Piece]:
    """Each unit as one piece, or cut at sentence ends to fit ``budget``; refused if it can't."""
    pieces: list[_Piece] = []
    for unit in units:
        split = split_text(unit.text, budget, xml=unit.xml) if budget else ([unit.text], [])
        if split is None:
            out.refused[unit] = (
                f"refused: a sentence of this text is over the {budget}-byte request limit of "
                f"the translator ({json_bytes(unit.text)} bytes in all); shorten it in the source"
            )
            continue
        texts, out.gaps[unit] = split
        pieces += [_Piece(unit, i, text) for i, text in enumerate(texts)]
    return pieces


def _plan_requests(units: Sequence[Unit], max_batch: int, limit: int | None) -> _Requests:
    """Requests of texts sharing context and XML handling, each within ``max_batch`` texts,
    :data:`MAX_BATCH_CHARS` characters and ``limit`` JSON bytes (context included)."""
    out = _Requests()
    groups: dict[tuple[str | None, bool], list[Unit]] = {}
    for unit in units:
        groups.setdefault((unit.context, unit.xml), []).append(unit)
    for (context, _), group in groups.items():
        sent = request_context(context, limit)
        budget = limit - (json_bytes(sent) if sent else 0) if limit else None
        current: list[_Piece] = []
        chars = size = 0
        for piece in _pieces(group, budget, out):
            full = len(current) >= max_batch or chars + len(piece.text) > MAX_BATCH_CHARS
            if current and (full or (budget and size + json_bytes(piece.text) > budget)):
                out.batches.append(current)
                current, chars, size = [], 0, 0
            current.append(piece)
            chars += len(piece.text)
            size += json_bytes(piece.text)
        if current:
            out.batches.append(current)
    return out


@dataclass
class _Sender:
    """Sends planned requests one by one, retrying, and records each unit's outcome."""

    translator: Translator
    memory: TranslationMemory
    options: dict[str, Any]
    languages: tuple[str, str]
    retry: RetryPolicy
    sleep: Callable[[float], None]
    stats: RunStats
    outcomes: dict[Unit, Outcome]
    gaps: dict[Unit, list[str]]
    done: dict[Unit, dict[int, str]] = field(default_factory=dict)

    def send(self, batch: list[_Piece]) -> None:
        """One request; pieces of a unit that already failed are not sent."""
        batch = [piece for piece in batch if piece.unit not in self.outcomes]
        if not batch:
            return
        if self.stats.fatal:
            self._fail(batch, f"not sent: {self.stats.fatal}")
            return
        result, error = self._request(batch)
        if result is None:
            self.stats.errors.append(error or "no answer")
            self._fail(batch, error or "no answer")
            return
        self.stats.characters_sent += sum(len(piece.text) for piece in batch)
        for piece, text in zip(batch, result, strict=True):
            self.done.setdefault(piece.unit, {})[piece.index] = text
        self._store_complete(batch)

    def _request(self, batch: list[_Piece]) -> tuple[list[str] | None, str | None]:
        """The translations of ``batch``, or the error that remained after the retries."""
        first = batch[0].unit
        limit = getattr(self.translator, "max_request_bytes", None)
        context = request_context(first.context, limit)
        error = None
        for attempt in range(self.retry.attempts):
            self.stats.requests += 1
            try:
                texts = [piece.text for piece in batch]
                got = self.translator.translate(
                    texts, *self.languages, context=context, xml=first.xml
                )
                return got, None
            except TranslationError as exc:
                error = str(exc)
                if exc.fatal:
                    self.stats.fatal = error
                    return None, error
                if not exc.retryable or attempt == self.retry.attempts - 1:
                    return None, error
                self.stats.retries += 1
                self.sleep(self.retry.pause(attempt))
        return None, error

    def _fail(self, batch: list[_Piece], error: str) -> None:
        for piece in batch:
            self.outcomes[piece.unit] = Outcome(None, False, error)

    def _store_complete(self, batch: list[_Piece]) -> None:
        """Units whose every piece is back: joined, recorded and committed to the memory."""
        ready = []
        for unit in dict.fromkeys(piece.unit for piece in batch):
            parts, gaps = self.done[unit], self.gaps[unit]
            if len(parts) == len(gaps) + 1:
                text = join_pieces([parts[i] for i in range(len(parts))], gaps)
                self.outcomes[unit] = Outcome(text, cache_hit=False)
                ready.append((unit.text, text, len(unit.text)))
        if ready:
            engine = self.translator.engine_id
            options = _options(self.options, batch[0].unit)
            self.memory.put_many(engine, *self.languages, options, ready)


def _check_ready(translator: Translator) -> None:
    """A backend's own pre-flight check (e.g. DeepL: is there a key?), if it has one."""
    check = getattr(translator, "check_ready", None)
    if check is not None:
        check()


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
    """Translate ``units`` (memory first), returning one outcome per unit and run stats.

    The backend's pre-flight check runs only when something has to be sent, so a run that
    the memory answers entirely needs no key.
    """
    options = translator.options_key()
    the_plan = plan_for(units, translator, memory, source=source, target=target)
    stats = RunStats(
        units=len(the_plan.units),
        cache_hits=len(the_plan.hits),
        characters_total=the_plan.characters_total,
    )
    outcomes = {u: Outcome(text, cache_hit=True) for u, text in the_plan.hits.items()}
    requests = the_plan.requests or _Requests()
    for unit, reason in requests.refused.items():
        outcomes[unit] = Outcome(None, False, reason, refused=True)
    if requests.batches:
        _check_ready(translator)
    sender = _Sender(
        translator,
        memory,
        options,
        (source, target),
        retry or RetryPolicy(),
        sleep,
        stats,
        outcomes,
        requests.gaps,
    )
    total = sum(len(batch) for batch in requests.batches)
    with progress_bar(
        total=total,
        desc=f"translating {source}→{target}",
        unit="text",
        disable=not progress or not total,
    ) as bar:
        for batch in requests.batches:
            sender.send(batch)
            bar.update(len(batch))
    stats.failed = sum(1 for o in outcomes.values() if o.error)
    return outcomes, stats
