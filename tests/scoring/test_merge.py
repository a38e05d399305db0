"""``score merge`` (issue 26): folders of one release scored separately — one copied elsewhere,
as if made on another machine — combine into the very folder one multi-model run writes;
folders of two versions of a dataset are refused with one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from biasforge.scoring.cli import app
from tests.conftest import run_cli
from tests.helpers import score, write_release
from tests.scoring.conftest import stereoset_items
from tests.scoring.test_crossed import CROSS
from tests.scoring.test_score_folders import crows_pairs
from tests.scoring.test_slguset_becpro import becpro_items, slguset_items

TABLES = {
    "becpro": ("items.csv", "associations.csv", "summary.csv", "comparisons.csv", "item_bias.csv",
               "bias_correlation.csv"),
    "crowspairs": ("pairs.csv", "results.csv"),
    "slguset": ("sentences.csv", "summary.csv", "pairs.csv", "comparisons.csv", "item_bias.csv"),
    "stereoset": ("results.csv", "split_means.csv", "comparisons.csv", "item_bias.csv",
                  "tiny-bert/sentences.csv", "other-bert/sentences.csv"),
}  # fmt: skip


def release(items: pd.DataFrame, root, name: str, version: str):
    """``items`` as release ``root/releases/name/version``, one config (``en``)."""
    return write_release(items, root / "releases", name, version)


@pytest.fixture(scope="module")
def second_bert(tiny_models, tmp_path_factory):
    """The tiny BERT with other weights, saved with the same tokenizer."""
    import torch
    from transformers import AutoTokenizer, BertForPreTraining

    model = BertForPreTraining.from_pretrained(tiny_models["masked"])
    torch.manual_seed(1)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.05 * torch.randn_like(parameter))
    path = tmp_path_factory.mktemp("second") / "other-bert"
    model.save_pretrained(path)
    AutoTokenizer.from_pretrained(tiny_models["masked"]).save_pretrained(path)
    return str(path)


def _score(command: str, data, models: list[str], out) -> None:
    score(
        command, "-d", data, *[a for m in models for a in ("-m", m)], "-o", out, "--bootstrap", 100
    )


@pytest.mark.parametrize(
    "command, items",
    [
        ("becpro", lambda: becpro_items(CROSS)),
        ("crowspairs", crows_pairs),
        ("slguset", slguset_items),
        ("stereoset", stereoset_items),
    ],
)
def test_merged_folders_equal_one_multi_model_run(
    command, items, tiny_models, second_bert, zh_bert, tmp_path
):
    data = release(items(), tmp_path, f"{command}-test", "0.1.0")
    models = [zh_bert if command == "slguset" else tiny_models["masked"], second_bert]
    _score(command, data, models[:1], tmp_path / "here")
    _score(command, data, models[1:], tmp_path / "there")
    elsewhere = tmp_path / "other-machine" / "scores"
    shutil.copytree(tmp_path / "there", elsewhere)  # moved: nothing may depend on its path
    result = CliRunner().invoke(
        app, ["merge", str(tmp_path / "here"), str(elsewhere), "-o", str(tmp_path / "merged")]
    )
    assert result.exit_code == 0, result.output
    _score(command, data, models, tmp_path / "single")
    merged, single = tmp_path / "merged", tmp_path / "single"
    for table in TABLES[command]:
        pd.testing.assert_frame_equal(pd.read_csv(merged / table), pd.read_csv(single / table))
    assert json.loads((merged / "models.json").read_text()) == json.loads(
        (single / "models.json").read_text()
    )
    manifest = json.loads((merged / "manifest.json").read_text())
    assert manifest["release"]["version"] == "0.1.0" and manifest["command"] == f"score {command}"
    assert manifest["models"] == json.loads((single / "manifest.json").read_text())["models"]
    report = (merged / "report.md").read_text()
    assert Path(models[0]).name in report and "other-bert" in report
    if command == "slguset":
        topics = [json.loads((f / "topics.json").read_text()) for f in (merged, single)]
        assert topics[0] == topics[1]
    if command == "stereoset":
        for name in ("spearman.json", "tiny-bert/results.json", "other-bert/predictions.json"):
            texts = [json.loads((folder / name).read_text()) for folder in (merged, single)]
            assert texts[0] == texts[1], name
        assert "other-machine" not in report
    assert "0.1.0" in report and (merged / "report.html").is_file()


def _versions_refused(command: str, items, fewer, model: str, tmp_path) -> Path:
    """Releases 0.1.0 (``items``) and 0.2.0 (``fewer``) of one dataset scored with ``model``:
    merging their folders is refused in one line naming both versions. The 0.1.0 release."""
    old = release(items, tmp_path, f"{command}-test", "0.1.0")
    new = release(fewer, tmp_path, f"{command}-test", "0.2.0")
    _score(command, old, [model], tmp_path / "old")
    _score(command, new, [model], tmp_path / "new")
    result = run_cli("score", "merge", tmp_path / "old", tmp_path / "new", "-o",
                     tmp_path / "merged", check=False)  # fmt: skip
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "0.1.0" in line and "0.2.0" in line and "not combined" in line
    assert not (tmp_path / "merged").exists()
    return old


def test_two_versions_of_a_dataset_are_refused_with_one_line(tiny_models, tmp_path):
    _versions_refused("becpro", becpro_items(CROSS), becpro_items(CROSS[:-1]),
                      tiny_models["masked"], tmp_path)  # fmt: skip
    result = run_cli("score", "merge", tmp_path / "old", tmp_path / "old" / "items.csv", "-o",
                     tmp_path / "merged", check=False)  # fmt: skip
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1


def test_stereoset_folders_of_two_versions_or_splits_are_refused(tiny_models, tmp_path):
    old = _versions_refused("stereoset", stereoset_items(), stereoset_items().iloc[1:],
                            tiny_models["masked"], tmp_path)  # fmt: skip
    intra = ["stereoset", "-d", str(old), "-m", tiny_models["masked"], "-o", str(tmp_path / "in")]
    intra += ["--split", "intrasentence", "--bootstrap", "100", "--no-progress"]
    assert CliRunner().invoke(app, intra).exit_code == 0
    error = _merge_error(tmp_path / "old", tmp_path / "in", tmp_path / "merged")
    assert "split 'intrasentence', but" in error and "not combined" in error
    # the same model in two folders (a copy: the same folder twice is refused, issue 37): the
    # second model folder is copied as tiny-bert-2, as one run names it
    shutil.copytree(tmp_path / "old", tmp_path / "copy")
    result = CliRunner().invoke(
        app, ["merge", str(tmp_path / "old"), str(tmp_path / "copy"), "-o", str(tmp_path / "m")]
    )
    assert result.exit_code == 0, result.output
    assert list(pd.read_csv(tmp_path / "m" / "results.csv")["model"].unique()) == [
        "tiny-bert",
        "tiny-bert-2",
    ]
    identity = json.loads((tmp_path / "m" / "tiny-bert-2" / "identity.json").read_text())
    assert identity["name"] == "tiny-bert-2"


def _merge_error(*folders) -> str:
    result = CliRunner().invoke(app, ["merge", *map(str, folders[:-1]), "-o", str(folders[-1])])
    assert result.exit_code != 0 and not folders[-1].exists()
    return str(result.exception)


def test_what_does_not_combine_is_refused(tiny_models, second_bert, tmp_path):
    data = release(becpro_items(CROSS), tmp_path, "becpro-test", "0.1.0")
    crows = release(crows_pairs(), tmp_path, "crows-test", "0.1.0")
    bert = tiny_models["masked"]
    _score("becpro", data, [bert], tmp_path / "a")
    _score("becpro", data, [second_bert], tmp_path / "b")
    _score("crowspairs", crows, [bert], tmp_path / "c")
    limited = ["becpro", "-d", str(data), "-m", second_bert, "-o", str(tmp_path / "d")]
    assert CliRunner().invoke(app, [*limited, "--limit", "4", "--no-progress"]).exit_code == 0
    out = tmp_path / "merged"
    assert "written by 'score crowspairs'" in _merge_error(tmp_path / "a", tmp_path / "c", out)
    assert "limit 4, but" in _merge_error(tmp_path / "a", tmp_path / "d", out)
    assert "at least two" in _merge_error(tmp_path / "a", out)
    # the same model scored twice (two folders) keeps both, the second renamed as one run would
    shutil.copytree(tmp_path / "a", tmp_path / "a2")
    result = CliRunner().invoke(
        app, ["merge", str(tmp_path / "a"), str(tmp_path / "a2"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert list(pd.read_csv(out / "summary.csv")["model"].unique()) == ["tiny-bert", "tiny-bert-2"]
    # two folders on one side of compare must not hold the same model
    from biasforge.errors import InputError
    from biasforge.scoring.compare import read_side

    shutil.copytree(tmp_path / "c", tmp_path / "c2")
    with pytest.raises(InputError, match="also in another folder"):
        read_side([tmp_path / "c", tmp_path / "c2"], "score crowspairs")


def test_folders_of_a_task_no_registered_family_declares_are_named(tiny_models, tmp_path):
    """The runner merges the folders of any task a registered family declares; a folder whose
    command no family declares any more is refused with one line naming those that merge."""
    from dataclasses import replace

    from biasforge import families

    data = release(crows_pairs(), tmp_path, "crows-test", "0.1.0")
    for name in ("a", "b"):
        _score("crowspairs", data, [tiny_models["masked"]], tmp_path / name)
    crows = families.get("crowspairs")
    families.register(replace(crows, scoring_tasks=()), replace=True)
    try:
        error = _merge_error(tmp_path / "a", tmp_path / "b", tmp_path / "merged")
    finally:
        families.register(crows, replace=True)
    assert "'score crowspairs' folders do not merge" in error and "'score becpro'" in error
