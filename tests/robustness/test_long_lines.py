"""Issue 37, item 1: a line without a sentence end cannot stall SlguSet mining.

The issue's line (``他是一个好人，`` × 10,000 + ``。``, 70,001 characters) took seven times as
long as the same characters in short lines, and was kept as a candidate. Both corpora go
through the same command in this test; the long line must cost at most twice as much, and be
rejected with its reason in ``rejected.parquet`` and the run's stats.
"""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow.parquet as pq

from biasforge.contract.manifest import read_json_object
from biasforge.curation.slguset.readers import MAX_LINE_BYTES, Unit, read_unit
from tests.conftest import run_cli

PHRASE = "他是一个好人，"
LINE = PHRASE * 10_000 + "。"


def _curate(corpus: Path, out: Path) -> float:
    """Wall seconds of ``biasforge curate slguset`` on ``corpus``."""
    started = time.perf_counter()
    run_cli("curate", "slguset", "--corpus", corpus, "--out", out)
    return time.perf_counter() - started


def test_a_line_without_sentence_ends_costs_no_more_than_its_characters_in_short_lines(
    tmp_path: Path,
):
    long, short = tmp_path / "long.txt", tmp_path / "short.txt"
    long.write_text(LINE + "\n", encoding="utf-8")
    short.write_text("\n".join(LINE[i : i + 70] for i in range(0, len(LINE), 70)) + "\n")
    # the smaller of two runs of each, alternated, so a burst of load on the shared machine
    # does not decide the comparison
    times = {"long": [], "short": []}
    for attempt in range(2):
        for name, corpus in (("long", long), ("short", short)):
            times[name].append(_curate(corpus, tmp_path / f"{name}-{attempt}"))
    assert min(times["long"]) <= 2 * min(times["short"]), times

    run = tmp_path / "long-0"
    assert pq.read_table(run / "candidates.parquet").num_rows == 0
    rejected = pq.read_table(run / "rejected.parquet").to_pylist()
    assert [len(row["sentence"]) for row in rejected] == [70_001]
    [reason] = rejected[0]["reasons"]
    assert reason.startswith("sentence_length: 70,001 characters between sentence ends")
    stats = read_json_object(run / "stats.json")
    assert stats["rejections_per_rule"] == {"sentence_length": 1}
    rule = next(r for r in stats["rules"] if r["rule"] == "sentence_length")
    assert (rule["seen"], rule["failed"]) == (1, 1)


def test_a_line_longer_than_a_read_chunk_is_one_record_and_cut_after_its_sentences(
    tmp_path: Path,
):
    """The reader takes a long line in chunks and searches only the new one for a sentence
    end; what it gives back is still the line, whole or cut after a sentence end."""
    phrases = MAX_LINE_BYTES * 5 // 2 // len(PHRASE.encode("utf-8"))
    without = tmp_path / "without.txt"
    without.write_text(PHRASE * phrases + "\n", encoding="utf-8")
    [record] = read_unit(Unit(str(without), "text"))
    assert record.text == PHRASE * phrases and (record.line, record.piece) == (1, 0)

    ends = tmp_path / "ends.txt"
    head = PHRASE * (phrases // 2) + "。”"  # the sentence end lies in the second chunk
    ends.write_text(head + PHRASE * (phrases // 2) + "\n他来了。\n", encoding="utf-8")
    records = list(read_unit(Unit(str(ends), "text")))
    assert [(r.line, r.piece) for r in records] == [(1, 0), (1, 1), (2, 0)]
    assert [r.text for r in records] == [head, PHRASE * (phrases // 2), "他来了。"]
