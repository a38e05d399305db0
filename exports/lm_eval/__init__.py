"""``export convert RELEASE --format lm-eval --out DIR``: a task folder for EleutherAI's
lm-evaluation-harness (0.4.x), so a release runs on lm-eval's backends (HF, vLLM, SGLang, API
servers with log-probabilities) and its results come back with ``score import-lm-eval``.

The folder is portable: the release's parquet files are copied into ``data/`` and read by
``utils.load_docs`` relative to ``utils.py`` (lm-eval's ``custom_dataset``), so nothing is
downloaded and no path of this machine is written. One task per config, named after the
release (``biasforge_<name>_<version>_<config>``), and a group task of the same prefix runs
the whole release. Each task's ``metadata`` carries the release's name, version, sha256 (as
``biasforge score`` records it), family, config and split; lm-eval copies task configs into
its ``results_*.json``, which is how the import checks that results came from this release.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from biasforge.contract.folders import combined_sha256, read_items
from biasforge.contract.release import KIND as RELEASE
from biasforge.errors import BiasforgeError, InputError

UTILS = Path(__file__).with_name("task_utils.py")


@dataclass(frozen=True)
class Layout:
    """How one family's documents are asked and scored in lm-eval."""

    family: str
    process_results: str
    metrics: tuple[tuple[str, str, bool], ...]  # (metric, aggregation, higher is better)


COUNT = "!function utils.count"
LAYOUTS = {
    "stereoset": Layout(
        "stereoset",
        "stereoset_results",
        (
            ("lms", "!function utils.stereoset_lms", True),
            ("ss", "!function utils.stereoset_ss", False),
            ("icat", "!function utils.stereoset_icat", True),
        ),
    ),
    "crowspairs": Layout(
        "crowspairs",
        "crowspairs_results",
        (("likelihood_diff", "mean", False), ("pct_stereotype", "mean", False)),
    ),
    "slguset": Layout(
        "slguset",
        "slguset_results",
        (
            ("mean_bias", "mean", False),
            ("clear_male", COUNT, False),
            ("clear_female", COUNT, False),
        ),
    ),
}


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


def _task_yaml(task: str, data_file: str, layout: Layout, meta: dict, inter: bool) -> str:
    metrics = "".join(
        f"  - metric: {m}\n    aggregation: {agg}\n    higher_is_better: {str(hi).lower()}\n"
        for m, agg, hi in layout.metrics
    )
    return (
        f"task: {task}\n"
        "custom_dataset: !function utils.load_docs\n"
        f"dataset_kwargs:\n  data_file: {data_file}\n  family: {layout.family}\n"
        "test_split: test\n"
        "output_type: multiple_choice\n"
        'doc_to_text: "{{context}}"\n'
        "doc_to_target: 0\n"
        "doc_to_choice: !function utils.doc_to_choice\n"
        f'target_delimiter: "{" " if inter else ""}"\n'
        f"process_results: !function utils.{layout.process_results}\n"
        f"metric_list:\n{metrics}"
        "metadata:\n" + "".join(f"  {key}: {json.dumps(value)}\n" for key, value in meta.items())
    )


def write_folder(items: pd.DataFrame, out: Path, source: Path, layout: Layout) -> str:
    """Write the task folder (see the module docstring); the summary line."""
    out = Path(out)
    if out.exists():
        raise BiasforgeError(f"--out {out}: already exists; give a new folder for the tasks")
    release = release_identity(Path(source))
    prefix = task_prefix(release["name"], release["version"])
    stage = out.with_name(f".{out.name}.partial")
    shutil.rmtree(stage, ignore_errors=True)
    (stage / "data").mkdir(parents=True)
    shutil.copyfile(UTILS, stage / "utils.py")
    tasks = []
    for config, entry in release["configs"].items():
        task = f"{prefix}_{re.sub(r'[^A-Za-z0-9_]', '_', config)}"
        data_file = f"data/{re.sub(r'[^A-Za-z0-9_.-]', '_', config)}.parquet"
        shutil.copyfile(release["root"] / entry["file"], stage / data_file)
        meta = {
            "version": 1.0,
            "biasforge_release": release["name"],
            "biasforge_release_version": release["version"],
            "biasforge_release_sha256": release["sha256"],
            "biasforge_family": layout.family,
            "biasforge_config": config,
            "biasforge_split": str(entry.get("split", "test")),
        }
        inter = layout.family == "stereoset" and config == "intersentence"
        text = _task_yaml(task, data_file, layout, meta, inter)
        (stage / f"{task}.yaml").write_text(text, encoding="utf-8")
        tasks.append(task)
    group = "".join(f"  - {t}\n" for t in tasks)
    (stage / f"{prefix}.yaml").write_text(
        f"group: {prefix}\ntask:\n{group}metadata:\n  version: 1.0\n", encoding="utf-8"
    )
    stage.rename(out)
    return (
        f"wrote lm-eval tasks {', '.join(tasks)} (group {prefix}) to {out}; run: lm_eval "
        f"--model hf --model_args pretrained=MODEL --include_path {out} --tasks {prefix} "
        "--log_samples --output_path RESULTS"
    )


def _writer(family: str):
    def write(items: pd.DataFrame, out: Path, *, source: Path, **_: object) -> str:
        return write_folder(items, out, source, LAYOUTS[family])

    write.__doc__ = f"``export convert --format lm-eval`` for {family} releases."
    return write


write_stereoset = _writer("stereoset")
write_crowspairs = _writer("crowspairs")
write_slguset = _writer("slguset")
