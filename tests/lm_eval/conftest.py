"""One real lm-evaluation-harness run shared by the tests of this folder.

A tiny random GPT-2-shaped model whose tokenizer starts every text with BOS (as Gemma's and
Llama's do) is built offline; the StereoSet, CrowS-Pairs (the bundled English sample) and
SlguSet demo releases are exported as lm-eval task folders; and ``lm_eval`` (its CLI, ``--model
hf``, CPU, ``--log_samples``) runs all of them at once, together with lm-eval's own
``crows_pairs_english`` task (its YAML and ``utils.py`` from the installed package, pointed at
the same pairs in a local CSV, since the Hub is not reachable here).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.helpers import write_release
from tests.scoring.conftest import (
    stereoset_items,
)
from tests.scoring.test_slguset_becpro import slguset_items

OWN_CROWS = "crows_pairs_english_local"


@pytest.fixture(scope="session")
def releases(shared, crowspairs_en) -> dict[str, Path]:
    """The three releases the lm-eval run exports (built once per test run: read-only)."""

    def build(root: Path) -> None:
        write_release(stereoset_items(), root, "stereoset-demo", "1.0.0", by="split")
        write_release(slguset_items(), root, "slguset-demo", "1.0.0", by="language")

    root = shared.folder("lm-eval-releases", build)
    return {
        "stereoset": root / "stereoset-demo" / "1.0.0",
        "crowspairs": crowspairs_en["release"],
        "slguset": root / "slguset-demo" / "1.0.0",
    }


def own_crows_task(folder: Path, csv: Path) -> None:
    """lm-eval's crows_pairs_english YAML and utils.py, reading ``csv`` instead of the Hub."""
    import lm_eval

    source = Path(lm_eval.__file__).parent / "tasks" / "crows_pairs"
    folder.mkdir()
    shutil.copyfile(source / "utils.py", folder / "utils.py")
    text = (source / "crows_pairs_english.yaml").read_text()
    assert "dataset_path: jannalu/crows_pairs_multilingual\ndataset_name: english\n" in text
    text = text.replace(
        "dataset_path: jannalu/crows_pairs_multilingual\ndataset_name: english\n",
        f"dataset_path: csv\ndataset_kwargs:\n  data_files:\n    test: {csv}\n",
    ).replace("task: crows_pairs_english", f"task: {OWN_CROWS}")
    (folder / f"{OWN_CROWS}.yaml").write_text(text)


@pytest.fixture(scope="session")
def lm_eval_run(shared, releases, bos_model) -> dict:
    """Export the three releases, then one lm_eval run over all of them (and lm-eval's own
    CrowS-Pairs task); the task folders and the results folder. Made once per test run (the
    tests of this folder may run in several processes): read-only."""
    from biasforge.exports.lm_eval import release_identity, task_prefix

    groups = []
    for release in releases.values():
        identity = release_identity(release)
        groups.append(task_prefix(identity["name"], identity["version"]))

    def build(root: Path) -> None:
        (root / "tasks").mkdir()  # lm-eval takes one --include_path, searched recursively
        for family, release in releases.items():
            run_cli("export", "convert", release, "--format", "lm-eval", "--out",
                    root / "tasks" / family)  # fmt: skip
        csv = root / "crows.csv"
        run_cli("export", "convert", releases["crowspairs"], "--format", "crows-csv", "--out", csv)
        own_crows_task(root / "tasks" / "own-crows", csv)
        run_lm_eval(bos_model, root / "tasks", [*groups, OWN_CROWS], root / "results")

    root = shared.folder("lm-eval-run", build)
    folders = {family: root / "tasks" / family for family in releases}
    return {"tasks": folders, "results": root / "results", "groups": groups, "root": root}


#: lm-eval's own command line (``python -m lm_eval``), with its ``TaskManager`` told not to
#: index the thousands of task YAML files it ships (``include_defaults=False``, a parameter the
#: command line does not offer): every task these tests run is in ``--include_path`` (the stock
#: ones they compare with are copied there), and the index alone took about 13 s a run here.
LM_EVAL_OWN_TASKS_ONLY = """
import functools, sys
from lm_eval.tasks import manager
manager.TaskManager.__init__ = functools.partialmethod(
    manager.TaskManager.__init__, include_defaults=False)
from lm_eval.__main__ import cli_evaluate
sys.argv[0] = "lm_eval"
cli_evaluate()
"""


def run_lm_eval(model: str, include: Path, tasks: list[str], out: Path) -> None:
    """The lm_eval CLI: hf backend, CPU, float32, per-item samples logged; the tasks of
    ``include`` only."""
    command = [
        sys.executable, "-c", LM_EVAL_OWN_TASKS_ONLY, "--model", "hf",
        "--model_args", f"pretrained={model},dtype=float32",
        "--include_path", include,
        "--tasks", ",".join(tasks), "--device", "cpu", "--batch_size", "16",
        "--output_path", out, "--log_samples",
    ]  # fmt: skip
    env = {
        **os.environ,
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    done = subprocess.run(
        list(map(str, command)), capture_output=True, text=True, env=env, timeout=900
    )
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.fixture(scope="session")
def plain_run(shared, lm_eval_run, tiny_models) -> tuple[str, Path]:
    """The GPT-2 of tests/scoring (its tokenizer adds no BOS) through the StereoSet and
    CrowS-Pairs tasks: (model path, results folder). Made once per test run: read-only."""
    tasks, groups = lm_eval_run["root"] / "tasks", lm_eval_run["groups"][:2]
    root = shared.folder(
        "lm-eval-plain", lambda root: run_lm_eval(tiny_models["causal"], tasks, groups, root)
    )
    return tiny_models["causal"], root
