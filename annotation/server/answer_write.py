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
queries, a commit, the search hook, a webhook lookup) after every answer, though only the
answer that completes a record changes it. The thread reads, after the commit, what that
decision needs (stored status, submitted answers, enabled webhooks), and the update is
skipped only when it would change nothing and send nothing (``status_stays``).
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import anyio.to_thread


def _write(database: str, record_id: UUID, dataset_id: UUID, user_id: UUID, values, status):
    """The answer's transaction (in a worker thread); returns the new response's id and
    what :func:`_status_check` read once it was committed."""
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
        return response.id, _status_check(db, record_id)


def _status_check(db, record_id: UUID) -> tuple[str, int, bool]:
    """After the commit (no lock held): the record's stored status, its submitted answers,
    and whether any webhook is enabled."""
    from argilla_server.enums import ResponseStatus
    from argilla_server.models import Record, Response, Webhook
    from sqlalchemy import func, select

    submitted = select(func.count()).where(
        Response.record_id == record_id, Response.status == ResponseStatus.submitted
    )
    stored = db.scalar(select(Record.status).where(Record.id == record_id))
    hooks = db.scalar(select(Webhook.id).where(Webhook.enabled.is_(True)).limit(1))
    return str(getattr(stored, "value", stored)), db.scalar(submitted), hooks is not None


def status_stays(record, check: tuple[str, int, bool]) -> bool:
    """True when Argilla's ``update_record_status`` would change nothing and send nothing:
    no webhook is enabled, the dataset uses the overlap strategy (the only one there is) and
    the stored status already is what the submitted answers make it (completed from
    ``min_submitted`` answers on, else pending). The count was read after this answer's own
    commit, so of two answers committed close together the later one reads both: the answer
    that completes a record, and any answer that sees it complete but not yet marked so,
    always goes through Argilla's update."""
    from argilla_server.enums import DatasetDistributionStrategy, RecordStatus

    stored, submitted, webhooks = check
    dataset = record.dataset
    if webhooks or dataset.distribution_strategy != DatasetDistributionStrategy.overlap:
        return False
    wanted = submitted >= dataset.distribution["min_submitted"]
    return stored == (RecordStatus.completed if wanted else RecordStatus.pending).value


def install(database: str) -> None:
    """Replace ``contexts.datasets.create_response`` (the route and bulk paths call it)."""
    from argilla_server.contexts import datasets, distribution
    from argilla_server.errors.future import NotUniqueError
    from argilla_server.models import Response
    from argilla_server.validators.responses import ResponseCreateValidator
    from fastapi.encoders import jsonable_encoder

    async def create_response(db, search_engine, record, user, response_create):
        if await Response.get_by(db, record_id=record.id, user_id=user.id):
            raise NotUniqueError(
                f"Response already exists for record with id `{record.id}` and by user with "
                f"id `{user.id}`"
            )
        ResponseCreateValidator.validate(response_create, record)
        values = jsonable_encoder(response_create.values)
        response_id, check = await anyio.to_thread.run_sync(
            _write, database, record.id, record.dataset.id, user.id, values, response_create.status
        )
        response = await Response.get(db, response_id)
        if not status_stays(record, check):
            await distribution.update_record_status(search_engine, record.id)
        await datasets._load_users_from_responses([response])
        await search_engine.update_record_response(response)
        await datasets.notify_response_event_v1(db, datasets.ResponseEvent.created, response)
        return response

    datasets.create_response = create_response
