"""The progress an annotator sees counts their own answers (two rows of ``patches.PATCHES``).

Argilla's annotation page draws its progress bar from ``GET /datasets/{id}/progress``: records
*completed* by the team, i.e. with ``min_submitted`` answers. With three answers per record an
annotator who had submitted ten records still saw 0.00 % (issue 23). For a user with the
annotator role the figure becomes their own: ``completed`` = records they submitted or
discarded, ``pending`` = the rest. Owners and admins keep the team's figure.

The route's handler cannot be replaced once FastAPI has built it, so the patch wraps the two
names it looks up at call time: ``authorize`` (which receives the current user first) records
the user in a context variable, and ``datasets.get_dataset_progress`` reads it.
"""

from __future__ import annotations

import contextvars

_user: contextvars.ContextVar = contextvars.ContextVar("biasforge_progress_user", default=None)


def remembering_authorize(authorize):
    """The datasets handlers' ``authorize``, remembering who is asking."""

    async def remembering_authorize(user, policy):
        _user.set(user)
        return await authorize(user, policy)

    return remembering_authorize


def own_progress(team_progress):
    """``datasets.get_dataset_progress`` giving an annotator their own figure."""
    from argilla_server.enums import UserRole

    async def progress(db, search_engine, dataset) -> dict:
        result = await team_progress(db, search_engine, dataset)
        user = _user.get()
        if user is None or user.role != UserRole.annotator:
            return result
        own = await search_engine.get_dataset_user_progress(dataset, user)
        done = int(own.get("submitted", 0)) + int(own.get("discarded", 0))
        total = int(result.get("total", 0))
        return {**result, "completed": done, "pending": max(0, total - done)}

    return progress
