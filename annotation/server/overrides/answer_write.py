"""An annotator's answer written in one short transaction, off the event loop.

Argilla's ``create_response`` adds the response, touches the dataset's ``last_activity_at``,
upserts the (dataset, user) row, then commits: four round trips between the event loop and
the aiosqlite connection's thread, and SQLite's database-wide write lock is held from the first
write to the commit. In a web process serving 20 annotators each trip waits for its turn in
the event loop, so the lock was held 30 ms at the median and seconds at the tail while every
other writer of both web processes waited (profiled with py-spy and SQLAlchemy's cursor
events under ``benchmarks/bench_annotators.py``; numbers in the README).

Here the same three statements run, in the same order and in one transaction, on a
synchronous SQLAlchemy session (Argilla's own ``sync_engine``, same models, same defaults) in
a worker thread, behind the write gate (``write_gate``): the lock is held for the statements
alone. Everything around them is Argilla's code, unchanged: the duplicate check and the
validation before, then (on the request's session) the response read back, the record's
status update, the search-engine hook and the webhook event. Rows written are the same
(``values``, ``status``, ids, ``inserted_at``/``updated_at`` set by the models' defaults).

Argilla then recomputes the record's status on a second session (SERIALIZABLE, three
queries, a commit through event-loop turns, the search hook, a webhook lookup) after every
answer, though only the answer that completes a record changes it. The thread reads, after
the commit and without the lock, what that decision needs (stored status, answers as
``completion`` counts them, enabled webhooks). With a webhook enabled (events to send) or another distribution strategy,
Argilla's update runs as before. Otherwise nothing happens when the stored status already is
what the overlap rule gives, and when it is not, the thread applies the same rule on a fresh
count under the write gate and saves the record through its model (``_set_status``), and
the search index is told, as Argilla's update does. Of two answers committed close together
the later one reads both, so the answer that completes a record always sets it.
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import anyio.to_thread
from overrides import completion

#: what ``_write`` says when Argilla's own ``update_record_status`` must run (webhooks
#: enabled, or a distribution strategy other than overlap)
ARGILLA = "argilla"


def _write(database: str, record_id: UUID, dataset_id: UUID, user_id: UUID, values, status,
           min_submitted: int | None) -> tuple[UUID, str | None]:  # fmt: skip
    """The answer's transaction, then the record's status (in a worker thread).

    Returns the new response's id and what became of the status: None (unchanged, nothing to
    send), the new status (set here), or ``ARGILLA`` (the caller runs Argilla's update).
    ``min_submitted`` is None when the dataset's strategy is not overlap."""
    import sqlalchemy
    import write_gate
    from argilla_server.database import sync_engine
    from argilla_server.models import Dataset, Response
    from argilla_server.models.database import DatasetUser
    from argilla_server.models.mixins import _INSERT_FUNC
    from sqlalchemy.orm import Session

    with write_gate.held(database), Session(bind=sync_engine, expire_on_commit=False) as db:
        response = Response()
        response.fill(values=values, status=status, record_id=record_id, user_id=user_id)
        db.add(response)
        db.execute(  # as argilla's _touch_dataset_last_activity_at
            sqlalchemy.update(Dataset)
            .where(Dataset.id == dataset_id)
            .values(last_activity_at=datetime.utcnow(), updated_at=Dataset.__table__.c.updated_at)
        )
        insert = _INSERT_FUNC[sync_engine.dialect.name](DatasetUser).values(
            [{"dataset_id": dataset_id, "user_id": user_id}]
        )
        update = {column: insert.excluded[column] for column in DatasetUser.__upsertable_columns__}
        update["updated_at"] = datetime.utcnow()  # as argilla's upsert_many
        db.execute(
            insert.on_conflict_do_update(
                index_elements=[DatasetUser.dataset_id, DatasetUser.user_id], set_=update
            )
            .returning(DatasetUser)
            .execution_options(populate_existing=True)
        )
        db.commit()
        response_id = response.id
    with Session(bind=sync_engine) as db:  # after the commit, no lock held
        stored, answered, webhooks = _status_check(db, record_id)
    if webhooks or min_submitted is None:
        return response_id, ARGILLA
    if stored == completion.overlap_status(answered, min_submitted):
        return response_id, None
    return response_id, _set_status(database, record_id, min_submitted)


def _status_check(db, record_id: UUID) -> tuple[str, int, bool]:
    """The record's stored status, its answers (``completion``), and whether a webhook is
    enabled."""
    from argilla_server.models import Record, Webhook
    from sqlalchemy import select

    stored = db.scalar(select(Record.status).where(Record.id == record_id))
    hooks = db.scalar(select(Webhook.id).where(Webhook.enabled.is_(True)).limit(1))
    answered = db.scalar(completion.answers_of(record_id))
    return str(getattr(stored, "value", stored)), answered, hooks is not None


def _set_status(database: str, record_id: UUID, min_submitted: int) -> str:
    """What Argilla's ``update_record_status`` writes (the overlap rule of ``completion`` on a
    fresh count, the record saved through its model, so ``updated_at`` moves as there), under
    the write gate that every writer of this server passes, so no answer commits between count
    and write."""
    import write_gate
    from argilla_server.database import sync_engine
    from argilla_server.models import Record
    from sqlalchemy.orm import Session

    with write_gate.held(database), Session(bind=sync_engine, expire_on_commit=False) as db:
        record = db.get(Record, record_id)
        answered = db.scalar(completion.answers_of(record_id))
        record.status = completion.overlap_status(answered, min_submitted)
        db.commit()
        return str(getattr(record.status, "value", record.status))


def create_response(_stock):
    """What replaces ``contexts.datasets.create_response`` (the route and bulk paths call it)."""
    import sql_index
    from argilla_server.contexts import datasets, distribution
    from argilla_server.enums import DatasetDistributionStrategy, RecordStatus
    from argilla_server.errors.future import NotUniqueError
    from argilla_server.models import Response
    from argilla_server.settings import settings
    from argilla_server.validators.responses import ResponseCreateValidator
    from fastapi.encoders import jsonable_encoder

    database = sql_index.database_path(settings.database_url)

    async def create_response(db, search_engine, record, user, response_create):
        if await Response.get_by(db, record_id=record.id, user_id=user.id):
            raise NotUniqueError(
                f"Response already exists for record with id `{record.id}` and by user with "
                f"id `{user.id}`"
            )
        ResponseCreateValidator.validate(response_create, record)
        values = jsonable_encoder(response_create.values)
        dataset = record.dataset
        overlap = dataset.distribution_strategy == DatasetDistributionStrategy.overlap
        min_submitted = dataset.distribution["min_submitted"] if overlap else None
        response_id, status = await anyio.to_thread.run_sync(
            _write, database, record.id, dataset.id, user.id, values, response_create.status,
            min_submitted,
        )  # fmt: skip
        response = await Response.get(db, response_id)
        if status == ARGILLA:
            await distribution.update_record_status(search_engine, record.id)
        elif status is not None:  # set in the thread: the search index follows, as there
            await search_engine.partial_record_update(record, status=RecordStatus(status))
        await datasets._load_users_from_responses([response])
        await search_engine.update_record_response(response)
        await datasets.notify_response_event_v1(db, datasets.ResponseEvent.created, response)
        return response

    return create_response
