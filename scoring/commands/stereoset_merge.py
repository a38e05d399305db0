"""``score merge`` for ``score stereoset`` folders: each model's sentence scores and methods are
read back from its per-model folder (``sentences.csv``, ``identity.json``), which is copied as
it is, and every across-model file is rebuilt by the writer a multi-model run uses
(``write_stereoset``): the same results, intervals, comparisons, Spearman and report.

The items are rebuilt from the models' ``sentences.csv`` (item, split, domain, term and each
sentence's id and label), in the order the run scored them, so the release itself is not
needed on the machine that merges; items no model scored are not counted in the report.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import fields
from pathlib import Path

import pandas as pd

from biasforge.errors import InputError
from biasforge.files import staged_directory, write_json_atomic
from biasforge.scoring.commands.common import RunOptions, free_name, listed, resampling_of
from biasforge.scoring.commands.stereoset import Scored, write_stereoset
from biasforge.scoring.folders import ScoreFolder
from biasforge.scoring.interface import ModelIdentity

TEXT = ("item_id", "split", "bias_type", "target", "sentence_id", "label", "sentence")


def merge_stereoset(folders: list[ScoreFolder], out: Path, overwrite: bool = False) -> Path:
    """One multi-model folder from ``score stereoset`` folders of the same release."""
    run = {**folders[0].options, "merged_from": [f.path.name for f in folders]}
    options = RunOptions(resampling=resampling_of(run), limit=run.get("limit"))
    with staged_directory(out, overwrite=overwrite, kind="score") as stage:
        scored, sentences = {}, []
        for folder in folders:
            for entry in folder.models:
                recorded = str(entry.get("name") or "model")
                name = free_name(recorded, scored)
                rows = _sentences(folder.path / recorded)
                scored[name] = _scored(folder.path / recorded, rows, entry, name)
                _copy_model(folder.path / recorded, stage / name, name)
                sentences.append(rows)
        items = _items(sentences)
        write_stereoset(stage, folders[0].release, listed(folders), items, scored, options, run)
    return out


def _sentences(folder: Path) -> pd.DataFrame:
    """A model's ``sentences.csv``: text columns as written, ``score`` as floats."""
    path = folder / "sentences.csv"
    if not path.is_file():
        raise InputError(folder, "no sentences.csv (is it a model folder of 'score stereoset'?)")
    rows = pd.read_csv(path, dtype=dict.fromkeys(TEXT, str), keep_default_na=False)
    missing = [c for c in (*TEXT, "score") if c not in rows.columns]
    if missing:
        raise InputError(path, f"missing column(s) {', '.join(missing)}")
    return rows.assign(score=pd.to_numeric(rows["score"], errors="coerce"))


def _scored(folder: Path, rows: pd.DataFrame, entry: dict, name: str) -> Scored:
    """The model as the writer takes it: scores, methods (``identity.json``), identity
    (``models.json``); the scoring time is not known here (NaN)."""
    if not (folder / "identity.json").is_file():
        raise InputError(folder, "no identity.json (is it a model folder of 'score stereoset'?)")
    recorded = json.loads((folder / "identity.json").read_text(encoding="utf-8"))
    methods = {k: str(recorded.get(k, "")) for k in ("procedure", "intrasentence", "intersentence")}
    known = {f.name for f in fields(ModelIdentity)}
    identity = ModelIdentity(**{**{k: v for k, v in entry.items() if k in known}, "name": name})
    scores = dict(zip(rows["sentence_id"], rows["score"].astype(float), strict=True))
    return Scored(scores, methods, identity, float("nan"))


def _copy_model(source: Path, target: Path, name: str) -> None:
    """The model's own files as they are; ``identity.json`` names it as the merged folder does."""
    shutil.copytree(source, target)
    identity = json.loads((target / "identity.json").read_text(encoding="utf-8"))
    if identity.get("name") != name:
        write_json_atomic(target / "identity.json", {**identity, "name": name})


def _items(sentences: list[pd.DataFrame]) -> pd.DataFrame:
    """The scored items in the contract's columns the writer reads (one row per item)."""
    rows = pd.concat(sentences, ignore_index=True).drop_duplicates("sentence_id")
    items = []
    for item_id, group in rows.groupby("item_id", sort=False):
        first = group.iloc[0]
        listed_sentences = group[["sentence_id", "label", "sentence"]].rename(
            columns={"sentence_id": "id"}
        )
        items.append(
            {
                "id": item_id,
                "split": first["split"],
                "bias_type": first["bias_type"],
                "target": first["target"],
                "sentences": listed_sentences.to_dict("records"),
            }
        )
    return pd.DataFrame(items)
