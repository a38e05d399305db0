"""``export convert RELEASE --format lm-eval --out DIR``: a task folder for EleutherAI's
lm-evaluation-harness (0.4.x), so a release runs on lm-eval's backends (HF, vLLM, SGLang, API
servers with log-probabilities) and its results come back with ``score import-lm-eval``.

The folder is portable: the release's parquet files are copied into ``data/`` and read by
``utils.load_docs`` relative to ``utils.py`` (lm-eval's ``custom_dataset``), so nothing is
downloaded and no path of this machine is written. ``utils.py`` is this package's
``task_utils.py``; ``family.py`` is the module the release's family names in its
``Family.lm_eval`` hook (its documents, ``process_results`` and metrics, as plain data and
functions, so any family — one from a plugin too — exports the same way). One task per config,
named after the release (``biasforge_<name>_<version>_<config>``), and a group task of the
same prefix runs the whole release. Each task's ``metadata`` carries the release's name,
version, sha256 (as ``biasforge score`` records it), family, config and split; lm-eval copies
task configs into its ``results_*.json``, which is how the import checks that results came
from this release.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
from pathlib import Path
from types import ModuleType

import pandas as pd

from biasforge import families
from biasforge.contract.exported import KIND, folder_problem
from biasforge.contract.folders import combined_sha256, read_items
from biasforge.contract.manifest import write_manifest
from biasforge.contract.release import KIND as RELEASE
from biasforge.contract.score import task_metadata
from biasforge.errors import BiasforgeError, InputError, OutputExistsError
from biasforge.families.base import LM_EVAL
from biasforge.files import staged_directory

UTILS = Path(__file__).with_name("task_utils.py")


def release_identity(source: Path) -> dict:
    """Name, version and sha256 of a verified release, the sha256 as ``biasforge score``
    records it (one file's own digest, else that of the sorted "file sha256" lines)."""
    items = read_items(source)
    if items.kind != RELEASE or Path(source).resolve() != items.root.resolve():
        raise InputError(source, "--format lm-eval converts a whole release folder")
    listed = items.manifest.get("files", {})
    digests = {name: listed[name] for name in items.tables}
    return {
        "root": items.root,
        "name": str(items.manifest.get("name", "")),
        "version": str(items.manifest.get("version", "")),
        "sha256": combined_sha256(digests),
        "configs": items.manifest.get("configs", {}),
    }


def task_prefix(name: str, version: str) -> str:
    """``biasforge_<name>_<version>``, in the characters lm-eval task names use."""
    return re.sub(r"[^A-Za-z0-9_]", "_", f"biasforge_{name}_{version}")


def family_module(family: families.Family) -> ModuleType:
    """The module a family's ``lm_eval`` hook names; one clear error without one."""
    if family.lm_eval is None:
        raise BiasforgeError(f"{family.name} items do not run in lm-eval (no lm_eval hook)")
    try:
        return importlib.import_module(family.lm_eval.tasks)
    except ImportError as exc:
        raise BiasforgeError(f"{family.name}: lm-eval tasks cannot be loaded: {exc}") from None


def _task_yaml(task: str, data_file: str, module: ModuleType, meta: dict, config: str) -> str:
    metrics = "".join(
        f"  - metric: {m}\n    aggregation: {agg}\n    higher_is_better: {str(hi).lower()}\n"
        for m, agg, hi in module.METRICS
    )
    delimiter = getattr(module, "target_delimiter", lambda _: "")(config)
    return (
        f"task: {task}\n"
        "custom_dataset: !function utils.load_docs\n"
        f"dataset_kwargs:\n  data_file: {data_file}\n"
        "test_split: test\n"
        "output_type: multiple_choice\n"
        'doc_to_text: "{{context}}"\n'
        "doc_to_target: 0\n"
        "doc_to_choice: !function utils.doc_to_choice\n"
        f'target_delimiter: "{delimiter}"\n'
        "process_results: !function family.process_results\n"
        f"metric_list:\n{metrics}"
        "metadata:\n" + "".join(f"  {key}: {json.dumps(value)}\n" for key, value in meta.items())
    )


def _write_folder(
    stage: Path, release: dict, family: families.Family, module: ModuleType, prefix: str
) -> list[str]:
    """utils.py, family.py, the data files and one task per config, then the group task."""
    (stage / "data").mkdir()
    shutil.copyfile(UTILS, stage / "utils.py")
    shutil.copyfile(str(module.__file__), stage / "family.py")
    tasks = []
    for config, entry in release["configs"].items():
        task = f"{prefix}_{re.sub(r'[^A-Za-z0-9_]', '_', config)}"
        data_file = f"data/{re.sub(r'[^A-Za-z0-9_.-]', '_', config)}.parquet"
        shutil.copyfile(release["root"] / entry["file"], stage / data_file)
        meta = {
            "version": 1.0,
            **task_metadata(release),
            "biasforge_family": family.name,
            "biasforge_config": config,
            "biasforge_split": str(entry.get("split", "test")),
        }
        text = _task_yaml(task, data_file, module, meta, config)
        (stage / f"{task}.yaml").write_text(text, encoding="utf-8")
        tasks.append(task)
    group = "".join(f"  - {t}\n" for t in tasks)
    (stage / f"{prefix}.yaml").write_text(
        f"group: {prefix}\ntask:\n{group}metadata:\n  version: 1.0\n", encoding="utf-8"
    )
    return tasks


def write_tasks(items: pd.DataFrame, out: Path, *, source: Path, overwrite: bool = False) -> str:
    """Write the task folder of the release at ``source`` (see the module docstring); the
    summary line. The family comes from the items, its layout from its ``lm_eval`` hook. With
    ``overwrite``, an earlier task folder of the same family's release is replaced (its
    manifest says so; ``biasforge.contract.exported.folder_problem``), nothing else."""
    out = Path(out)
    family = families.family_of(items["family"].unique(), str(source))
    module = family_module(family)
    release = release_identity(Path(source))
    prefix = task_prefix(release["name"], release["version"])
    problem = folder_problem(out, LM_EVAL, family.name) if overwrite and out.exists() else None
    if problem:  # ``export convert`` checked it already; a direct call is held to it too
        raise OutputExistsError(f"--out {out}: {problem}; give a new folder for the tasks")
    with staged_directory(
        out, overwrite=overwrite, kind=KIND, family=family.name, inputs=[source]
    ) as stage:
        tasks = _write_folder(stage, release, family, module, prefix)
        write_manifest(
            stage, KIND, format=LM_EVAL, family=family.name, tasks=tasks,
            release={k: release[k] for k in ("name", "version", "sha256")},
        )  # fmt: skip
    return (
        f"wrote lm-eval tasks {', '.join(tasks)} (group {prefix}) to {out}; run: lm_eval "
        f"--model hf --model_args pretrained=MODEL --include_path {out} --tasks {prefix} "
        "--log_samples --output_path RESULTS"
    )
