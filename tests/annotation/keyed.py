"""Helpers for tests of StereoSet's keyed option order: a fixed key for tests of the family's
hooks, the maintainer's key of a pushed dataset (read where ``pull`` reads it), and the order
an annotator sees, read from the record as the server gives it (the correction box's
``A:``/``B:``/``C:`` lines), never from the code that made it."""

from __future__ import annotations

from biasforge import families
from biasforge.annotation.review import private_state
from biasforge.families.base import DatasetKey

TEST_KEY = DatasetKey(b"a fixed dataset key for the tests of the family hooks")


def keyed_review(name: str = "stereoset", key: DatasetKey = TEST_KEY):
    """The family's review bound to ``key``, as a push or pull binds it."""
    return families.get(name).review.with_key(key)


def use_key(connection, dataset: str, key: DatasetKey = TEST_KEY) -> None:
    """Give a dataset about to be pushed a chosen key (as a maintainer who copied the key
    file would): tests that pick a row by its shown order need to know it before the push."""
    state = private_state.read(connection.url, connection.workspace, dataset)
    state["secret"] = key.secret.hex()
    private_state.write(connection.url, connection.workspace, dataset, state)


def pushed_key(connection, dataset: str) -> DatasetKey:
    """The key that the dataset's first push created (the maintainer's private state)."""
    found = private_state.secret(connection.url, connection.workspace, dataset)
    assert found, f"no private key for {dataset!r}"
    return DatasetKey(bytes.fromhex(found))


def seen_order(record: dict, row: dict) -> list[int]:
    """Which of ``row``'s sentences each option A, B, C is, read from the record's
    pre-filled correction box (a suggestion annotators get, as the API returns it)."""
    values = [s.get("value") for s in record.get("suggestions") or []]
    (box,) = [v for v in values if isinstance(v, str) and v.startswith("context:")]
    lines = dict(line.split(": ", 1) for line in box.splitlines()[1:])
    texts = [s["sentence"] for s in row["sentences"]]
    return [texts.index(lines[name]) for name in "ABC"]
