"""Search, filter and paging speed of the embedded server's SQL engine at 100k-1M records.

One run: a fresh embedded server (temporary data dir), a dataset of N synthetic records
(English, Chinese, French, Spanish and Basque sentences; metadata topic/lang/n; a label
question), some answered by the owner, then:

* push rate: records/s through the bulk-create endpoint, 500 per call (what ``annotate push``
  does), with the index maintained by the engine's hooks;
* through the HTTP API (what the UI and the SDK see), the indexed engine: text search (Latin,
  accented, two-character Chinese), metadata filter, the annotator queue's status filter
  (``/me/...``, per-user order), and all three combined; first page and page 100 (10 a page);
* the same engine calls timed in-process on the same database for the indexed engine and for
  the first engine (which loads every row and filters in Python; read from git at
  ``764b94d:benchmarks/legacy_sql_engine.py``, no longer in the tree),
  with the results compared (same totals; same ids where the order is not per-user);
* the server's resident memory (peak and current).

    python benchmarks/bench_search.py [--records 100000] [--bulk-sql] [--no-legacy]
        [--before REV]

``--before REV`` (e.g. ``main``) also times the engine of git revision REV in-process on the same
database and prints each query's time now / time then (the ratio of a change, in one run).

``--bulk-sql`` (for 1,000,000): pushes the first 20,000 records through the API (the push rate),
stops the server, writes the rest straight into its SQLite ``records`` table and starts it
again: the start-up migration indexes them (time reported) — the path of a data folder made
before the index existed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOPICS = [f"t{i:02d}" for i in range(20)]
WORDS = {
    "en": ["the engineer", "a nurse", "the mother", "my father", "the pilot", "a teacher"],
    "zh": ["母亲", "父亲", "足球", "医生", "护士", "工程师", "老师"],
    "fr": ["la mère", "le médecin", "une infirmière", "l'ingénieur", "élève"],
    "es": ["la madre", "el médico", "una enfermera", "el piloto", "niño"],
    "eu": ["ama", "aita", "medikua", "erizaina", "irakaslea"],
}
TAILS = {
    "en": ["went home early", "fixed the bridge", "was late again", "likes football"],
    "zh": ["喜欢踢足球", "今天很忙", "回家了", "在医院工作"],
    "fr": ["est rentrée tôt", "a réparé le pont", "était en retard", "aime le football"],
    "es": ["llegó tarde", "arregló el puente", "trabaja en el hospital", "juega al fútbol"],
    "eu": ["berandu iritsi da", "etxera joan da", "ospitalean dago", "futbolean jokatzen du"],
}

QUERIES = {
    "text 'engineer'": {"q": "engineer"},
    "text 'médico' (accent)": {"q": "médico"},
    "text '母亲' (2 CJK chars)": {"q": "母亲"},
    "metadata topic = t07": {"topic": "t07"},
    "queue: status pending (/me)": {"status": "pending", "me": True},
    "UI queue: + record status pending (/me)": {
        "status": "pending",
        "record_status": "pending",
        "me": True,
    },
    "text + metadata + pending (/me)": {
        "q": "football",
        "topic": "t03",
        "status": "pending",
        "me": True,
    },
}


def synthetic(i: int, rng: random.Random) -> dict:
    lang = rng.choice(list(WORDS))
    sep = "" if lang == "zh" else " "
    text = sep.join([rng.choice(WORDS[lang]), rng.choice(TAILS[lang])]) + f" #{i}"
    return {
        "external_id": f"syn-{i}",
        "fields": {"text": text},
        "metadata": {"topic": rng.choice(TOPICS), "lang": lang, "n": rng.randrange(1000)},
    }


def rss_mib(pid: int) -> tuple[float, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    values = {
        line.split(":")[0]: int(line.split()[1]) / 1024
        for line in status.splitlines()
        if line.startswith(("VmRSS", "VmHWM"))
    }
    return values.get("VmHWM", 0.0), values.get("VmRSS", 0.0)


def http_body(spec: dict) -> dict:
    filters = []
    if "topic" in spec:
        filters.append(
            {
                "type": "terms",
                "scope": {"entity": "metadata", "metadata_property": "topic"},
                "values": [spec["topic"]],
            }
        )
    if "status" in spec:
        filters.append(
            {
                "type": "terms",
                "scope": {"entity": "response", "property": "status"},
                "values": [spec["status"]],
            }
        )
    if "record_status" in spec:
        filters.append(
            {
                "type": "terms",
                "scope": {"entity": "record", "property": "status"},
                "values": [spec["record_status"]],
            }
        )
    body: dict = {}
    if "q" in spec:
        body["query"] = {"text": {"q": spec["q"]}}
    if filters:
        body["filters"] = {"and": filters}
    return body


def bulk_sql(db_path: Path, dataset_id: str, start: int, stop: int, seed: int) -> float:
    rng = random.Random(seed)
    conn = sqlite3.connect(db_path)
    began = time.perf_counter()
    now = datetime.utcnow()
    batch = []
    for i in range(start, stop):
        item = synthetic(i, rng)
        stamp = (now + timedelta(microseconds=i)).strftime("%Y-%m-%d %H:%M:%S.%f")
        batch.append(
            (
                uuid.uuid4().hex,
                json.dumps(item["fields"]),
                item["external_id"],
                dataset_id,
                stamp,
                stamp,
                json.dumps(item["metadata"]),
                "pending",
            )
        )
        if len(batch) == 50_000 or i == stop - 1:
            conn.executemany(
                "INSERT INTO records (id, fields, external_id, dataset_id, inserted_at, "
                "updated_at, metadata, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                batch,
            )
            conn.commit()
            batch = []
    conn.close()
    return time.perf_counter() - began


def print_before(engines: dict, revision: str) -> None:
    """Each query's in-process time now and at ``revision``, and their ratio."""
    print(f"\nthis engine vs the engine at {revision}, same process, same database, seconds:")
    print(f"{'query':36s} {'now p1':>8s} {'then p1':>8s} {'now p100':>9s} {'then p100':>9s}"
          f" {'ratio':>6s} {'totals now/then':>16s}")  # fmt: skip
    ratios = []
    for label in QUERIES:
        now, then = engines["new"][label], engines["before"][label]
        spent = sum(now[p][0] for p in now), sum(then[p][0] for p in then)
        ratios.append(spent[0] / spent[1])
        totals = f"{now['page 1'][1]}/{then['page 1'][1]}"
        print(f"{label:36s} {now['page 1'][0]:8.3f} {then['page 1'][0]:8.3f} "
              f"{now['page 100'][0]:9.3f} {then['page 100'][0]:9.3f} {ratios[-1]:6.2f} "
              f"{totals:>16s}", flush=True)  # fmt: skip
    print(f"geometric mean of the ratios (now / then): {statistics.geometric_mean(ratios):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--bulk-sql", action="store_true", help="see the module docstring")
    parser.add_argument("--no-legacy", action="store_true", help="skip the first engine")
    parser.add_argument("--answers", type=int, default=300, help="records the owner answers")
    parser.add_argument("--repeat", type=int, default=3, help="HTTP timings: median of N")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data folder")
    parser.add_argument("--before", metavar="REV", help="also time the engine of git REV")
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    import argilla as rg
    import httpx

    from biasforge.annotation.admin.serve import EmbeddedServer, free_port
    from biasforge.annotation.admin.server_env import ensure_server_venv
    from biasforge.annotation.client.connection import client, find_server
    from biasforge.annotation.review.push import ensure_workspace

    work = Path(tempfile.mkdtemp(prefix="bench-search-"))
    os.environ["BIASFORGE_HOME"] = str(work / "home")
    for key in ("ARGILLA_API_URL", "ARGILLA_API_KEY"):
        os.environ.pop(key, None)
    data_dir = work / "data"
    port = free_port()

    def start_server() -> EmbeddedServer:
        server = EmbeddedServer(data_dir=data_dir, port=port, worker=False, quiet=True)
        server.start()
        return server

    server = start_server()
    try:
        connection = find_server(data_dir)
        rg_client = client(connection)
        ensure_workspace(rg_client, connection.workspace)
        settings = rg.Settings(
            fields=[rg.TextField(name="text")],
            questions=[rg.LabelQuestion(name="valid", labels=["yes", "no"])],
            metadata=[
                rg.TermsMetadataProperty(name="topic"),
                rg.TermsMetadataProperty(name="lang"),
                rg.IntegerMetadataProperty(name="n"),
            ],
            distribution=rg.TaskDistribution(min_submitted=1),
        )
        dataset = rg.Dataset(
            name="bench", workspace=connection.workspace, settings=settings, client=rg_client
        ).create()
        api = httpx.Client(
            base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=600
        )
        pushed = min(args.records, 20_000) if args.bulk_sql else args.records
        rng = random.Random(18)
        first_ids: list[str] = []
        began = time.perf_counter()
        for start in range(0, pushed, 500):
            items = [synthetic(i, rng) for i in range(start, min(start + 500, pushed))]
            result = api.post(f"/api/v1/datasets/{dataset.id}/records/bulk", json={"items": items})
            result.raise_for_status()
            if len(first_ids) < args.answers:
                first_ids += [item["id"] for item in result.json()["items"]]
        push_seconds = time.perf_counter() - began
        print(
            f"push: {pushed} records in {push_seconds:.1f} s = {pushed / push_seconds:.0f} "
            "records/s (bulk endpoint, 500 a call, index maintained)",
            flush=True,
        )
        for record_id in first_ids[: args.answers]:
            api.post(
                f"/api/v1/records/{record_id}/responses",
                json={"values": {"valid": {"value": "yes"}}, "status": "submitted"},
            ).raise_for_status()
        if args.bulk_sql and args.records > pushed:
            server.stop()
            seconds = bulk_sql(
                data_dir / "argilla.db", uuid.UUID(str(dataset.id)).hex, pushed, args.records, 19
            )
            print(f"bulk SQL load of {args.records - pushed} records: {seconds:.0f} s", flush=True)
            began = time.perf_counter()
            server = start_server()
            print(
                f"restart with start-up indexing of the new records: "
                f"{time.perf_counter() - began:.0f} s",
                flush=True,
            )
        server_pid = dict(server.children)["server"].pid

        me = api.get("/api/v1/me").json()
        print(f"\nHTTP API, indexed engine, {args.records} records (median of {args.repeat}):")
        print(f"{'query':36s} {'page 1':>9s} {'page 100':>9s} {'total':>8s}")
        http: dict = {}
        for label, spec in QUERIES.items():
            route = "me/datasets" if spec.get("me") else "datasets"
            row = []
            for offset in (0, 990):
                times, total = [], None
                for _ in range(args.repeat + 1):
                    began = time.perf_counter()
                    result = api.post(
                        f"/api/v1/{route}/{dataset.id}/records/search",
                        json=http_body(spec),
                        params={"offset": offset, "limit": 10},
                    )
                    times.append(time.perf_counter() - began)
                    result.raise_for_status()
                    total = result.json()["total"]
                row.append(statistics.median(times[1:]))
            http[label] = row
            print(f"{label:36s} {row[0]:8.3f}s {row[1]:8.3f}s {total:8d}", flush=True)
        peak, now = rss_mib(server_pid)
        print(f"server memory: {now:.0f} MiB resident, peak {peak:.0f} MiB")

        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("ARGILLA_", "PYTHON"))},
            "ARGILLA_DATABASE_URL": f"sqlite+aiosqlite:///{data_dir / 'argilla.db'}"
            "?check_same_thread=False",
            "ARGILLA_HOME_PATH": str(data_dir),
            "TMPDIR": str(work / "tmp"),
        }
        (work / "tmp").mkdir(exist_ok=True)
        argv = [
            str(ensure_server_venv(quiet=True)),
            str(ROOT / "benchmarks" / "_search_engine_timing.py"),
            "bench",
            me["username"],
            json.dumps(QUERIES),
        ]
        if args.no_legacy:
            argv.append("--no-legacy")
        if args.before:
            argv += ["--before", args.before]
        engines = json.loads(
            subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout
        )
        print(f"\nengine calls in-process, same database ({args.records} records), seconds:")
        print(f"{'query':36s} {'new p1':>8s} {'new p100':>9s} {'old p1':>8s} {'old p100':>9s}")
        for label in QUERIES:
            new = engines["new"][label]
            old = engines.get("old", {}).get(label)
            cells = [f"{new['page 1'][0]:8.3f}", f"{new['page 100'][0]:9.3f}"]
            same = ""
            if old:
                cells += [f"{old['page 1'][0]:8.3f}", f"{old['page 100'][0]:9.3f}"]
                totals = all(new[p][1] == old[p][1] for p in new)
                ids = all(new[p][2] == old[p][2] for p in new)
                per_user = QUERIES[label].get("me")
                same = "same total" + (
                    "" if per_user else (", same ids" if ids else ", IDS DIFFER")
                )
                if not totals:
                    same = f"TOTALS DIFFER {new['page 1'][1]} vs {old['page 1'][1]}"
            print(f"{label:36s} {' '.join(cells)}  {same}", flush=True)
        if args.before:
            print_before(engines, args.before)
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
