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
They are rows of the ``speed`` group of ``patches.PATCHES``; ``BIASFORGE_STOCK_SERVER=1`` runs
without them (the push benchmark does, to compare).
"""

from __future__ import annotations

import functools
import inspect


def cached_settings(parsed_settings: property) -> property:
    """``parsed_settings`` (a property validating ``self.settings`` against the type its
    getter returns) with one ``TypeAdapter`` for that type, built once."""
    from pydantic import TypeAdapter

    adapter = TypeAdapter(inspect.signature(parsed_settings.fget).return_annotation)
    return property(lambda self: adapter.validate_python(self.settings))


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
