"""Files a user hands to scoring: a predictions JSON for ``score stereoset-eval`` and a saved
NSP head for ``score stereoset --nsp-head``. Anything else than what biasforge wrote is refused
with exit 2 and one ``error:`` line naming the file (and, for bad JSON, the line and column),
no traceback, before any model is loaded, and no output folder is left behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import one_error_line, run_cli
from tests.scoring.conftest import stereoset_items, stereoset_release


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return stereoset_release(stereoset_items(), tmp_path_factory.mktemp("ss"))


def _predictions(items) -> dict:
    """A valid predictions file: a score for every sentence of every item."""
    out: dict[str, list] = {"intrasentence": [], "intersentence": []}
    for split, sentences in zip(items["split"], items["sentences"], strict=True):
        out[split] += [{"id": s["id"], "score": 0.5 + 0.1 * i} for i, s in enumerate(sentences)]
    return out


BAD_PREDICTIONS = [
    ("truncated", '{"intrasentence": [{"id": "a", "score": 0.1}', "line 1", "column"),
    ("not json", "intrasentence,id,score\n", "line 1", "not JSON"),
    ("second line", '{"intrasentence": [\n  {"id": "a", "score": }]}', "line 2", "column 24"),
    ("empty", "", "line 1", "not JSON"),
    ("not utf-8", b'{"intrasentence": ["\xff"]}', "not UTF-8", "byte 20"),
    ("a list", "[1, 2, 3]", "intrasentence", "intersentence"),
    ("split not a list", '{"intrasentence": {"id": "a"}}', '"intrasentence" must be a list', ""),
    ("entry not an object", '{"intersentence": [3]}', "intersentence[0]", "id"),
    ("score a string", '{"intrasentence": [{"id": "a", "score": "high"}]}', "score", "number"),
    ("score NaN", '{"intrasentence": [{"id": "a", "score": NaN}]}', "intrasentence[0]", "number"),
    ("no id", '{"intrasentence": [{"score": 0.3}]}', "intrasentence[0]", "id"),
]


@pytest.mark.parametrize(
    ("content", "first", "second"),
    [case[1:] for case in BAD_PREDICTIONS],
    ids=[case[0] for case in BAD_PREDICTIONS],
)
def test_bad_predictions_file_is_one_line(release, tmp_path, content, first, second):
    path = tmp_path / "predictions.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = run_cli(
        "score", "stereoset-eval", "--dataset", release, "--predictions", path, check=False
    )
    line = one_error_line(result)
    assert str(path) in line and first in line and second in line, line
    assert result.stdout == ""


def test_good_predictions_file_is_evaluated(release, tmp_path):
    """The same reader accepts what the layout allows (ints as scores, one split only)."""
    predictions = _predictions(stereoset_items())
    predictions["intrasentence"][0]["score"] = 1  # an int is a number
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(predictions))
    result = run_cli("score", "stereoset-eval", "--dataset", release, "--predictions", path)
    results = json.loads(result.stdout)
    assert results["intrasentence"]["overall"]["Count"] == 5.0
    assert results["intersentence"]["overall"]["Count"] == 3.0


def _head(tmp_path: Path, content: bytes | None = None, data: object = None) -> Path:
    path = tmp_path / "nsp_head.pt"
    if data is not None:
        import torch

        torch.save(data, path)
    else:
        path.write_bytes(content or b"")
    return path


def _zeros(*shape: int):
    import torch

    return torch.zeros(*shape)


BAD_HEADS = [
    ("empty", lambda p: _head(p, b""), "empty file"),
    ("garbage", lambda p: _head(p, b"\x00garbage\xff" * 100), "not an NSP head"),
    ("text", lambda p: _head(p, b"weight,bias\n1,2\n"), "not an NSP head"),
    ("a tensor", lambda p: _head(p, data=_zeros(2, 8)), "not an NSP head"),
    (
        "3 classes",
        lambda p: _head(p, data={"weight": _zeros(3, 8), "bias": _zeros(3), "model": "m"}),
        "(2, N) weight",
    ),
    ("no name", lambda p: _head(p, data={"weight": _zeros(2, 8), "bias": _zeros(2)}), "name"),
    ("missing", lambda p: p / "nowhere.pt", "no such file"),
    ("a folder", lambda p: p, "a folder, not a file"),
]


@pytest.mark.parametrize(
    ("make", "expect"), [c[1:] for c in BAD_HEADS], ids=[c[0] for c in BAD_HEADS]
)
def test_bad_nsp_head_is_one_line_before_any_model_is_loaded(
    release, tiny_models, tmp_path, make, expect
):
    folder = tmp_path / "in"
    folder.mkdir()
    head = make(folder)
    out = tmp_path / "scores"
    result = run_cli(
        "score", "stereoset", "--dataset", release, "--model", tiny_models["masked"],
        "--nsp-head", head, "--out", out, "--no-progress", check=False,
    )  # fmt: skip
    line = one_error_line(result)
    assert str(head) in line and expect in line, line
    assert "Aborted" not in result.stderr
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["in"]  # no staging folder left either
