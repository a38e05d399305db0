"""Annotators under load: N annotators log in at once, then each answers R records one by one.

Each annotator is a separate process on this machine (loopback only). It signs in through
``POST /api/v1/token`` (the route of the web UI's sign-in page), reads its queue through
``/me/.../records/search`` in pages of 50 as the UI does, and submits one response at a time
with ``POST /records/{id}/responses``, over one kept-alive HTTP connection as a browser
does (a new TCP connection per request is not what the web UI costs the server). Printed
per configuration: the login times, the throughput (submissions/s over the whole answering
phase), p50/p95/p99 latency per submission, failures, and the check that every (record,
annotator) response is stored exactly once (read back by the owner through the records API).

Baseline, measured in the same run: the embedded server with the settings before the load
tuning (``EmbeddedServer(load_tuning=False)``: one web process, rollback journal, bcrypt cost 12
checked in the event loop, webhook events built for every answer). Then the tuned server
(the default). The ratios tuned/baseline are printed at the end, with the machine's load
average, since this machine is shared.

    python benchmarks/bench_annotators.py [--annotators 20] [--records 200] [--run RUN_DIR]
        [--skip-baseline] [--netns]

Targets (issue 27): 20 annotators, 0 lost or duplicated responses, p95 <= 0.5 s per
submission, >= 60 submissions/s, 20 logins within 2 s.

``--netns`` (root; issue 33): the annotators sit on another host. Two network namespaces
joined by a veth pair (tests/netns.py) stand for the server machine (192.0.2.1) and the
annotators' (192.0.2.2); the tuned server listens on 192.0.2.1 over HTTPS with its generated
certificate, which every client verifies. The baseline, measured in the same run, is the same
server on plain HTTP over the server machine's loopback; the ratios say what TLS and the
network hop cost.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from biasforge.annotation.admin.serve import WEB_WORKERS  # noqa: E402

DATASET = "bench-annotators"
PAGE = 50


@dataclass
class Outcome:
    """What one configuration measured."""

    label: str
    logins: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    acked: list[tuple[str, str]] = field(default_factory=list)  # (record id, username): 201
    wall: float = 0.0
    stored: int = 0
    duplicates: int = 0
    missing: int = 0  # expected (record, annotator) pairs not stored
    lost: int = 0  # acknowledged with 201 but not stored
    load: tuple[float, float] = (0.0, 0.0)

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.wall if self.wall else 0.0

    def quantile(self, q: float) -> float:
        if len(self.latencies) < 2:
            return float("nan")
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[int(q) - 1]


def answer_values(questions: list[dict]) -> dict:
    """A valid answer to every question of the dataset (the first option; text 'ok')."""
    values = {}
    for question in questions:
        settings = question["settings"]
        kind = settings["type"]
        if kind in ("label_selection", "multi_label_selection", "rating"):
            first = settings["options"][0]["value"]
            values[question["name"]] = {"value": [first] if kind.startswith("multi") else first}
        elif kind == "text":
            values[question["name"]] = {"value": "ok"}
        elif kind == "ranking":
            ranks = [
                {"value": o["value"], "rank": i + 1} for i, o in enumerate(settings["options"])
            ]
            values[question["name"]] = {"value": ranks}
    return values


@dataclass(frozen=True)
class Place:
    """Where the annotators connect from: a namespace to enter (None: where the benchmark
    runs) and the server certificate they verify (None: plain HTTP)."""

    namespace: str | None = None
    cert: str | None = None


def annotator(
    url: str, username: str, password: str, records: int, start, results, place: Place
) -> None:
    """One annotator's session (runs in its own process): log in, then answer ``records``
    records one at a time. Puts a dict on ``results``: login seconds, latencies of the
    acknowledged submissions, failures (HTTP errors and dropped connections, counted, never
    retried), the ids acknowledged with 201, and [first submission start, last end]."""
    import ssl

    import httpx

    done = {"username": username, "login": float("nan"), "latencies": [], "failures": []}
    done["acked"] = []
    done["span"] = [float("inf"), 0.0]
    try:
        if place.namespace:
            from tests.netns import enter

            enter(place.namespace)  # this process is single-threaded: all of it moves
        verify = ssl.create_default_context(cafile=place.cert) if place.cert else True
        with httpx.Client(base_url=url, timeout=120, verify=verify) as api:
            start.wait()
            _session(api, username, password, records, done)
    except Exception as exc:  # a dropped connection outside a submission: end this annotator
        done["failures"].append(f"{type(exc).__name__}: {str(exc)[:80]}")
    results.put(done)


def _session(api, username: str, password: str, records: int, done: dict) -> None:
    import httpx

    began = time.perf_counter()
    token = api.post("/api/v1/token", data={"username": username, "password": password})
    done["login"] = time.perf_counter() - began
    if token.status_code != 201:
        done["failures"].append(f"login {token.status_code}")
        return
    api.headers["Authorization"] = f"Bearer {token.json()['access_token']}"
    (dataset,) = api.get("/api/v1/me/datasets").json()["items"]
    values = answer_values(api.get(f"/api/v1/datasets/{dataset['id']}/questions").json()["items"])
    body = {"filters": {"and": [{"type": "terms", "values": ["pending"],
            "scope": {"entity": "response", "property": "status"}}]}}  # fmt: skip
    tried = 0
    for _ in range(records // PAGE + 2):  # bounded: a queue that never empties stops here
        left = records - tried
        if left <= 0:
            return
        page = api.post(
            f"/api/v1/me/datasets/{dataset['id']}/records/search",
            params={"limit": min(PAGE, left), "offset": 0},
            json=body,
        )
        if page.status_code != 200:
            done["failures"].append(f"queue {page.status_code}")
        items = page.json()["items"] if page.status_code == 200 else []
        if not items:
            return
        for item in items:
            tried += 1
            record_id = item["record"]["id"]
            began = time.perf_counter()  # CLOCK_MONOTONIC: comparable across processes
            done["span"][0] = min(done["span"][0], began)
            try:
                sent = api.post(
                    f"/api/v1/records/{record_id}/responses",
                    json={"values": values, "status": "submitted"},
                )
            except httpx.TransportError as exc:
                done["failures"].append(f"submit: {type(exc).__name__} {str(exc)[:60]}")
                continue
            finally:
                done["span"][1] = time.perf_counter()
            if sent.status_code == 201:
                done["latencies"].append(time.perf_counter() - began)
                done["acked"].append(record_id)
            else:
                done["failures"].append(f"submit {sent.status_code}: {sent.text[:120]}")


def run_annotators(
    url: str, accounts: list[tuple[str, str]], records: int, out: Outcome, place: Place = Place()
) -> None:
    """All annotators at once (one process each); fills ``out``'s timings."""
    context = multiprocessing.get_context("fork")
    start, results = context.Barrier(len(accounts) + 1), context.Queue()
    procs = [
        context.Process(
            target=annotator, args=(url, name, password, records, start, results, place)
        )
        for name, password in accounts
    ]
    for proc in procs:
        proc.start()
    load_before = os.getloadavg()[0]
    start.wait()
    first, last = float("inf"), 0.0
    for _ in accounts:
        done = results.get(timeout=3600)
        out.logins.append(done["login"])
        out.latencies += done["latencies"]
        out.failures += done["failures"]
        out.acked += [(record_id, done["username"]) for record_id in done["acked"]]
        first, last = min(first, done["span"][0]), max(last, done["span"][1])
    out.wall = max(0.0, last - first)
    for proc in procs:
        proc.join(60)
    out.load = (load_before, os.getloadavg()[0])


def verify(connection, expected_users: set[str], records: int, out: Outcome) -> None:
    """Count stored responses per (record, user) through the owner's records API."""
    from biasforge.annotation.client.api import check, http, iter_records, users

    with http(connection) as api:
        names = {u["id"]: u["username"] for u in users(api)}
        datasets = check(api.get("/api/v1/me/datasets"))["items"]
        (dataset,) = [d for d in datasets if d["name"] == DATASET]
        pairs = Counter()
        for record in iter_records(api, dataset["id"], include="responses"):
            for response in record.get("responses") or []:
                pairs[(record["id"], names.get(response["user_id"], "?"))] += 1
    out.stored = sum(pairs.values())
    out.duplicates = sum(n - 1 for n in pairs.values() if n > 1)
    answered = Counter(user for _, user in pairs)
    out.missing = sum(max(0, records - answered.get(user, 0)) for user in expected_users)
    out.lost = sum(1 for pair in out.acked if pair not in pairs)


def measure(
    label: str,
    run: Path,
    work: Path,
    n: int,
    records: int,
    tuned: bool,
    web_workers: int,
    remote: str | None = None,
) -> Outcome:
    """Start a fresh embedded server, push ``records`` records, add ``n`` annotators, run them,
    verify the stored responses, stop the server. ``remote``: the annotators' namespace; the
    server then listens on the veth address over HTTPS."""
    import pandas as pd

    from biasforge.annotation.admin.listen import Listening
    from biasforge.annotation.admin.serve import EmbeddedServer, free_port
    from biasforge.annotation.admin.tls import generated_certificate
    from biasforge.annotation.admin.users import add_users
    from biasforge.annotation.client.connection import find_server
    from biasforge.annotation.review.push import push_candidates

    candidates = pd.read_parquet(run / "candidates.parquet").head(records)
    data_dir = work / f"data-{label.split()[0]}"
    port = free_port()
    listening, place = Listening("127.0.0.1", port), Place()
    if remote:
        from tests.netns import SERVER_ADDRESS

        cert = generated_certificate(data_dir, SERVER_ADDRESS)
        listening = Listening(SERVER_ADDRESS, port, cert)
        place = Place(remote, str(cert.cert))
    server = EmbeddedServer(
        data_dir=data_dir,
        port=port,
        worker=False,
        quiet=True,
        load_tuning=tuned,
        web_workers=web_workers,
        listening=listening,
    )
    out = Outcome(label)
    try:
        server.start()
        connection = find_server(data_dir)
        # every record needs every annotator: no record leaves anyone's queue early
        push_candidates(candidates, DATASET, connection, min_submitted=n, progress=False)
        made = add_users(connection, [(f"bench-ann-{i:02d}", "annotator") for i in range(n)])
        accounts = [(user.username, user.password) for user in made]
        run_annotators(listening.public_url, accounts, len(candidates), out, place)
        verify(connection, {name for name, _ in accounts}, len(candidates), out)
    finally:
        server.stop()
    return out


def report(out: Outcome, n: int, records: int) -> None:
    logins = sorted(x for x in out.logins if x == x) or [float("nan")]  # NaN: no answer
    print(f"\n== {out.label}  (load average {out.load[0]:.1f} -> {out.load[1]:.1f})")
    print(
        f"  logins: {len(logins)} at once, median {statistics.median(logins):.2f} s, "
        f"slowest {logins[-1]:.2f} s"
    )
    print(
        f"  submissions: {len(out.latencies)} in {out.wall:.1f} s = {out.throughput:.1f}/s; "
        f"p50 {out.quantile(50):.3f} s  p95 {out.quantile(95):.3f} s  p99 {out.quantile(99):.3f} s"
    )
    print(
        f"  stored responses: {out.stored} of {n * records} expected; duplicates "
        f"{out.duplicates}; acknowledged but lost {out.lost}; missing {out.missing}; "
        f"failed requests {len(out.failures)}"
    )
    for failure in Counter(out.failures).most_common(3):
        print(f"    {failure[1]} x {failure[0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--records", type=int, default=200, help="records each annotator answers")
    parser.add_argument("--run", type=Path, help="BEC-Pro run dir (made with curate if absent)")
    parser.add_argument(
        "--skip-baseline", action="store_true", help="measure the tuned server only"
    )
    parser.add_argument(
        "--web-workers", type=int, default=WEB_WORKERS, help="web processes of the tuned server"
    )
    parser.add_argument(
        "--netns",
        action="store_true",
        help="annotators on another host (network namespaces, HTTPS) vs loopback HTTP (root)",
    )
    args = parser.parse_args()
    if args.netns:
        from tests.netns import host_pair

        with host_pair("bfb") as pair:
            from tests.netns import enter

            enter(pair.server)  # this process and the servers it starts: the server machine
            main_measure(args, remote=pair.client)
        return
    main_measure(args)


def main_measure(args, remote: str | None = None) -> None:
    """Measure the configurations and print them with their ratios."""
    warnings.simplefilter("ignore")
    work = Path(tempfile.mkdtemp(prefix="bench-annotators-"))
    os.environ["BIASFORGE_HOME"] = str(work / "home")
    run = args.run or work / "becpro-en"
    if args.run is None:
        argv = [sys.executable, "-m", "biasforge.cli", "curate", "becpro", "--lang", "en"]
        subprocess.run([*argv, "--out", str(run)], check=True, capture_output=True)
    where = "on another host (namespace), HTTPS" if remote else "on this machine"
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()}; clients {where}")
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    configs = [(f"tuned ({args.web_workers} web processes)", True, None)]
    if remote:
        configs = [
            ("loopback HTTP (tuned, clients on the server machine)", True, None),
            ("HTTPS from another host (tuned)", True, remote),
        ]
    elif not args.skip_baseline:
        configs.insert(0, ("baseline (before load tuning)", False, None))
    results = []
    for label, tuned, place in configs:
        size = (args.annotators, args.records)
        results.append(measure(label, run, work, *size, tuned, args.web_workers, place))
        report(results[-1], args.annotators, args.records)
    if len(results) == 2:
        base, tuned = results
        print(
            f"\n{tuned.label.split(' (')[0]} / {base.label.split(' (')[0]}: "
            f"throughput x{tuned.throughput / base.throughput:.2f}, "
            f"p95 x{tuned.quantile(95) / base.quantile(95):.2f}, "
            f"slowest login x{max(tuned.logins) / max(base.logins):.2f} (a ratio < 1 is faster)"
        )
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    for result in results:
        clean = result.duplicates == result.lost == result.missing == 0 and not result.failures
        verdict = "every response stored exactly once" if clean else "FAILED, LOST OR DUPLICATED"
        print(f"{result.label}: {verdict}")
    tuned = results[-1]
    sys.exit(
        0 if tuned.duplicates == tuned.lost == tuned.missing == 0 == len(tuned.failures) else 1
    )


if __name__ == "__main__":
    main()
