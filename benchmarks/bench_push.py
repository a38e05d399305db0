"""Push speed into the embedded Argilla server: biasforge's push vs stock SDK logging.

Baseline (measured in the same run): argilla-server 2.8 without biasforge's speed-ups, records
logged with the SDK's ``dataset.records.log`` (what a user of stock Argilla does). Candidate:
the embedded server with the speed-ups and ``annotate push`` (bulk create of missing ids).
Also printed: SDK logging into the sped-up server, to separate server and client gains.

    python benchmarks/bench_push.py [--n 1000] [--run RUN_DIR]

Each configuration gets a fresh server in a temporary data dir (BIASFORGE_HOME is set to a
temporary folder); the server virtualenv is the cached one.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="records per configuration")
    parser.add_argument(
        "--run", type=Path, help="BEC-Pro run dir (built with curate becpro if absent)"
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    import pandas as pd

    from biasforge.annotation.admin.serve import EmbeddedServer, free_port
    from biasforge.annotation.client.connection import client, find_server
    from biasforge.annotation.review.push import ensure_dataset, push_candidates
    from biasforge.families import family_of
    from biasforge.families.base import DatasetKey

    work = Path(tempfile.mkdtemp(prefix="bench-push-"))
    os.environ["BIASFORGE_HOME"] = str(work / "home")
    run = args.run
    if run is None:
        run = work / "becpro-en"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "biasforge.cli",
                "curate",
                "becpro",
                "--lang",
                "en",
                "--out",
                str(run),
            ],
            check=True,
            capture_output=True,
        )
    candidates = pd.read_parquet(run / "candidates.parquet").head(args.n)
    family = family_of(candidates["family"].unique(), "candidates")
    family = family.with_key(DatasetKey(os.urandom(16)))  # as a push binds it (any family)

    def sdk_log(connection, name: str) -> float:
        import argilla as rg

        dataset = ensure_dataset(connection, name, family, 3)
        rows = candidates.to_dict(orient="records")
        records = []
        for row in rows:
            record = family.review.record(row)
            records.append(
                rg.Record(
                    id=str(row["id"]),
                    fields=record["fields"],
                    metadata=record["metadata"],
                    suggestions=[
                        rg.Suggestion(question_name=q, value=v)
                        for q, v in record["suggestions"].items()
                    ],
                )
            )
        dataset = client(connection).datasets(name=name, workspace=connection.workspace)
        start = time.perf_counter()
        dataset.records.log(records)
        return len(records) / (time.perf_counter() - start)

    def biasforge_push(connection, name: str) -> float:
        ensure_dataset(connection, name, family, 3)  # creation is not part of the timing
        start = time.perf_counter()
        result = push_candidates(candidates, name, connection, progress=False)
        assert result.created == len(candidates)
        return result.created / (time.perf_counter() - start)

    results = {}
    for label, stock, fn in (
        ("stock server + SDK records.log (baseline)", True, sdk_log),
        ("embedded server + SDK records.log", False, sdk_log),
        ("embedded server + annotate push", False, biasforge_push),
    ):
        data_dir = work / f"data-{len(results)}"
        server = EmbeddedServer(
            data_dir=data_dir, port=free_port(), worker=False, quiet=True, stock=stock
        )
        try:
            server.start()
            results[label] = fn(find_server(data_dir), f"bench{len(results)}")
        finally:
            server.stop()
        print(
            f"{label:45s} {results[label]:8.1f} records/s  ({len(candidates)} records)", flush=True
        )
    baseline = results["stock server + SDK records.log (baseline)"]
    ours = results["embedded server + annotate push"]
    print(f"speed-up of annotate push over stock SDK logging: {ours / baseline:.1f}x")


if __name__ == "__main__":
    main()
