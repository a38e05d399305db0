"""What the annotator-quality tests share (issue 38; the bundled StereoSet sample curated to
French against the local fake DeepL is ``stereoset_fr_run`` in tests/conftest.py): an
annotator's whole queue, answers sent in bulk through the annotator's own endpoint (as the
UI's bulk mode does), and simulated answers of known accuracy."""

from __future__ import annotations

import random
from pathlib import Path

import httpx

from tests.annotation.helpers import queue

ROOT = Path(__file__).resolve().parents[2]
BULK = 100  # Argilla's limit per bulk call


def whole_queue(api: httpx.Client, dataset_id: str, status: str = "pending") -> list[dict]:
    """Every record of the user's queue with ``status``, page by page."""
    records: list[dict] = []
    while True:
        page = queue(api, dataset_id, limit=BULK, offset=len(records), status=status)
        records += page
        if len(page) < BULK:
            return records


def answer_in_bulk(api: httpx.Client, answers: list[tuple[str, dict, str]]) -> None:
    """(record id, values, status) answers, sent ``BULK`` at a time to ``/me/responses/bulk``."""
    for start in range(0, len(answers), BULK):
        items = [
            {"record_id": rid, "status": status,
             "values": {q: {"value": v} for q, v in values.items() if v is not None}}
            for rid, values, status in answers[start : start + BULK]
        ]  # fmt: skip
        result = api.post("/api/v1/me/responses/bulk", json={"items": items})
        assert result.status_code == 200, result.text
        errors = [i["error"] for i in result.json()["items"] if i.get("error")]
        assert not errors, errors


def simulated(truth: str, options: list[str], accuracy: float | None, rng: random.Random) -> str:
    """An answer right with probability ``accuracy`` (else one of the wrong options, evenly);
    ``accuracy`` None: any option, evenly (an annotator answering at random), drawn as right
    one time in ``len(options)``, else a wrong option evenly: the same distribution as a
    uniform pick, but whether it is right is decided by ``rng`` alone, not by which option the
    truth is (a keyed order that differs per run made a uniform pick's share of right answers
    differ per run: 0.28 once against 1/3 ± 0.05)."""
    if accuracy is None:
        accuracy = 1 / len(options)
    if rng.random() < accuracy:
        return truth
    return rng.choice([o for o in options if o != truth])
