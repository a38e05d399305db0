"""What the translation memory saves: characters sent vs characters in the source, items/s.

Runs the StereoSet curation against the local fake DeepL server (real ``deepl`` client, real
HTTP on 127.0.0.1), three ways, in the same process:

1. baseline, no memory: every text of every item is sent as it comes (what a plain
   translate-everything script does), so repeated contexts and target words are paid again;
2. memory, cold: ``biasforge curate stereoset`` with an empty translation memory;
3. memory, warm: the same command again (a rerun, or a resumed run).

Usage: ``.venv/bin/python benchmarks/bench_translation_memory.py [--source FILE] [--limit N]``
(default: the full 4,229-item English dev set in ../shared/data/stereoset when present, else
the bundled sample).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from biasforge.curation.checks import run_checks  # noqa: E402
from biasforge.curation.stereoset import Options, audit, curate  # noqa: E402
from biasforge.curation.stereoset.pipeline import item_units, load_items  # noqa: E402
from biasforge.curation.translation.deepl_backend import DeepLTranslator  # noqa: E402
from biasforge.translation_memory import TranslationMemory  # noqa: E402
from tests.fake_deepl import FakeDeepL  # noqa: E402

FULL = REPO.parent / "shared" / "data" / "stereoset" / "stereoset_dev_en.jsonl"
SAMPLE = REPO / "curation" / "data" / "stereoset" / "sample_dev_en.jsonl"


def baseline(source: Path, opts: Options, translator: DeepLTranslator) -> tuple[int, int, float]:
    """Send every text of every item, one request per item and role group, no memory."""
    items, _ = load_items(source, opts)
    kept = run_checks(items, audit.AUDIT_CHECKS).kept
    started = time.perf_counter()
    chars = 0
    for row in kept.itertuples(index=False):
        u = item_units(row)
        groups = [[u.target], [u.context], u.sentences]
        if u.unrelated_alone:
            groups.append([u.unrelated_alone])
        for group in groups:
            texts = [x.text for x in group]
            translator.translate(texts, "en", opts.lang, context=group[0].context, xml=group[0].xml)
            chars += sum(len(t) for t in texts)
    return len(kept), chars, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=FULL if FULL.is_file() else SAMPLE)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    fake = FakeDeepL().start()
    try:
        translator = DeepLTranslator(auth_key=fake.auth_key, server_url=fake.url)
        opts = Options(lang="fr", source=str(args.source), limit=args.limit, progress=False)
        n_items, base_chars, base_s = baseline(args.source, opts, translator)
        with tempfile.TemporaryDirectory() as tmp:
            rows = [("baseline: no memory", n_items, base_chars, base_chars, base_s)]
            with TranslationMemory(Path(tmp) / "tm.sqlite") as memory:
                for name in ("memory: cold", "memory: warm (rerun)"):
                    started = time.perf_counter()
                    run = curate(
                        opts,
                        Path(tmp) / "run",
                        overwrite=True,
                        translator=translator,
                        memory=memory,
                    )
                    stats = run.stats
                    seconds = time.perf_counter() - started
                    t = stats["translation"]
                    rows.append((name, stats["kept"], base_chars, t["characters_sent"], seconds))
    finally:
        fake.stop()
    print(f"source: {args.source} (fake DeepL server, real deepl client)")
    print(
        f"{'run':<24}{'items':>8}{'chars in source':>18}{'chars sent':>12}{'sent/source':>13}{'items/s':>10}"
    )
    for name, items, source_chars, sent, seconds in rows:
        print(
            f"{name:<24}{items:>8}{source_chars:>18}{sent:>12}{sent / source_chars:>13.3f}"
            f"{items / seconds:>10.1f}"
        )
    cold, warm = rows[1], rows[2]
    print(
        f"memory saves {100 * (1 - cold[3] / base_chars):.1f}% of characters on a first run "
        f"(repeated contexts and targets sent once) and {100 * (1 - warm[3] / base_chars):.1f}% "
        f"on a rerun; whole-pipeline speed: cold {cold[1] / cold[4]:.0f} items/s, warm "
        f"{warm[1] / warm[4]:.0f} items/s vs baseline translation alone {rows[0][1] / rows[0][4]:.0f} items/s"
    )


if __name__ == "__main__":
    main()
