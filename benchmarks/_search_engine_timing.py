"""Helper of bench_search.py, run by the argilla-server virtualenv's Python: time the indexed
engine (annotation/server/sql_engine.py) and the first engine on the same database, in the same
process, with the same engine calls the API makes.

The first engine (loads every row and filters in Python) is kept out of the tree: it is read
from git, ``git show 764b94d:benchmarks/legacy_sql_engine.py`` (:data:`LEGACY`), when timed.

    python _search_engine_timing.py DATASET_NAME USERNAME QUERIES_JSON [--no-legacy]

Environment: ARGILLA_DATABASE_URL (the server's SQLite database), TMPDIR (a folder to clean).
Prints one JSON object: {engine: {query label: {"page": [seconds, total, ids]}}}.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "annotation" / "server"))

import sql_engine  # noqa: E402
from argilla_server.database import AsyncSessionLocal  # noqa: E402
from argilla_server.models import Dataset, User  # noqa: E402
from argilla_server.search_engine.base import (  # noqa: E402
    AndFilter,
    MetadataFilterScope,
    RecordFilterScope,
    ResponseFilterScope,
    TermsFilter,
    TextQuery,
)
from sqlalchemy import select  # noqa: E402


def build(spec: dict, user) -> dict:
    filters = []
    if "topic" in spec:
        filters.append(
            TermsFilter(
                scope=MetadataFilterScope(metadata_property="topic"), values=[spec["topic"]]
            )
        )
    if "status" in spec:
        filters.append(
            TermsFilter(
                scope=ResponseFilterScope(property="status", user=user), values=[spec["status"]]
            )
        )
    if "record_status" in spec:
        filters.append(
            TermsFilter(scope=RecordFilterScope(property="status"), values=[spec["record_status"]])
        )
    params: dict = {}
    if "q" in spec:
        params["query"] = TextQuery(q=spec["q"])
    if filters:
        params["filter"] = AndFilter(filters=filters)
    if spec.get("me"):
        params["user_id"] = user.id
    return params


LEGACY = "764b94d:benchmarks/legacy_sql_engine.py"


def legacy_engine() -> type:
    """The first engine's class, loaded from the commit that last held it (see the docstring)."""
    source = subprocess.run(
        ["git", "-C", str(HERE), "show", LEGACY], check=True, capture_output=True, text=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "legacy_sql_engine.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("legacy_sql_engine", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LegacySQLSearchEngine


async def main(dataset_name: str, username: str, queries: dict, legacy: bool) -> dict:
    async with AsyncSessionLocal() as db:
        dataset = (
            await db.execute(select(Dataset).where(Dataset.name == dataset_name))
        ).scalar_one()
        user = (await db.execute(select(User).where(User.username == username))).scalar_one()
    engines = {"new": sql_engine.SQLSearchEngine}
    if legacy:
        engines["old"] = legacy_engine()
    out: dict = {}
    for name, cls in engines.items():
        engine = await cls.new_instance()
        results = out.setdefault(name, {})
        for label, spec in queries.items():
            for page, offset in (("page 1", 0), ("page 100", 990)):
                params = build(spec, user)
                start = time.perf_counter()
                found = await engine.search(dataset, offset=offset, limit=10, **params)
                seconds = time.perf_counter() - start
                results.setdefault(label, {})[page] = [
                    seconds,
                    found.total,
                    [str(item.record_id) for item in found.items],
                ]
    return out


if __name__ == "__main__":
    dataset_name, username, queries = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    result = asyncio.run(main(dataset_name, username, queries, "--no-legacy" not in sys.argv))
    print(json.dumps(result))
