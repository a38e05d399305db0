"""Issue 37, items 3, 7 and 8 around lm-evaluation-harness, with one real ``lm_eval`` run of a
tiny GPT-2-style model over an exported SlguSet release:

- results are imported only onto the release they were exported from — name, version and sha256
  (another version holding the same records is refused) — and a results folder given twice, or
  inside another one given too, is refused;
- ``import-lm-eval`` accepts ``--no-progress`` as every score command does;
- a SlguSet folder names the procedure each model was scored with, native and imported alike
  (they differ for a GPT-2-style model);
- ``export convert --format lm-eval --overwrite`` replaces an earlier task folder of the same
  family (after lm-eval ran it, its byte-code cache included), and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biasforge.files import sha256_file
from tests.conftest import one_error_line, run_cli
from tests.helpers import snapshot, write_release
from tests.lm_eval.conftest import run_lm_eval
from tests.scoring.conftest import stereoset_items
from tests.scoring.test_slguset_becpro import slguset_items


@pytest.fixture(scope="module")
def lm_eval_slguset(tmp_path_factory, tiny_models) -> dict[str, Path]:
    """SlguSet releases slg 0.1.0 and 0.2.0 (the same records), the task folder of 0.1.0 and
    the results of one lm_eval run of the tiny GPT-2 on it."""
    from biasforge.exports.lm_eval import task_prefix

    root = tmp_path_factory.mktemp("lm-eval-slg")
    found = {
        version: write_release(slguset_items(), root / "rel", "slg", version, by="language")
        for version in ("0.1.0", "0.2.0")
    }
    tasks = root / "include" / "tasks"
    run_cli("export", "convert", found["0.1.0"], "--format", "lm-eval", "--out", tasks)
    results = root / "results"
    with pytest.MonkeyPatch.context() as patch:  # as on a user's machine: lm-eval's import of
        patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)  # utils.py leaves __pycache__
        run_lm_eval(tiny_models["causal"], tasks.parent, [task_prefix("slg", "0.1.0")], results)
    return {**found, "tasks": tasks, "results": results, "root": root}


def _import(*args, check=True):
    return run_cli("score", "import-lm-eval", *args, "--bootstrap", "10", check=check)


def test_results_of_another_version_with_the_same_records_are_refused(lm_eval_slguset, tmp_path):
    data = lm_eval_slguset
    same = {p.name: sha256_file(p) for p in (data["0.1.0"] / "zh").iterdir()}
    assert same == {p.name: sha256_file(p) for p in (data["0.2.0"] / "zh").iterdir()}
    result = _import(data["results"], "--dataset", data["0.2.0"], "--out", tmp_path / "o",
                     check=False)  # fmt: skip
    line = one_error_line(result)
    assert "comes from slg 0.1.0" in line and "--dataset is slg 0.2.0" in line
    assert "(version differs)" in line
    assert not (tmp_path / "o").exists()


def test_a_results_folder_given_twice_is_refused(lm_eval_slguset, tmp_path):
    results = lm_eval_slguset["results"]
    (inner,) = [p for p in results.iterdir() if p.is_dir()]  # lm-eval's folder per model
    for folders, expect in (
        ([results, results], f"{results}: is the lm-eval results folder {results}, given twice"),
        ([results, inner], f"{inner}: lies in the lm-eval results folder {results}, given too"),
        ([inner, results], f"{results}: holds the lm-eval results folder {inner}, given too"),
    ):
        result = _import(*folders, "--dataset", lm_eval_slguset["0.1.0"],
                         "--out", tmp_path / "o", check=False)  # fmt: skip
        line = one_error_line(result)
        assert expect in line and "it would count twice" in line
    assert not (tmp_path / "o").exists()


def test_slguset_folders_name_the_procedure_native_and_imported(
    lm_eval_slguset,
    tiny_models,
    tmp_path,
):
    """The issue's case: native and imported Bias_c of a GPT-2-style model differ, and each
    folder says how it was read; ``--no-progress`` is accepted by import-lm-eval."""
    imported, native = tmp_path / "imported", tmp_path / "native"
    _import(lm_eval_slguset["results"], "--dataset", lm_eval_slguset["0.1.0"],
            "--out", imported, "--no-progress")  # fmt: skip
    run_cli("score", "slguset", "--dataset", lm_eval_slguset["0.1.0"], "--model",
            tiny_models["causal"], "--out", native, "--no-progress", "--bootstrap", "10",
            "--dtype", "float32")  # fmt: skip
    procedures = {}
    for folder in (imported, native):
        (model,) = json.loads((folder / "models.json").read_text(encoding="utf-8"))
        procedures[folder.name] = model["procedure"]
        assert model["procedure"] in (folder / "report.md").read_text(encoding="utf-8")
    assert "lm-evaluation-harness loglikelihood (imported)" in procedures["imported"]
    assert "the first given the start token" in procedures["native"]
    assert procedures["imported"] != procedures["native"]


def test_lm_eval_export_overwrite_replaces_an_earlier_export_of_the_family(
    lm_eval_slguset, tmp_path
):
    tasks = lm_eval_slguset["tasks"]
    assert any(p.name == "__pycache__" for p in tasks.iterdir())  # lm-eval imported utils.py
    convert = ["export", "convert", lm_eval_slguset["0.2.0"], "--format", "lm-eval", "--out"]
    assert "already exists" in one_error_line(run_cli(*convert, tasks, check=False))
    run_cli(*convert, tasks, "--overwrite")
    manifest = json.loads((tasks / "manifest.json").read_text(encoding="utf-8"))
    assert (manifest["format"], manifest["family"]) == ("lm-eval", "slguset")
    assert manifest["release"]["version"] == "0.2.0"
    assert sorted(p.name for p in tasks.glob("*.yaml")) == [
        "biasforge_slg_0_2_0.yaml",
        "biasforge_slg_0_2_0_zh.yaml",
    ]


def _stereoset_tasks(root: Path) -> Path:
    release = write_release(stereoset_items(), root / "rel", "ss", "1.0.0", "split")
    run_cli("export", "convert", release, "--format", "lm-eval", "--out", root / "ss-tasks")
    return root / "ss-tasks"


def _edited(root: Path) -> Path:
    """An earlier SlguSet export (the same family) that the user edited since."""
    release = write_release(slguset_items(), root / "rel", "slg", "0.3.0", "language")
    tasks = root / "edited"
    run_cli("export", "convert", release, "--format", "lm-eval", "--out", tasks)
    with (tasks / "utils.py").open("a", encoding="utf-8") as handle:
        handle.write("# my change\n")
    return tasks


def _mine(root: Path) -> Path:
    (root / "mine").mkdir()
    (root / "mine" / "notes.txt").write_text("mine", encoding="utf-8")
    return root / "mine"


@pytest.mark.parametrize(
    ("make", "expect"),
    [
        (_stereoset_tasks, "holds a biasforge export of stereoset, not slguset"),
        (_edited, "utils.py changed since biasforge wrote it"),
        (_mine, "holds notes.txt, and is not a folder biasforge wrote"),
    ],
    ids=["another-family", "edited", "a-users-folder"],
)
def test_lm_eval_export_overwrite_replaces_nothing_else(lm_eval_slguset, tmp_path, make, expect):
    target = make(tmp_path)
    before = snapshot(target)
    result = run_cli("export", "convert", lm_eval_slguset["0.1.0"], "--format", "lm-eval",
                     "--out", target, "--overwrite", check=False)  # fmt: skip
    line = one_error_line(result)
    assert expect in line and "--overwrite only replaces an earlier lm-eval output" in line
    assert snapshot(target) == before
