"""What an annotator reads through Argilla's API gives away no answer (rows of ``patches.PATCHES``).

biasforge's rule: annotators judge blind. Metadata hidden from annotators
(``visible_for_annotators=False``) must stay hidden: StereoSet records pushed before keyed
orders kept the shown order of their options there (``option_order``; whoever read it knew
which option is the stereotype), and records keep a keyed check of it (``order_check``)
today. Argilla 2.8 itself hides such metadata,
and other users' answers, from annotators on the route its web UI uses
(``POST /me/datasets/{id}/records/search``) and nowhere else:

* ``GET /api/v1/records/{id}`` returns the record as stored, every metadata key and every
  user's response, to any member of the workspace. For a user who may not list a dataset's
  records with all responses (Argilla's own ``DatasetPolicy.list_records_with_all_responses``:
  an annotator) the route now answers as the UI's search does: the metadata they may see
  (Argilla's own filter) and their own response only. Owners and admins get the record whole.
* the UI's search route filters and sorts on any metadata property, hidden or not, so an
  annotator could ask for the records whose ``option_order`` was ``1,0,2``. A filter or sort on
  a property the user may not see is now refused exactly as one on a property that does not
  exist (the same HTTP 422 and message), so the answer does not even say that it exists.

Routes are looked up per request, so the record route is rebuilt on the built v1 API with the
original handler's own signature (its dependencies, its response model) around it; the search
helper is a module global the handlers look up at call time, so it is wrapped in place.
"""

from __future__ import annotations

import functools
from typing import Any


async def as_seen_by(user: Any, record: Any) -> Any:
    """``record`` as ``user`` may see it: whole for owners and admins; otherwise the metadata
    Argilla's policy lets them see and their own response only."""
    from argilla_server.api.handlers.v1.datasets.records import _filter_record_metadata_for_user
    from argilla_server.api.policies.v1 import DatasetPolicy, is_authorized
    from argilla_server.api.schemas.v1.records import Record as RecordSchema

    dataset = record.dataset
    if await is_authorized(user, DatasetPolicy.list_records_with_all_responses(dataset)):
        return record
    await dataset.awaitable_attrs.metadata_properties  # what the metadata policy reads
    seen = RecordSchema.model_validate(record)
    return seen.model_copy(
        update={
            "metadata": await _filter_record_metadata_for_user(record, user),
            "responses": [r for r in seen.responses or [] if r.user_id == user.id],
        }
    )


def blind_record_route(get_record) -> None:
    """Serve ``GET /records/{record_id}`` through :func:`as_seen_by`."""
    from argilla_server.api.routes import api_v1

    @functools.wraps(get_record)  # FastAPI reads the original's parameters and dependencies
    async def blind_get_record(**arguments: Any) -> Any:
        return await as_seen_by(arguments["current_user"], await get_record(**arguments))

    routes = api_v1.router.routes
    (stock,) = [r for r in routes if getattr(r, "endpoint", None) is get_record]
    routes.remove(stock)
    api_v1.add_api_route(
        stock.path,
        blind_get_record,
        methods=sorted(stock.methods),
        response_model=stock.response_model,
        tags=stock.tags,
        name=stock.name,
    )


def _metadata_names(query: Any) -> list[str]:
    """The metadata properties a search query filters or sorts on."""
    from argilla_server.api.schemas.v1.records import MetadataFilterScope

    scopes = [f.scope for f in (query.filters.and_ if query.filters else [])]
    scopes += [order.scope for order in query.sort or []]
    return [s.metadata_property for s in scopes if isinstance(s, MetadataFilterScope)]


async def _refuse_hidden(user: Any, dataset: Any, names: list[str]) -> None:
    """HTTP 422 for a property ``user`` may not see, worded as Argilla words an unknown one
    (``MetadataProperty.get_by_or_raise`` in ``contexts.search``)."""
    from argilla_server.api.policies.v1 import MetadataPropertyPolicy, is_authorized
    from argilla_server.errors.future import UnprocessableEntityError

    for name in names:
        prop = dataset.metadata_property_by_name(name)
        if prop is not None and not await is_authorized(user, MetadataPropertyPolicy.get(prop)):
            raise UnprocessableEntityError(
                f"MetadataProperty not found filtering by name={name}, dataset_id={dataset.id}"
            )


def no_hidden_scopes(get_search_responses):
    """``_get_search_responses`` of the search handlers, refusing a user's filter or sort on
    metadata hidden from them (the annotators' route passes the user; the admins' does not)."""

    async def search(
        db, search_engine, dataset, limit, offset, search_records_query=None, user=None
    ):
        if user is not None and search_records_query is not None:
            await _refuse_hidden(user, dataset, _metadata_names(search_records_query))
        return await get_search_responses(
            db, search_engine, dataset, limit, offset, search_records_query, user
        )

    return search
