"""Shared inputs for the SlguSet tests: the real lexicon, name model and jieba, and the real
datatrove mining steps run in this process."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pandas as pd
import pytest
from datatrove.data import Document

from tests.conftest import SHARED

PEOPLES_DAILY = SHARED / "data" / "zh_news" / "peoples_daily_dev.jsonl"


@pytest.fixture(scope="session")
def lexicon():
    from biasforge.curation.slguset.lexicon import load_lexicon

    return load_lexicon()


@pytest.fixture(scope="session")
def finder():
    """The shipped ``fast`` model over jieba's own dictionary (as the evaluation uses it)."""
    from biasforge.curation.slguset.names import NameFinder, load_models

    return NameFinder(load_models()["fast"])


@pytest.fixture(scope="session")
def resources():
    """One task's lexicon, tokenizer and name finder, built once for the session."""
    from biasforge.curation.slguset.resources import TaskResources

    resources = TaskResources()
    assert resources.finder is not None  # build jieba now, once
    return resources


@pytest.fixture(scope="session")
def peoples_daily():
    if not PEOPLES_DAILY.is_file():
        pytest.fail(f"{PEOPLES_DAILY} is missing: the shared data folder must sit beside the repo")
    return PEOPLES_DAILY


def paragraph(text: str, line: int = 1, source: str = "t.txt") -> Document:
    """A document as the corpus reader makes it."""
    return Document(text, f"{source}:{line}", metadata={"source": source, "line": line, "piece": 0})


def run_steps(steps, docs) -> list[Document]:
    """Pipe documents through datatrove steps as an executor does for one task (rank 0)."""
    data = iter(docs)
    for step in steps:
        data = step(data, 0, 1)
    return list(data) if data is not None else []


def mine(resources, parts: Path, *texts: str):
    """The mining steps of one task over ``texts`` (one line each), then the merge: (kept,
    rejected, step stats by name)."""
    from biasforge.curation.slguset.mine import mining_steps

    steps = mining_steps(resources, parts)
    deque(run_steps(steps, [paragraph(t, n) for n, t in enumerate(texts, 1)]), maxlen=0)
    kept, rejected, _ = merge_parts(parts)
    return kept, rejected, {s.name: s.stats for s in steps}


def merge_parts(parts_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """(kept, rejected, duplicates across tasks) as DataFrames: the rows a run streams into
    its parquet files (:func:`biasforge.curation.slguset.merge.stream_rows`), held in memory."""
    from biasforge.curation.slguset.merge import stream_rows
    from biasforge.curation.slguset.output import drain

    rows: dict[str, list] = {"k": [], "r": []}
    stream = stream_rows(parts_dir, Path(parts_dir) / ".merge")
    duplicates = drain(stream, lambda item: rows[item[0]].append(item[1]))
    return pd.DataFrame(rows["k"]), pd.DataFrame(rows["r"]), duplicates.count
