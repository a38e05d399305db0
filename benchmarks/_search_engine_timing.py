"""Helper of bench_search.py, run by the argilla-server virtualenv's Python: time the indexed
engine (annotation/server/sql_engine.py) and the first engine on the same database, in the same
process, with the same engine calls the API makes.

The first engine (loads every row and filters in Python) is kept out of the tree: it is read
from git, ``git show 764b94d:benchmarks/legacy_sql_engine.py`` (:data:`LEGACY`), when timed.

    python _search_engine_timing.py DATASET_NAME USERNAME QUERIES_JSON [--no-legacy]
        [--before REV]

``--before REV`` also times the engine as it was at git revision REV (``sql_engine.py`` of that
revision, on today's index module and database): the "before" of a change, in the same run.

Environment: ARGILLA_DATABASE_URL (the server's SQLite database), TMPDIR (a folder to clean).
Prints one JSON object: {engine: {query label: {"page": [seconds, total, ids]}}}.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import statistics
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
#: timings per engine call (the median is reported)
REPEAT = 5


def class_from_git(spec: str, class_name: str) -> type:
    """``class_name`` of the Python file ``REV:PATH`` of this repository's history."""
    source = subprocess.run(
        ["git", "-C", str(HERE), "show", spec], check=True, capture_output=True, text=True
    ).stdout
    name = re.sub(r"\W", "_", Path(spec.split(":", 1)[1]).stem + "_" + spec.split(":", 1)[0])
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return getattr(module, class_name)


def legacy_engine() -> type:
    """The first engine's class, loaded from the commit that last held it (see the docstring)."""
    return class_from_git(LEGACY, "LegacySQLSearchEngine")


def engine_at(revision: str) -> type:
    """``SQLSearchEngine`` as ``annotation/server/sql_engine.py`` was at ``revision``."""
    return class_from_git(f"{revision}:annotation/server/sql_engine.py", "SQLSearchEngine")


async def main(
    dataset_name: str, username: str, queries: dict, legacy: bool, before: str | None
) -> dict:
    async with AsyncSessionLocal() as db:
        dataset = (
            await db.execute(select(Dataset).where(Dataset.name == dataset_name))
        ).scalar_one()
        user = (await db.execute(select(User).where(User.username == username))).scalar_one()
    engines = {"new": sql_engine.SQLSearchEngine}
    if legacy:
        engines["old"] = legacy_engine()
    if before:
        engines["before"] = engine_at(before)
    instances = {name: await cls.new_instance() for name, cls in engines.items()}
    out: dict = {name: {} for name in engines}
    # each call REPEAT times, the engines taking turns, the median kept: on a shared machine
    # a single timing varies by tens of percent
    for label, spec in queries.items():
        for page, offset in (("page 1", 0), ("page 100", 990)):
            times: dict = {name: [] for name in engines}
            for _ in range(REPEAT):
                for name, engine in instances.items():
                    params = build(spec, user)
                    start = time.perf_counter()
                    found = await engine.search(dataset, offset=offset, limit=10, **params)
                    times[name].append(time.perf_counter() - start)
                    out[name].setdefault(label, {})[page] = [
                        0.0,
                        found.total,
                        [str(item.record_id) for item in found.items],
                    ]
            for name in engines:
                out[name][label][page][0] = statistics.median(times[name])
    return out


if __name__ == "__main__":
    dataset_name, username, queries = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    before = sys.argv[sys.argv.index("--before") + 1] if "--before" in sys.argv else None
    result = asyncio.run(
        main(dataset_name, username, queries, "--no-legacy" not in sys.argv, before)
    )
    print(json.dumps(result))
