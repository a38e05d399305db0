"""Issue 37, items 3, 4 and 7 (scoring): results combine only on the same release — its name,
version and the sha256 of its files, not its content alone (releases 0.1.0 and 0.2.0 below hold
the same records, byte for byte) — and the same input given twice is refused by one rule, in
``score merge``, ``score compare``, ``score import-lm-eval`` and ``score stereoset-eval``; no
command writes over or into one of its own inputs, ``--overwrite`` or not, links followed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import one_error_line, run_cli
from tests.helpers import snapshot, write_release
from tests.scoring.conftest import stereoset_items

SAME_CONTENT = "version differs): results of different dataset versions are not combined"


def _release(root: Path, version: str) -> Path:
    return write_release(stereoset_items(), root, "ss", version, by="split")


@pytest.fixture(scope="module")
def scored(tmp_path_factory, tiny_models) -> dict[str, Path]:
    """Releases ss 0.1.0 and 0.2.0 with the same records, and score folders of both."""
    root = tmp_path_factory.mktemp("identity")
    found = {"old": _release(root / "rel", "0.1.0"), "new": _release(root / "rel", "0.2.0")}
    assert snapshot(found["old"] / "intrasentence") == snapshot(found["new"] / "intrasentence")
    for key, model in (("a", "masked"), ("b", "causal"), ("c", "masked")):
        release = found["new" if key == "c" else "old"]
        found[key] = root / key
        run_cli("score", "stereoset", "--dataset", release, "--model", tiny_models[model],
                "--out", found[key], "--bootstrap", "20", "--no-progress")  # fmt: skip
    return found


# ------------------------------------------------------------------ release identity


def test_merge_refuses_another_version_of_the_same_records(scored, tmp_path):
    result = run_cli("score", "merge", scored["a"], scored["c"], "-o", tmp_path / "m", check=False)
    line = one_error_line(result)
    assert f"{scored['c']}: comes from ss 0.2.0" in line and "ss 0.1.0" in line
    assert SAME_CONTENT in line
    assert not (tmp_path / "m").exists()


def test_merge_of_one_release_still_combines(scored, tmp_path):
    run_cli("score", "merge", scored["a"], scored["b"], "-o", tmp_path / "m", "--no-progress")
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text(encoding="utf-8"))
    assert (manifest["release"]["name"], manifest["release"]["version"]) == ("ss", "0.1.0")


def test_stereoset_eval_refuses_predictions_of_another_version(scored):
    predictions = scored["a"] / "tiny-bert" / "predictions.json"
    result = run_cli("score", "stereoset-eval", "--dataset", scored["new"],
                     "--predictions", predictions, check=False)  # fmt: skip
    line = one_error_line(result)
    assert f"{predictions}: comes from ss 0.1.0" in line and "--dataset is ss 0.2.0" in line
    assert result.stdout == ""
    same = run_cli("score", "stereoset-eval", "--dataset", scored["old"], "--predictions",
                   predictions)  # fmt: skip
    assert json.loads(same.stdout) == json.loads(
        (scored["a"] / "tiny-bert" / "results.json").read_text(encoding="utf-8")
    )


def _predictions(scored, keep) -> dict:
    data = json.loads((scored["a"] / "tiny-bert" / "predictions.json").read_text("utf-8"))
    return {split: [p for p in entries if keep(p["id"])] for split, entries in data.items()}


@pytest.mark.parametrize(
    ("keep", "expect"),
    [
        # another dataset's predictions scored on the ids they share
        (lambda i: True, "predicted id(s) are no sentence of --dataset (first: 'other-"),
        # a file from elsewhere (no score folder names its release) that skips items
        (lambda i: not i.startswith("intra0"), "predicts 4 of the 5 intrasentence items"),
        # an item predicted in part (used to be a KeyError)
        (lambda i: i != "intra1-unrelated", "item intra1: 2 of its 3 sentences predicted"),
    ],
    ids=["stray-ids", "items-missing", "item-in-part"],
)
def test_predictions_outside_a_score_folder_must_match_the_dataset(scored, tmp_path, keep, expect):
    data = _predictions(scored, keep)
    if expect.startswith("predicted id"):
        data["intersentence"].append({"id": "other-1", "score": 0.5})
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run_cli("score", "stereoset-eval", "--dataset", scored["old"],
                     "--predictions", path, check=False)  # fmt: skip
    assert expect in one_error_line(result)


# ------------------------------------------------------------------ the same input twice


def _twice(scored, tmp_path) -> list[tuple[str, list]]:
    link = tmp_path / "link"
    link.symlink_to(scored["a"], target_is_directory=True)
    return [
        ("given twice", [scored["a"], scored["a"]]),
        ("given twice", [scored["a"], Path(str(scored["a"]) + "/../" + scored["a"].name)]),
        ("given twice", [scored["a"], link]),
    ]


def test_merge_refuses_the_same_folder_twice(scored, tmp_path):
    for expect, folders in _twice(scored, tmp_path):
        result = run_cli("score", "merge", *folders, "-o", tmp_path / "m", check=False)
        line = one_error_line(result)
        assert f"{folders[1]}: " in line and expect in line and "it would count twice" in line
        assert not (tmp_path / "m").exists()


def test_compare_refuses_the_same_folder_twice_by_the_same_rule(scored, tiny_models, tmp_path):
    crows = tmp_path / "crows"
    run_cli("curate", "crowspairs", "--lang", "en", "--out", tmp_path / "run")
    run_cli("export", "release", tmp_path / "run", "--name", "cp", "--version", "0.1.0",
            "--unreviewed", "--out", tmp_path / "rel")  # fmt: skip
    run_cli("score", "crowspairs", "--dataset", tmp_path / "rel" / "cp" / "0.1.0", "--model",
            tiny_models["masked"], "--out", crows, "--no-progress", "--bootstrap", "0")  # fmt: skip
    result = run_cli("score", "compare", "--stereoset", scored["a"], "--stereoset", scored["a"],
                     "--crowspairs", crows, check=False)  # fmt: skip
    line = one_error_line(result)
    assert f"{scored['a']}: is the score folder {scored['a']}, given twice" in line


# ------------------------------------------------------------------ never over an input


def test_merge_never_writes_over_or_into_one_of_its_inputs(scored, tmp_path):
    merged = tmp_path / "m"
    run_cli("score", "merge", scored["a"], scored["b"], "-o", merged, "--no-progress")
    before = {key: snapshot(scored[key]) for key in ("a", "b")} | {"m": snapshot(merged)}
    link = tmp_path / "to-m"
    link.symlink_to(merged, target_is_directory=True)
    cases = [
        (merged, "is the input"),  # the case: -o INPUT --overwrite
        (link, "is the input"),  # the same folder through a link
        (scored["b"] / "sub", "lies in the input"),  # a new folder inside an input
        (scored["b"].parent, "holds the input"),  # a folder around an input
    ]
    for out, expect in cases:
        result = run_cli("score", "merge", merged, scored["b"], "-o", out, "--overwrite",
                         check=False)  # fmt: skip
        line = one_error_line(result)
        assert f"--out {out}: {expect}" in line and "never writes over or into" in line
    assert not (scored["b"] / "sub").exists()
    assert {key: snapshot(scored[key]) for key in ("a", "b")} | {"m": snapshot(merged)} == before


def test_a_score_run_never_writes_into_its_dataset(scored, tiny_models):
    inside = scored["old"] / "scores"
    result = run_cli("score", "stereoset", "--dataset", scored["old"], "--model",
                     tiny_models["masked"], "--out", inside, check=False)  # fmt: skip
    assert f"--out {inside}: lies in the input {scored['old']}" in one_error_line(result)
    assert not inside.exists()


def test_an_nsp_head_inside_the_out_folder_is_an_input(scored, tiny_models, tmp_path):
    out = tmp_path / "inter"
    common = ["score", "stereoset", "--dataset", scored["old"], "--model", tiny_models["causal"],
              "--split", "intersentence", "--bootstrap", "0", "--no-progress"]  # fmt: skip
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("The cat sat.\nIt slept.\n\nThe dog ran.\nIt barked.\n", encoding="utf-8")
    run_cli(*common, "--nsp-corpus", corpus, "--out", out)
    head = out / "tiny-gpt2" / "nsp_head.pt"
    before = snapshot(out)
    result = run_cli(*common, "--nsp-head", head, "--out", out, "--overwrite", check=False)
    assert f"--out {out}: holds the input {head}" in one_error_line(result)
    assert snapshot(out) == before
    assert os.path.getsize(head) > 0


def test_export_convert_never_writes_an_lm_eval_folder_around_its_input(scored, tmp_path):
    releases = scored["old"].parent.parent
    before = snapshot(releases)
    result = run_cli("export", "convert", scored["old"], "--format", "lm-eval", "--out",
                     releases, "--overwrite", check=False)  # fmt: skip
    assert f"--out {releases}: holds the input {scored['old']}" in one_error_line(result)
    assert snapshot(releases) == before
