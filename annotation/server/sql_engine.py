"""A search engine for argilla-server 2.8 that answers from the server's own SQLite database.

Argilla normally mirrors every record into Elasticsearch/OpenSearch and asks it for queues,
filters, progress and metrics. Neither can be installed here. This engine keeps an index beside
Argilla's tables in the same database (``sql_index``: FTS5 trigram text, metadata values,
per-record random keys, extra indexes on ``records`` and ``responses``), updates it from the
write hooks Argilla calls (``index_records``, ``partial_record_update``, ``delete_records``,
``delete_index``), and answers every search, filter, sort, page, progress and metrics call with
one SQL query each. Responses and suggestions are read from Argilla's own tables, which already
index them by record, user and question, so their hooks need no extra work.

Text search follows Argilla's search box on Elasticsearch (``text_query``: the
``simple_query_string`` syntax, whole words cut as the standard analyzer cuts them; CJK terms as
substrings; ``text_match`` turns it into SQL). Filters follow Argilla's: "pending" means no
response by that user, date ranges on ``inserted_at``/``updated_at`` compare to the microsecond;
a filter or scope this engine cannot answer is refused with HTTP 422, never answered with an
empty page. An annotator's queue is in a pseudo-random order that is stable for paging and the
same for every annotator (a random key per record, read from an index; issue 23 dropped the
per-user starting point so a maintainer can say "the first ten"), a text search without a user
ranks by relevance (bm25 for words, occurrences for CJK substrings), missing sort values come
last.

This module runs inside the server's own virtualenv (argilla-server pins libraries the main
environment cannot share), so it imports only argilla_server, numpy (a dependency of the
server), ``regex`` and ``rapidfuzz`` (installed there for the text search) and the standard
library. The server makes a new engine per request and its rq worker calls it too, so it keeps
no state; queries run on a fresh ``sqlite3`` connection in a worker thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import sql_index
import text_query
from argilla_server.database import AsyncSessionLocal
from argilla_server.enums import (
    MetadataPropertyType,
    RecordSortField,
    ResponseStatusFilter,
    SimilarityOrder,
    SortOrder,
)
from argilla_server.errors.future import UnprocessableEntityError
from argilla_server.models import (
    Dataset,
    MetadataProperty,
    Record,
    Response,
    Suggestion,
    User,
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
from text_match import TextMatch

ENGINE_NAME = "biasforge-sql"
_RECORD_COLUMNS = {"id", "external_id", "status", "inserted_at", "updated_at"}
_DATE_COLUMNS = {"inserted_at", "updated_at"}
_schema_ready: set[str] = set()  # databases whose index tables exist (per process, not state)


def _text(query: TextQuery | str | None) -> tuple[Any, str | None]:
    """The parsed text query (``text_query``) and the field it is restricted to."""
    if isinstance(query, str):
        query = TextQuery(q=query)
    if query is None or not query.q:
        return None, None
    return text_query.parse(query.q), query.field


def _refused(what: str) -> UnprocessableEntityError:
    """The error for a search this engine cannot answer: an HTTP 422 naming it, never an
    empty result that looks like "no record matches"."""
    return UnprocessableEntityError(f"the biasforge search engine refuses {what}")


def _stamp(bound: Any) -> str:
    """A date bound (ISO 8601 text, or epoch milliseconds) as the columns' text."""
    try:
        if isinstance(bound, int | float) or re.fullmatch(r"-?\d+(\.\d*)?", str(bound)):
            when = datetime.fromtimestamp(float(bound) / 1000, UTC)
        else:
            when = datetime.fromisoformat(str(bound).replace("Z", "+00:00"))
    except (ValueError, OverflowError) as error:
        raise _refused(f"the date bound {bound!r} ({error})") from error
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.strftime("%Y-%m-%d %H:%M:%S.%f")


def _hex(value: Any) -> str:
    if isinstance(value, UUID):
        return value.hex
    try:
        return UUID(str(value)).hex
    except ValueError:
        return str(value)


def _value(enum_or_str: Any) -> str:
    return str(getattr(enum_or_str, "value", enum_or_str))


def _walk(filter_: Any) -> Iterable[Any]:
    if filter_ is None:
        return
    if isinstance(filter_, AndFilter):
        for inner in filter_.filters:
            yield from _walk(inner)
    else:
        yield filter_


def _connect() -> Any:
    path = sql_index.database_path()
    conn = sql_index.connect(path)
    if path not in _schema_ready:
        sql_index.ensure_schema(conn)
        _schema_ready.add(path)
    return conn


def _run(function, *args):
    """Run ``function(conn, *args)`` on a fresh connection in a worker thread."""

    def work():
        conn = _connect()
        try:
            return function(conn, *args)
        finally:
            conn.close()

    return asyncio.to_thread(work)


class _Query:
    """SQL text and parameters of one search, built from Argilla's filter/sort objects."""

    def __init__(self, dataset_id: str) -> None:
        self.params: dict[str, Any] = {"ds": dataset_id}
        self.where: list[str] = ["b.dataset_id = :ds"]
        self.needs_records = False  # a filter or sort on a column bf_record does not copy
        self.metadata_sets: list[str] = []  # the rid sets of metadata filters, as SELECTs
        self.order: list[str] = []
        self._n = 0

    def param(self, value: Any) -> str:
        self._n += 1
        name = f"p{self._n}"
        self.params[name] = value
        return f":{name}"

    def in_list(self, values: Iterable[Any]) -> str:
        return "(" + ", ".join(self.param(v) for v in values) + ")"

    # -- filters ---------------------------------------------------------------------------
    def add_filter(self, filter_: Any) -> None:
        for item in _walk(filter_):
            self.where.append(self._condition(item))

    def _condition(self, filter_: Any) -> str:
        scope = filter_.scope
        if isinstance(scope, MetadataFilterScope):
            name = self.param(scope.metadata_property)
            if isinstance(filter_, TermsFilter):
                values = self.in_list(str(v) for v in filter_.values)
                test = f"sval IN {values}"
            else:
                test = self._range("nval", filter_, text_column="sval")
            matching = (
                f"SELECT rid FROM bf_meta WHERE dataset_id = :ds AND name = {name} AND {test}"
            )
            self.metadata_sets.append(matching)
            # "+b.rid": walk the order (or queue) index and probe the matching set, so a page
            # costs at most one pass over the dataset's index whatever the filter keeps; the
            # rid index would sort every match first (1M records, 50 % kept: ~1 s)
            return f"+b.rid IN ({matching})"
        if isinstance(scope, SuggestionFilterScope):
            question = self.param(scope.question)
            column = scope.property
            if column not in {"value", "score", "agent", "type"}:
                raise _refused(f"cannot process the search scope {scope!r}")
            source = f"json_each(s.{column})" if column in {"value", "score"} else None
            value = "j.value" if source else f"s.{column}"
            kind = "j.type" if source else None
            test = self._value_test(value, kind, filter_)
            joins = f"suggestions s, {source} j" if source else "suggestions s"
            return (
                f"b.rid IN (SELECT s.record_id FROM {joins} WHERE s.question_id = "
                f"(SELECT id FROM questions WHERE dataset_id = :ds AND name = {question}) "
                f"AND {test})"
            )
        if isinstance(scope, ResponseFilterScope):
            return self._response_condition(filter_)
        if isinstance(scope, RecordFilterScope):
            column = scope.property
            if column not in _RECORD_COLUMNS:
                raise _refused(f"cannot filter on the record property {column!r}")
            if isinstance(filter_, RangeFilter):
                if column not in _DATE_COLUMNS:
                    raise _refused(f"a range filter on the record property {column!r}")
                return self._date_range(self.record_column(column), filter_)
            if not isinstance(filter_, TermsFilter):
                raise _refused(f"cannot process the filter {filter_!r}")
            values = filter_.values
            if column == "id":
                values = [_hex(v) for v in values]
            return f"CAST({self.record_column(column)} AS TEXT) IN {self.in_list(map(str, values))}"
        raise _refused(f"cannot process the filter scope {scope!r}")

    def record_column(self, column: str) -> str:
        if column == "id":
            return "b.rid"
        if column in {"inserted_at", "status"}:
            return f"b.{column}"
        self.needs_records = True
        return f"r.{column}"

    def _range(self, column: str, filter_: Any, text_column: str | None = None) -> str:
        """A numeric range; bounds that are not numbers compare ``text_column`` (the value's
        ``str()``) as text, as Elasticsearch ranges on a keyword field do."""
        if not isinstance(filter_, RangeFilter):
            raise _refused(f"cannot process the filter {filter_!r}")
        bounds = [filter_.ge, filter_.le]
        try:
            bounds = [None if b is None else float(b) for b in bounds]
        except ValueError:
            if text_column is None:
                raise _refused(
                    f"range bounds that are not numbers: {filter_.ge!r}, {filter_.le!r}"
                ) from None
            column, bounds = text_column, [None if b is None else str(b) for b in bounds]
        tests = [f"{column} IS NOT NULL"]
        for operator, bound in zip((">=", "<="), bounds, strict=True):
            if bound is not None:
                tests.append(f"{column} {operator} {self.param(bound)}")
        return " AND ".join(tests)

    def _date_range(self, column: str, filter_: Any) -> str:
        """``inserted_at``/``updated_at`` within bounds given as ISO 8601 text or epoch
        milliseconds (what Elasticsearch accepts for Argilla's ``date_nanos`` fields), both
        inclusive; the columns hold naive UTC as ``%Y-%m-%d %H:%M:%S.%f``."""
        tests = []
        if filter_.ge is not None:
            tests.append(f"{column} >= {self.param(_stamp(filter_.ge))}")
        if filter_.le is not None:
            tests.append(f"{column} <= {self.param(_stamp(filter_.le))}")
        return " AND ".join(tests)

    def _value_test(self, value: str, kind: str | None, filter_: Any) -> str:
        """A JSON value (or a column) against a terms or range filter, as str()/float() did."""
        if isinstance(filter_, TermsFilter):
            return f"CAST({value} AS TEXT) IN {self.in_list(str(v) for v in filter_.values)}"
        number = (
            f"(CASE WHEN {kind} IN ('integer', 'real') THEN {value} END)"
            if kind
            else f"(CASE WHEN typeof({value}) IN ('integer', 'real') THEN {value} END)"
        )
        return self._range(number, filter_)

    def _response_condition(self, filter_: Any) -> str:
        scope: ResponseFilterScope = filter_.scope
        user = self.param(scope.user.id.hex) if scope.user is not None else None
        by_user = f" AND resp.user_id = {user}" if user else ""
        if scope.question:
            path = self.param(f'$."{scope.question}".value')
            test = self._value_test("j.value", "j.type", filter_)
            return (
                "b.rid IN (SELECT resp.record_id FROM responses resp, "
                f'json_each(resp."values", {path}) j WHERE 1{by_user} AND {test})'
            )
        if scope.property == "status" and isinstance(filter_, TermsFilter):
            wanted = {_value(v) for v in filter_.values}
            tests = []
            answered = wanted - {ResponseStatusFilter.pending.value}
            if answered:
                tests.append(
                    "EXISTS (SELECT 1 FROM responses resp WHERE resp.record_id = b.rid"
                    f"{by_user} AND resp.status IN {self.in_list(sorted(answered))})"
                )
            if ResponseStatusFilter.pending.value in wanted:
                tests.append(
                    "NOT EXISTS (SELECT 1 FROM responses resp WHERE resp.record_id = b.rid"
                    f"{by_user})"
                )
            return "(" + " OR ".join(tests) + ")" if tests else "0"
        raise _refused(f"cannot process the filter {filter_!r}")

    # -- sort ----------------------------------------------------------------------------------
    def add_sort(self, order: Order) -> None:
        descending = _value(order.order) == SortOrder.desc.value
        direction = "DESC" if descending else "ASC"
        scope = order.scope
        if isinstance(scope, MetadataFilterScope):
            name = self.param(scope.metadata_property)
            first = (
                "(SELECT {col} FROM bf_meta m WHERE m.rid = b.rid AND m.name = "
                + name
                + " ORDER BY m.pos LIMIT 1)"
            )
            self._sort_on(first.format(col="sval"), first.format(col="snum"), direction)
            return
        if isinstance(scope, RecordFilterScope):
            if scope.property not in _RECORD_COLUMNS:
                raise _refused(f"cannot process the search scope {scope!r}")
            column = self.record_column(scope.property)
            self.order += [f"{column} IS NULL", f"{column} {direction}"]
            return
        if isinstance(scope, SuggestionFilterScope):
            question = self.param(scope.question)
            column = scope.property
            if column not in {"value", "score", "agent", "type"}:
                raise _refused(f"cannot process the search scope {scope!r}")
            pick = "json_extract(s.{0}, '$[0]')" if column in {"value", "score"} else "s.{0}"
            pick = (
                f"(CASE WHEN json_type(s.{column}) = 'array' THEN {pick.format(column)} "
                f"ELSE json_extract(s.{column}, '$') END)"
                if column in {"value", "score"}
                else pick.format(column)
            )
            value = (
                f"(SELECT {pick} FROM suggestions s WHERE s.record_id = b.rid AND s.question_id = "
                f"(SELECT id FROM questions WHERE dataset_id = :ds AND name = {question}))"
            )
            number = f"(CASE WHEN typeof({value}) IN ('integer', 'real') THEN {value} END)"
            self._sort_on(value, number, direction)
            return
        if isinstance(scope, ResponseFilterScope):
            user = self.param(scope.user.id.hex) if scope.user is not None else None
            by_user = f" AND resp.user_id = {user}" if user else ""
            if scope.question:
                path = self.param(f'$."{scope.question}".value')
                inner = f'json_extract(resp."values", {path})'
            else:
                inner = "resp.status"
            value = (
                "(SELECT CASE WHEN count(v) = sum(typeof(v) IN ('integer', 'real')) "
                "THEN avg(v) ELSE min(CAST(v AS TEXT)) END FROM (SELECT "
                f"{inner} AS v FROM responses resp WHERE resp.record_id = b.rid{by_user}) "
                "WHERE v IS NOT NULL)"
            )
            number = f"(CASE WHEN typeof({value}) IN ('integer', 'real') THEN {value} END)"
            self._sort_on(value, number, direction)
            return
        raise _refused(f"cannot process the search scope {scope!r}")

    def _sort_on(self, text: str, number: str, direction: str) -> None:
        # Missing values last; numbers before strings ascending (after them descending), as
        # the first engine's key (kind, number, str) did.
        self.order += [
            f"{text} IS NULL",
            f"({number} IS NULL) {direction}",
            f"{number} {direction}",
            f"CAST({text} AS TEXT) {direction}",
        ]


def _search(conn, query: _Query, tree, field, offset, limit, user_id):
    """(rows of (record id, score), total) of one search; ``tree`` is the parsed text query
    (``text_query.parse``) or None."""
    text_join = ""
    score = "1.0"
    if tree is not None:
        hits = TextMatch(conn, query.params["ds"], field, query.param).hits(tree)
        text_join = f"JOIN ({hits}) h ON h.n = b.n "
        score = "h.score"
    source = "bf_record b " + text_join
    if query.needs_records:
        source += "JOIN records r ON r.id = b.rid "
    where = " AND ".join(query.where)
    params = query.params
    if tree is None and len(query.where) == 2 and len(query.metadata_sets) == 1:
        # one metadata filter alone: counted inside its own index (1M records: 6 ms)
        count = f"SELECT count(*) FROM (SELECT DISTINCT rid FROM ({query.metadata_sets[0]}))"
    else:
        count = f"SELECT count(*) FROM {source} WHERE {where}"
    total = conn.execute(count, params).fetchone()[0]

    def page(extra_where: str, order: list[str], offset: int, limit: int) -> list:
        return conn.execute(
            f"SELECT b.rid, {score} FROM {source} WHERE {where}{extra_where} "
            f"ORDER BY {', '.join(order)} LIMIT {int(limit)} OFFSET {int(offset)}",
            params,
        ).fetchall()

    if user_id is None:
        base = ["h.score DESC"] if tree is not None else []
        return page("", [*query.order, *base, "b.inserted_at", "b.rid"], offset, limit), total
    # An annotator's queue: the records in rk order, a random order drawn once per record and
    # shared by every annotator (issue 23: each annotator used to start at their own point of
    # the cycle, so "the first ten records" were different ten for each). Without other sort
    # keys it is read as one range of the (dataset, rk) index.
    return page("", [*query.order, "b.rk", "b.rid"], offset, limit), total


def _all_ids(conn, query: _Query, tree, field) -> list[str]:
    rows, _ = _search(conn, query, tree, field, 0, -1, None)
    return [rid for rid, _ in rows]


class SQLSearchEngine(SearchEngine):
    """Answer Argilla's search-engine calls from SQL; see the module docstring."""

    @classmethod
    async def new_instance(cls) -> SQLSearchEngine:
        return cls()

    async def close(self) -> None:
        return None

    async def ping(self) -> bool:
        return True

    async def info(self) -> dict:
        return {"engine": ENGINE_NAME, "backend": "sqlite", "index": "fts5-trigram"}

    # -- write hooks: keep the index in step with the tables -----------------------------------
    async def create_index(self, dataset: Dataset) -> None:
        return None

    async def delete_index(self, dataset: Dataset) -> None:
        await _run(sql_index.delete_dataset, dataset.id.hex)

    async def configure_metadata_property(
        self, dataset: Dataset, metadata_property: MetadataProperty
    ) -> None:
        return None  # values are indexed whatever their property; nothing to configure

    async def configure_index_vectors(self, vector_settings: VectorSettings) -> None:
        return None

    async def index_records(self, dataset: Dataset, records: Iterable[Record]) -> None:
        # the status given here is the record object's, read before the upsert committed: the
        # index takes the stored one (sql_index.write_records), which a concurrent answer may
        # have changed since
        items = [
            (
                record.id.hex,
                dict(record.fields or {}),
                dict(record.metadata_ or {}),
                record.inserted_at.strftime("%Y-%m-%d %H:%M:%S.%f"),
                _value(record.status),
            )
            for record in records
        ]
        await _run(sql_index.write_records, dataset.id.hex, items)

    async def partial_record_update(self, record: Record, **update) -> None:
        # read back what the records table holds (committed before this hook is called)
        if {"metadata", "metadata_", "fields"} & set(update):
            await _run(sql_index.reindex_from_table, [record.id.hex])
        elif "status" in update:
            await _run(sql_index.update_status, record.id.hex)

    async def delete_records(self, dataset: Dataset, records: Iterable[Record]) -> None:
        await _run(sql_index.delete_records, [record.id.hex for record in records])

    async def update_record_response(self, response: Response) -> None:
        return None  # read from Argilla's responses table (indexed by record and user)

    async def delete_record_response(self, response: Response) -> None:
        return None

    async def update_record_suggestion(self, suggestion: Suggestion) -> None:
        return None  # read from Argilla's suggestions table (indexed by record, question)

    async def delete_record_suggestion(self, suggestion: Suggestion) -> None:
        return None

    # -- progress and metrics ------------------------------------------------------------------
    async def get_dataset_progress(self, dataset: Dataset) -> dict:
        by_status = select(Record.status, func.count()).where(Record.dataset_id == dataset.id)
        return await _counted(dataset, by_status.group_by(Record.status))

    async def get_dataset_user_progress(self, dataset: Dataset, user: User) -> dict:
        by_status = (
            select(Response.status, func.count())
            .join(Record, Record.id == Response.record_id)
            .where(Record.dataset_id == dataset.id, Response.user_id == user.id)
        )
        return await _counted(dataset, by_status.group_by(Response.status))

    async def compute_metrics_for(self, metadata_property: MetadataProperty) -> MetadataMetrics:
        dataset_id = metadata_property.dataset_id.hex
        name = metadata_property.name
        if metadata_property.type == MetadataPropertyType.terms:
            rows = await _run(
                lambda conn: conn.execute(
                    "SELECT sval, count(*) FROM bf_meta WHERE dataset_id = ? AND name = ? "
                    "GROUP BY sval",
                    (dataset_id, name),
                ).fetchall()
            )
            ordered = sorted(rows, key=lambda item: (-item[1], item[0]))
            return TermsMetrics(
                total=sum(count for _, count in rows),
                values=[TermsMetrics.TermCount(term=term, count=count) for term, count in ordered],
            )
        low, high = await _run(
            lambda conn: conn.execute(
                "SELECT min(snum), max(snum) FROM bf_meta WHERE dataset_id = ? AND name = ? "
                "AND pos = 0",
                (dataset_id, name),
            ).fetchone()
        )
        if metadata_property.type == MetadataPropertyType.integer:
            cast = int
            cls = IntegerMetadataMetrics
        else:
            cast = float
            cls = FloatMetadataMetrics
        return cls(
            min=cast(low) if low is not None else None,
            max=cast(high) if high is not None else None,
        )

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
        tree, field = _text(query)
        sql = _Query(dataset.id.hex)
        sql.add_filter(filter)
        for order in sort or []:
            sql.add_sort(order)
        rows, total = await _run(_search, sql, tree, field, offset, limit, user_id)
        return SearchResponses(
            items=[
                SearchResponseItem(record_id=UUID(rid), score=float(score)) for rid, score in rows
            ],
            total=total,
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
        """Exact cosine similarity over every vector of the dataset, vectorised with numpy."""
        if bool(value) == bool(record):
            raise ValueError(
                "Must provide either vector value or record to compute the similarity search"
            )
        excluded = None
        if not value:
            excluded = record.id.hex
            value = record.vector_value_by_vector_settings(vector_settings)
        if not value:
            raise ValueError("Cannot find a vector value to apply with provided info")
        tree, field = _text(query)
        restrict = None
        if tree is not None or filter is not None:
            sql = _Query(dataset.id.hex)
            sql.add_filter(filter)
            restrict = _Query, sql, tree, field

        def load(conn):
            allowed = None
            if restrict is not None:
                allowed = set(_all_ids(conn, restrict[1], restrict[2], restrict[3]))
            rows = conn.execute(
                "SELECT record_id, value FROM vectors WHERE vector_settings_id = ?",
                (vector_settings.id.hex,),
            ).fetchall()
            ids, vectors = [], []
            for rid, raw in rows:
                if rid == excluded or (allowed is not None and rid not in allowed):
                    continue
                ids.append(rid)
                vectors.append(json.loads(raw) if isinstance(raw, str) else raw)
            return ids, vectors

        ids, vectors = await _run(load)
        if not ids:
            return SearchResponses(items=[], total=0)
        matrix = np.asarray(vectors, dtype=np.float64)
        target = np.asarray(value, dtype=np.float64)
        norms = np.linalg.norm(matrix, axis=1)
        norms[norms == 0] = 1.0
        cosine = matrix @ target / (norms * (np.linalg.norm(target) or 1.0))
        scores = (1 + cosine) / 2  # Elasticsearch's cosine similarity score range
        if order == SimilarityOrder.least_similar:
            scores = 1 - scores
        keep = np.ones(len(ids), dtype=bool) if threshold is None else scores >= threshold
        index = np.flatnonzero(keep)
        id_array = np.asarray(ids)
        ranked = index[np.lexsort((id_array[index], -scores[index]))][:max_results]
        return SearchResponses(
            items=[
                SearchResponseItem(record_id=UUID(ids[i]), score=float(scores[i])) for i in ranked
            ],
            total=len(ranked),
        )


async def _counted(dataset: Dataset, by_status) -> dict:
    """``{"total": n, status: count, …}`` from a (status, count) query; ``{}`` for a draft
    dataset, as Argilla's engines answer."""
    if dataset.is_draft:
        return {}
    async with AsyncSessionLocal() as db:
        rows = (await db.execute(by_status)).all()
    counts = {_value(status): count for status, count in rows}
    return {"total": sum(counts.values()), **counts}


def register(register_engine) -> None:
    """Register the engine under ``ENGINE_NAME`` through Argilla's extension point
    (``SearchEngine.register``, a row of ``patches.PATCHES``), so that
    ``ARGILLA_SEARCH_ENGINE=biasforge-sql`` selects it."""
    register_engine(engine_name=ENGINE_NAME)(SQLSearchEngine)


__all__ = ["ENGINE_NAME", "RecordSortField", "SQLSearchEngine", "register"]
