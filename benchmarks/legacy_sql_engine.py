"""BASELINE ONLY (benchmarks/bench_search.py): biasforge's first SQL search engine, before the index.

It reads every record of the dataset and filters, sorts and pages in Python for each request.
Kept verbatim (engine name ``biasforge-sql-legacy``) so the benchmark can time it against the
indexed engine in the same run; no production code path imports it.

Original docstring:

A search engine for argilla-server 2.8 that answers from the server's own SQL database.

Argilla normally mirrors every record into Elasticsearch/OpenSearch and asks it for queues,
filters, progress and metrics. Neither can be installed here, and a review workspace of a few
thousand items does not need one: the records, responses and suggestions are already in the
server's SQLite database (the server commits every write before it calls an engine hook), so
this engine keeps no index at all. The write hooks are no-ops and every query reads the tables.

This module runs inside the server's own virtualenv (argilla-server pins libraries the main
environment cannot share), so it imports only argilla_server and the standard library. The
server makes a new engine per request and its rq worker calls it too, so it keeps no state.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from argilla_server.database import AsyncSessionLocal
from argilla_server.enums import (
    MetadataPropertyType,
    RecordSortField,
    ResponseStatusFilter,
    SimilarityOrder,
    SortOrder,
)
from argilla_server.models import (
    Dataset,
    MetadataProperty,
    Question,
    Record,
    Response,
    Suggestion,
    User,
    Vector,
    VectorSettings,
)
from argilla_server.search_engine.base import (
    AndFilter,
    FloatMetadataMetrics,
    IntegerMetadataMetrics,
    MetadataFilterScope,
    MetadataMetrics,
    Order,
    RangeFilter,
    RecordFilterScope,
    ResponseFilterScope,
    SearchEngine,
    SearchResponseItem,
    SearchResponses,
    SuggestionFilterScope,
    TermsFilter,
    TermsMetrics,
    TextQuery,
)
from sqlalchemy import func, select

ENGINE_NAME = "biasforge-sql-legacy"
_TERM = re.compile(r'"([^"]+)"|(\S+)')


def _terms(query: str) -> list[str]:
    """Split a simple query string into lower-cased terms; quoted phrases stay whole.

    Elasticsearch's simple_query_string with default_operator AND needs every term; the
    operators ``+`` and trailing ``*`` are accepted and ignored (a term is a substring match,
    which also suits Chinese text, where the standard analyzer splits per character anyway).
    """
    terms = []
    for phrase, word in _TERM.findall(query):
        term = (phrase or word).strip("+*").lower()
        if term and term not in {"and", "or"}:
            terms.append(term)
    return terms


def _text_of(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):  # chat fields: list of {role, content}
        return " ".join(
            _text_of(item.get("content") if isinstance(item, dict) else item) for item in value
        )
    if isinstance(value, dict):
        return " ".join(_text_of(item) for item in value.values())
    return str(value)


def _user_key(user_id: Any, record_id: UUID) -> str:
    """Per-annotator queue order: pseudo-random, different for each user, stable across pages."""
    return hashlib.sha256(f"{user_id}:{record_id}".encode()).hexdigest()


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _response_value(values: dict | None, question: str) -> Any:
    item = (values or {}).get(question)
    return item.get("value") if isinstance(item, dict) else None


class _Row:
    """What one query needs to know about a record; filled only with what was asked for."""

    __slots__ = (
        "external_id",
        "fields",
        "id",
        "inserted_at",
        "metadata",
        "responses",
        "status",
        "suggestions",
        "updated_at",
    )

    def __init__(self, record_id, external_id, status, inserted_at, updated_at) -> None:
        self.id = record_id
        self.external_id = external_id
        self.status = str(getattr(status, "value", status))
        self.inserted_at = inserted_at
        self.updated_at = updated_at
        self.fields: dict = {}
        self.metadata: dict = {}
        self.responses: list[tuple[str, str, dict]] = []  # (user_id, status, values)
        self.suggestions: dict[str, dict] = {}


def _walk(filter_: Any) -> Iterable[Any]:
    if filter_ is None:
        return
    if isinstance(filter_, AndFilter):
        for inner in filter_.filters:
            yield from _walk(inner)
    else:
        yield filter_


@SearchEngine.register(engine_name=ENGINE_NAME)
class LegacySQLSearchEngine(SearchEngine):
    """Answer Argilla's search-engine calls from SQL; see the module docstring for why."""

    @classmethod
    async def new_instance(cls) -> LegacySQLSearchEngine:
        return cls()

    async def close(self) -> None:
        return None

    async def ping(self) -> bool:
        return True

    async def info(self) -> dict:
        return {"engine": ENGINE_NAME, "backend": "sql"}

    # -- write hooks: the database already holds every change --------------------------------
    async def create_index(self, dataset: Dataset) -> None:
        return None

    async def delete_index(self, dataset: Dataset) -> None:
        return None

    async def configure_metadata_property(
        self, dataset: Dataset, metadata_property: MetadataProperty
    ) -> None:
        return None

    async def configure_index_vectors(self, vector_settings: VectorSettings) -> None:
        return None

    async def index_records(self, dataset: Dataset, records: Iterable[Record]) -> None:
        return None

    async def partial_record_update(self, record: Record, **update) -> None:
        return None

    async def delete_records(self, dataset: Dataset, records: Iterable[Record]) -> None:
        return None

    async def update_record_response(self, response: Response) -> None:
        return None

    async def delete_record_response(self, response: Response) -> None:
        return None

    async def update_record_suggestion(self, suggestion: Suggestion) -> None:
        return None

    async def delete_record_suggestion(self, suggestion: Suggestion) -> None:
        return None

    # -- progress and metrics ------------------------------------------------------------------
    async def get_dataset_progress(self, dataset: Dataset) -> dict:
        if dataset.is_draft:
            return {}
        async with AsyncSessionLocal() as db:
            rows = (
                await db.execute(
                    select(Record.status, func.count())
                    .where(Record.dataset_id == dataset.id)
                    .group_by(Record.status)
                )
            ).all()
        counts = {str(getattr(status, "value", status)): count for status, count in rows}
        return {"total": sum(counts.values()), **counts}

    async def get_dataset_user_progress(self, dataset: Dataset, user: User) -> dict:
        if dataset.is_draft:
            return {}
        async with AsyncSessionLocal() as db:
            rows = (
                await db.execute(
                    select(Response.status, func.count())
                    .join(Record, Record.id == Response.record_id)
                    .where(Record.dataset_id == dataset.id, Response.user_id == user.id)
                    .group_by(Response.status)
                )
            ).all()
        counts = {str(getattr(status, "value", status)): count for status, count in rows}
        return {"total": sum(counts.values()), **counts}

    async def compute_metrics_for(self, metadata_property: MetadataProperty) -> MetadataMetrics:
        name = metadata_property.name
        async with AsyncSessionLocal() as db:
            values = (
                await db.execute(
                    select(Record.metadata_).where(
                        Record.dataset_id == metadata_property.dataset_id
                    )
                )
            ).scalars()
            found = [(meta or {}).get(name) for meta in values]
        found = [value for value in found if value is not None]
        if metadata_property.type == MetadataPropertyType.terms:
            counts: dict[str, int] = defaultdict(int)
            for value in found:
                for term in _as_list(value):
                    counts[str(term)] += 1
            ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
            return TermsMetrics(
                total=sum(counts.values()),
                values=[TermsMetrics.TermCount(term=term, count=count) for term, count in ordered],
            )
        numbers = [value for value in found if isinstance(value, int | float)]
        cls = (
            IntegerMetadataMetrics
            if metadata_property.type == MetadataPropertyType.integer
            else FloatMetadataMetrics
        )
        return cls(min=min(numbers) if numbers else None, max=max(numbers) if numbers else None)

    # -- search -----------------------------------------------------------------------------------
    async def search(
        self,
        dataset: Dataset,
        query: TextQuery | str | None = None,
        filter: Any = None,
        sort: list[Order] | None = None,
        offset: int = 0,
        limit: int = 100,
        user_id: Any = None,
    ) -> SearchResponses:
        rows, scores = await self._matching_rows(dataset, query, filter, sort)
        rows = self._ordered(rows, scores, sort, user_id, query)
        page = rows[offset : offset + limit]
        return SearchResponses(
            items=[
                SearchResponseItem(record_id=row.id, score=scores.get(row.id, 1.0)) for row in page
            ],
            total=len(rows),
        )

    async def similarity_search(
        self,
        dataset: Dataset,
        vector_settings: VectorSettings,
        value: list[float] | None = None,
        record: Record | None = None,
        query: TextQuery | str | None = None,
        filter: Any = None,
        max_results: int = 100,
        order: SimilarityOrder = SimilarityOrder.most_similar,
        threshold: float | None = None,
    ) -> SearchResponses:
        if bool(value) == bool(record):
            raise ValueError(
                "Must provide either vector value or record to compute the similarity search"
            )
        excluded = None
        if not value:
            excluded = record.id
            value = record.vector_value_by_vector_settings(vector_settings)
        if not value:
            raise ValueError("Cannot find a vector value to apply with provided info")
        rows, _ = await self._matching_rows(dataset, query, filter, None)
        allowed = {row.id for row in rows}
        async with AsyncSessionLocal() as db:
            vectors = (
                await db.execute(
                    select(Vector.record_id, Vector.value).where(
                        Vector.vector_settings_id == vector_settings.id
                    )
                )
            ).all()
        norm = math.sqrt(sum(x * x for x in value)) or 1.0
        scored = []
        for record_id, other in vectors:
            if record_id == excluded or record_id not in allowed or not other:
                continue
            other_norm = math.sqrt(sum(x * x for x in other)) or 1.0
            cosine = sum(a * b for a, b in zip(value, other, strict=False)) / (norm * other_norm)
            score = (1 + cosine) / 2  # Elasticsearch's cosine similarity score range
            if order == SimilarityOrder.least_similar:
                score = 1 - score
            if threshold is None or score >= threshold:
                scored.append((score, record_id))
        scored.sort(key=lambda item: (-item[0], str(item[1])))
        scored = scored[:max_results]
        return SearchResponses(
            items=[
                SearchResponseItem(record_id=record_id, score=score) for score, record_id in scored
            ],
            total=len(scored),
        )

    # -- internals --------------------------------------------------------------------------------
    async def _matching_rows(self, dataset, query, filter_, sort) -> tuple[list[_Row], dict]:
        """Load what the filter, sort and text query need, then evaluate them in Python."""
        if isinstance(query, str):
            query = TextQuery(q=query)
        scopes = [f.scope for f in _walk(filter_)] + [o.scope for o in sort or []]
        need_responses = any(isinstance(s, ResponseFilterScope) for s in scopes)
        need_suggestions = any(isinstance(s, SuggestionFilterScope) for s in scopes)
        need_metadata = any(isinstance(s, MetadataFilterScope) for s in scopes)
        need_fields = query is not None and bool(query.q)

        async with AsyncSessionLocal() as db:
            columns = [
                Record.id,
                Record.external_id,
                Record.status,
                Record.inserted_at,
                Record.updated_at,
            ]
            if need_fields:
                columns.append(Record.fields)
            if need_metadata:
                columns.append(Record.metadata_)
            result = await db.execute(select(*columns).where(Record.dataset_id == dataset.id))
            rows: dict[UUID, _Row] = {}
            for item in result.all():
                row = _Row(*item[:5])
                position = 5
                if need_fields:
                    row.fields = item[position] or {}
                    position += 1
                if need_metadata:
                    row.metadata = item[position] or {}
                rows[row.id] = row
            if need_responses:
                result = await db.execute(
                    select(Response.record_id, Response.user_id, Response.status, Response.values)
                    .join(Record, Record.id == Response.record_id)
                    .where(Record.dataset_id == dataset.id)
                )
                for record_id, user, status, values in result.all():
                    if record_id in rows:
                        rows[record_id].responses.append(
                            (str(user), str(getattr(status, "value", status)), values or {})
                        )
            if need_suggestions:
                result = await db.execute(
                    select(
                        Suggestion.record_id,
                        Question.name,
                        Suggestion.value,
                        Suggestion.score,
                        Suggestion.agent,
                        Suggestion.type,
                    )
                    .join(Question, Question.id == Suggestion.question_id)
                    .where(Question.dataset_id == dataset.id)
                )
                for record_id, name, value, score, agent, kind in result.all():
                    if record_id in rows:
                        rows[record_id].suggestions[name] = {
                            "value": value,
                            "score": score,
                            "agent": agent,
                            "type": str(getattr(kind, "value", kind)) if kind is not None else None,
                        }

        scores: dict[UUID, float] = {}
        matched = []
        terms = _terms(query.q) if need_fields else []
        for row in rows.values():
            if filter_ is not None and not self._accepts(row, filter_):
                continue
            if terms:
                if query.field:
                    text = _text_of(row.fields.get(query.field)).lower()
                else:
                    text = " ".join(_text_of(value) for value in row.fields.values()).lower()
                if not all(term in text for term in terms):
                    continue
                scores[row.id] = float(sum(text.count(term) for term in terms))
            matched.append(row)
        return matched, scores

    def _accepts(self, row: _Row, filter_: Any) -> bool:
        if isinstance(filter_, AndFilter):
            return all(self._accepts(row, inner) for inner in filter_.filters)
        scope = filter_.scope
        if isinstance(scope, ResponseFilterScope):
            return self._accepts_response(row, filter_)
        values = self._scope_values(row, scope)
        return any(self._value_matches(value, filter_) for value in values)

    def _accepts_response(self, row: _Row, filter_: Any) -> bool:
        scope: ResponseFilterScope = filter_.scope
        user = str(scope.user.id) if scope.user is not None else None
        responses = [r for r in row.responses if user is None or r[0] == user]
        if scope.question:
            return any(
                self._value_matches(value, filter_)
                for _, _, values in responses
                for value in _as_list(_response_value(values, scope.question))
            )
        if scope.property == "status" and isinstance(filter_, TermsFilter):
            wanted = {str(getattr(v, "value", v)) for v in filter_.values}
            if ResponseStatusFilter.pending.value in wanted and not responses:
                return True  # "pending" = this user (or, without a user, nobody) has answered
            return any(status in wanted for _, status, _ in responses)
        raise ValueError(f"Cannot process filter scope {scope}")

    @staticmethod
    def _value_matches(value: Any, filter_: Any) -> bool:
        if isinstance(filter_, TermsFilter):
            return str(value) in {str(v) for v in filter_.values}
        if isinstance(filter_, RangeFilter):
            if value is None or isinstance(value, bool):
                return False
            try:
                number = float(value)
            except (TypeError, ValueError):
                return False
            if filter_.ge is not None and number < filter_.ge:
                return False
            return not (filter_.le is not None and number > filter_.le)
        raise ValueError(f"Cannot process filter {filter_}")

    @staticmethod
    def _scope_values(row: _Row, scope: Any) -> list[Any]:
        if isinstance(scope, MetadataFilterScope):
            return _as_list(row.metadata.get(scope.metadata_property))
        if isinstance(scope, SuggestionFilterScope):
            suggestion = row.suggestions.get(scope.question)
            return _as_list(suggestion.get(scope.property)) if suggestion else []
        if isinstance(scope, RecordFilterScope):
            value = getattr(row, scope.property, None)
            return _as_list(str(value) if isinstance(value, UUID) else value)
        raise ValueError(f"Cannot process request for search scope {scope}")

    def _sort_value(self, row: _Row, scope: Any) -> Any:
        if isinstance(scope, ResponseFilterScope):
            user = str(scope.user.id) if scope.user is not None else None
            key = scope.question or scope.property
            found = []
            for response_user, status, values in row.responses:
                if user is not None and response_user != user:
                    continue
                found.append(status if key == "status" else _response_value(values, key))
            found = [value for value in found if value is not None]
            if not found:
                return None
            if all(isinstance(v, int | float) and not isinstance(v, bool) for v in found):
                return sum(found) / len(found)  # Elasticsearch's nested sort mode "avg"
            return min(str(v) for v in found)
        values = self._scope_values(row, scope)
        if not values:
            return None
        value = values[0]
        return str(value) if isinstance(value, UUID) else value

    def _ordered(self, rows, scores, sort, user_id, query) -> list[_Row]:
        # Base order: per-user stable shuffle for annotator queues, relevance for text search,
        # insertion order otherwise; explicit sort keys are applied on top (stable sorts).
        if user_id is not None:
            rows = sorted(rows, key=lambda row: _user_key(user_id, row.id))
        elif scores:
            rows = sorted(
                rows, key=lambda row: (-scores.get(row.id, 0.0), row.inserted_at, str(row.id))
            )
        else:
            rows = sorted(rows, key=lambda row: (row.inserted_at, str(row.id)))
        for order in reversed(sort or []):
            descending = str(getattr(order.order, "value", order.order)) == SortOrder.desc.value
            keyed = [(self._sort_value(row, order.scope), row) for row in rows]
            present = [item for item in keyed if item[0] is not None]
            missing = [row for value, row in keyed if value is None]
            present.sort(key=lambda item: _sortable(item[0]), reverse=descending)
            rows = [row for _, row in present] + missing  # missing values last, like Elasticsearch
        return rows


def _sortable(value: Any) -> tuple:
    if isinstance(value, bool):
        return (0, int(value), "")
    if isinstance(value, int | float):
        return (0, float(value), "")
    return (1, 0.0, str(value))


__all__ = ["ENGINE_NAME", "LegacySQLSearchEngine", "RecordSortField"]
