"""A record is complete at ``min_submitted`` answers, a discard counting as one (a row of
``patches.PATCHES``).

Argilla's overlap rule counts *submitted* responses only: a record with two submitted answers
and one discard (``min_submitted`` 3) stays pending, so it stays in the queue of every member
of the workspace who has not answered it, and the next one's answer is accepted as a fourth
(issue 46: the "over-full record"). In biasforge a discard is an answer, "cannot judge":
``annotate push --min-submitted`` asks for that many answers, submitted or discarded, and
``pull`` decides a record once it has them (``annotation/decide.py``). The members who have
not answered are typically adjudicators, who are annotators of the workspace: answering the
record there made them one of its annotators, so they could no longer adjudicate it.

So the embedded server applies biasforge's rule wherever Argilla applies its own: after an
answer, a changed or deleted answer, a bulk of records, and in the record-status job. A stock
Argilla deployment keeps Argilla's rule (docs/embedded-server.md lists the difference;
tests/annotation/test_overrides_differential.py asserts it).
"""

from __future__ import annotations

#: the response statuses that count towards ``min_submitted`` (a draft does not)
ANSWERED = ("submitted", "discarded")


def overlap_status(answered: int, min_submitted: int) -> str:
    """The record's status under the overlap rule, from its answers (submitted or discarded)."""
    return "completed" if answered >= min_submitted else "pending"


def answers_of(record_id):
    """The statement counting a record's answers (submitted or discarded)."""
    from argilla_server.models import Response
    from sqlalchemy import func, select

    return select(func.count()).where(
        Response.record_id == record_id, Response.status.in_(ANSWERED)
    )


def discards_count(_stock):
    """What replaces ``distribution._update_record_status_with_overlap_strategy``: the same
    status written the same way (``record.save``, no commit), from answers, not submissions."""
    from argilla_server.enums import RecordStatus

    async def update_status(db, record):
        answered = await db.scalar(answers_of(record.id))
        min_submitted = record.dataset.distribution["min_submitted"]
        record.status = RecordStatus(overlap_status(answered, min_submitted))
        return await record.save(db, autocommit=False)

    return update_status
