"""Speed-ups for bulk record creation in argilla-server 2.8 (installed by the launcher).

Stock argilla-server logs about 40-50 records/s on this kind of machine, and nearly all of the
time goes to two things that do not change any result:

1. ``Question.parsed_settings`` and ``MetadataProperty.parsed_settings`` build a new pydantic
   ``TypeAdapter`` for a large union type on every access, and record validation accesses them
   for every suggestion and metadata value of every record. A ``TypeAdapter`` is immutable and
   reusable, so one per type is kept.
2. After each bulk write the server builds a full webhook event per record (six queries plus
   serialising the dataset) and only then looks whether any webhook is enabled. When none is,
   the event is thrown away; the patch looks first and skips building it.

Both patches keep the behaviour identical (same validation, same events when webhooks exist).
Set ``BIASFORGE_STOCK_SERVER=1`` to run without them (the push benchmark does, to compare).
"""

from __future__ import annotations

import functools


def _cache_type_adapters() -> None:
    from argilla_server.models import database
    from pydantic import TypeAdapter

    question_adapter = TypeAdapter(database.QuestionSettings)
    metadata_adapter = TypeAdapter(database.MetadataPropertySettings)

    database.Question.parsed_settings = property(
        lambda self: question_adapter.validate_python(self.settings)
    )
    database.MetadataProperty.parsed_settings = property(
        lambda self: metadata_adapter.validate_python(self.settings)
    )


def unless_no_webhook(notify):
    """``notify`` (an async ``notify_*_event(db, event, item)``) that first looks whether any
    webhook is enabled and builds nothing when none is."""
    from argilla_server.models import Webhook
    from sqlalchemy import select

    @functools.wraps(notify)
    async def wrapper(db, event, item):
        enabled = (
            await db.execute(select(Webhook.id).where(Webhook.enabled.is_(True)).limit(1))
        ).first()
        if enabled is None:
            return []
        return await notify(db, event, item)

    return wrapper


def _skip_events_without_webhooks() -> None:
    from argilla_server.bulk import records_bulk

    records_bulk.notify_record_event_v1 = unless_no_webhook(records_bulk.notify_record_event_v1)


def install() -> None:
    """Apply both patches (idempotent enough: applied once per server process)."""
    _cache_type_adapters()
    _skip_events_without_webhooks()
