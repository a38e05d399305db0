"""The external merge: rows of many tasks, merged in corpus order, duplicates dropped across
tasks through hash shards on disk — the same as sorting everything in memory and dropping
duplicates there (the merge this one replaced), with several merge rounds and shards forced."""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from biasforge.curation.slguset import merge
from biasforge.curation.slguset.rows import ROWS_SUFFIX, sentence_hash, sort_key
from tests.slguset.conftest import merge_parts


def write_parts(parts, rng, tasks=12, rules=("preprocess", "person_name")):
    """Random rows of ``tasks`` tasks (each task's rows sorted, as a task writes them), with
    sentences repeated within and across tasks, kept and rejected."""
    sentences = [f"句子{i}他来了。" for i in range(40)]
    everything = []
    for task in range(tasks):
        rows = {}
        positions = sorted(
            {(rng.randrange(3), rng.randrange(500), 0, rng.randrange(3)) for _ in range(60)}
        )
        for pos in positions:
            sentence = rng.choice(sentences)
            # sentences 30-39 are never kept: their first rejected copy must survive
            kind = rng.choice(list(rules) if sentence in sentences[30:] else ["k", *rules])
            row = {"id": sentence, "source_id": f"{pos}", "sentence": sentence, "keyword": "他"}
            if kind != "k":
                row["reasons"] = [f"{kind}: because"]
            rows.setdefault(kind, []).append((sort_key(*pos), row))
            everything.append((pos, kind, row))
        for kind, items in rows.items():
            folder = parts / ("kept" if kind == "k" else f"rejected/{kind}")
            folder.mkdir(parents=True, exist_ok=True)
            with open(folder / f"{task:05d}{ROWS_SUFFIX}", "w", encoding="utf-8") as out:
                for key, row in items:
                    flag = "k" if kind == "k" else "r"
                    out.write(f"{key}\t{flag}\t{sentence_hash(row['sentence'])}\t")
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return everything


def reference(everything):
    """In memory, as the old merge did it: sort, keep the first kept copy of a sentence, then
    the first rejected copy of a sentence nobody kept."""
    frame = pd.DataFrame(
        [{"pos": pos, "kept": kind == "k", **row} for pos, kind, row in everything]
    ).sort_values("pos", kind="stable")
    kept = frame[frame.kept].drop_duplicates("sentence")
    rejected = frame[~frame.kept].drop_duplicates("sentence")
    rejected = rejected[~rejected.sentence.isin(set(kept.sentence))]
    duplicates = len(frame) - len(kept) - len(rejected)
    return list(kept.source_id), list(rejected.source_id), duplicates


@pytest.mark.parametrize("fan_in, shard_rows", [(64, 1 << 20), (3, 16)])
def test_streaming_merge_equals_the_in_memory_merge(tmp_path, monkeypatch, fan_in, shard_rows):
    monkeypatch.setattr(merge, "FAN_IN", fan_in)  # 3: several rounds of merges on disk
    monkeypatch.setattr(merge, "SHARD_ROWS", shard_rows)  # 16: many hash shards
    monkeypatch.setattr(merge, "FLUSH_ROWS", 7)
    everything = write_parts(tmp_path / "parts", random.Random(fan_in))
    kept, rejected, duplicates = merge_parts(tmp_path / "parts")
    want_kept, want_rejected, want_duplicates = reference(everything)
    assert list(kept.source_id) == want_kept
    assert list(rejected.source_id) == want_rejected
    assert duplicates == want_duplicates > 0
    assert kept.sentence.is_unique and not set(kept.sentence) & set(rejected.sentence)
    if shard_rows == 16:
        assert merge._shard_count(merge.row_files(tmp_path / "parts")) > 1
    assert not (tmp_path / "parts" / ".merge").exists()  # the scratch files are removed


def test_the_task_duplicate_window_forgets_but_the_merge_does_not(resources, tmp_path):
    """A per-task window of 1 sentence forgets the first copy; the merge drops it all the
    same, and the duplicate count is the same as with a window that remembers everything."""
    from collections import deque

    from biasforge.curation.slguset.filters import DuplicateFilter
    from biasforge.curation.slguset.mine import mining_steps
    from tests.slguset.conftest import paragraph, run_steps

    texts = ["他来了。", "她走了。", "他们走了。", "他笑了。", "他哭了。"]
    texts += ["他来了。", "她走了。", "他们走了。"]  # 他们: rejected (collective form)
    results = []
    for window in (1, 1000):
        parts = tmp_path / str(window)
        steps = mining_steps(resources, parts)
        for step in steps:
            if isinstance(step, DuplicateFilter):
                step.window = window
        deque(run_steps(steps, [paragraph(t, n) for n, t in enumerate(texts, 1)]), maxlen=0)
        task_dropped = next(s for s in steps if isinstance(s, DuplicateFilter)).stats
        kept, rejected, cross = merge_parts(parts)
        dropped = task_dropped["dropped"].total  # (a counter never set reads 0)
        results.append((list(kept.sentence), list(rejected.sentence), dropped + cross))
    assert results[0] == results[1]
    assert results[0][1] == ["他们走了。"] and results[0][2] == 3
