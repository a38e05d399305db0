"""A plugin family runs in lm-evaluation-harness and comes back, and its score folders merge,
with no line of it outside this folder: a toy release is exported as an lm-eval task folder
(its ``family.py`` is ``lm_eval_tasks.py`` here), the real ``lm_eval`` runs it with a tiny
model, ``score import-lm-eval`` replays the logged log-likelihoods through the toy's own
scoring task, and ``score merge`` re-aggregates folders scored apart into the folder one run
of all the models writes. ``curate toy`` and ``score toy`` run in processes of their own (a
command line built before the toy was installed has no such commands); the others run in this
process, where ``toy_installed`` registered the toy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from tests.conftest import run_cli
from tests.lm_eval.conftest import run_lm_eval
from tests.toy_family import lm_eval_tasks
from tests.toy_family.conftest import run_cli as run_new_cli

TOL = 1e-5  # lm-eval sums float32 log-probabilities


def _release(tmp_path):
    run_new_cli("curate", "toy", "--out", tmp_path / "run")
    run_cli(
        "export", "release", tmp_path / "run", "--name", "toy", "--version", "1.0.0", "--out",
        tmp_path / "releases", "--unreviewed",
    )  # fmt: skip
    return tmp_path / "releases" / "toy" / "1.0.0"


def _score(release, models, out, *extra) -> pd.DataFrame:
    run_new_cli(
        "score", "toy", "--dataset", release, *[a for m in models for a in ("--model", m)],
        "--out", out, "--no-progress", "--bootstrap", "50", "--dtype", "float32", *extra,
    )  # fmt: skip
    return pd.read_csv(out / "scores.csv")


def test_toy_release_through_lm_eval_import_and_merge(
    toy_installed,
    bos_model,
    tiny_models,
    tmp_path,
):
    release = _release(tmp_path)
    tasks = tmp_path / "tasks"
    run_cli("export", "convert", release, "--format", "lm-eval", "--out", tasks)
    assert (tasks / "family.py").read_bytes() == Path(lm_eval_tasks.__file__).read_bytes()
    run_lm_eval(bos_model, tasks, ["biasforge_toy_1_0_0"], tmp_path / "results")

    imported = tmp_path / "imported"
    run_cli(
        "score", "import-lm-eval", tmp_path / "results", "--dataset", release, "--out", imported,
        "--bootstrap", "50",
    )  # fmt: skip
    scored = _score(release, [bos_model], tmp_path / "scored")
    got = pd.read_csv(imported / "scores.csv")
    assert got["id"].tolist() == scored["id"].tolist() == ["t1", "t2", "t3", "t5"]
    np.testing.assert_allclose(got["mean_logprob"], scored["mean_logprob"], rtol=0, atol=TOL)
    # lm-eval's own printed figure is the same mean over the documents
    (results,) = (tmp_path / "results").rglob("results_*.json")
    printed = json.loads(results.read_text())["results"]["biasforge_toy_1_0_0_default"]
    assert abs(printed["mean_logprob,none"] - scored["mean_logprob"].mean()) < TOL

    # a document logged without its token counts (no tokenizer where lm-eval ran) is refused
    bare = tmp_path / "no-tokens"
    shutil.copytree(tmp_path / "results", bare)
    (samples,) = bare.rglob("samples_*.jsonl")
    logged = [json.loads(line) for line in samples.read_text().splitlines()]
    logged[0]["doc"]["tokens"] = [0]
    samples.write_text("".join(json.dumps(line) + "\n" for line in logged))
    args = ("--dataset", release, "--out", tmp_path / "refused")
    done = run_cli("score", "import-lm-eval", bare, *args, check=False)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "no token counts" in done.stderr and not (tmp_path / "refused").exists()

    # the imported folder merges with one scored here: the same model twice, equal figures
    run_cli("score", "merge", imported, tmp_path / "scored", "-o", tmp_path / "mixed")
    registers = pd.read_csv(tmp_path / "mixed" / "registers.csv")
    first, second = (registers[registers["model"] == m] for m in registers["model"].unique())
    np.testing.assert_allclose(first["value"], second["value"], rtol=0, atol=TOL)

    # folders scored apart merge into the very folder one run of both models writes
    other = tiny_models["causal"]
    _score(release, [other], tmp_path / "other")
    run_cli("score", "merge", tmp_path / "scored", tmp_path / "other", "-o", tmp_path / "merged")
    _score(release, [bos_model, other], tmp_path / "single")
    for table in ("scores.csv", "registers.csv", "comparisons.csv", "item_bias.csv"):
        merged = (tmp_path / "merged" / table).read_bytes()
        assert merged == (tmp_path / "single" / table).read_bytes(), table
    models = [json.loads((tmp_path / f / "models.json").read_text()) for f in ("merged", "single")]
    assert models[0] == models[1]
