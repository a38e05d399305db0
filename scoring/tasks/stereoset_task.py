"""``score stereoset``: the official procedure and evaluator per model, with intervals, paired
comparisons, the French paper's tables and figures.

Per model: ``predictions.json`` (official layout), ``gold.json`` (the items that model scored,
in the official StereoSet JSON layout, so that StereoSet's own ``evaluation.py --gold-file
gold.json --predictions-file predictions.json`` accepts the pair whatever was left unscored: a
split without scores, ``--split``, ``--limit``), ``results.json`` (the official evaluator's
output, untouched), ``sentences.csv`` and ``identity.json``. Across models: ``results.csv``
(every split × domain with ``_low``/``_high`` interval bounds), ``comparisons.csv``,
``item_bias.csv``, ``spearman.json``, the figures, ``models.json`` and ``manifest.json``
(the tables and the report: ``biasforge.scoring.tasks.stereoset_report``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from biasforge import families
from biasforge.errors import BiasforgeError, InputError
from biasforge.families.base import as_list
from biasforge.files import write_json_atomic
from biasforge.scoring.data import load_items
from biasforge.scoring.interface import LanguageModel, NSPTraining
from biasforge.scoring.stereoset_eval import SPLITS, official_results, read_predictions
from biasforge.scoring.tasks import Answers, ItemBias, Results, ScoringTask, stereoset
from biasforge.scoring.tasks import nsp as nsp_mod
from biasforge.scoring.tasks import stereoset_report as report
from biasforge.textfiles import check_encoding

GOLD = report.GOLD
TEXT = ("item_id", "split", "bias_type", "target", "sentence_id", "label", "sentence")


MAX_NSP_STEPS = 100_000  # StereoSet's own NSP training runs a few thousand steps
MAX_NSP_BATCH = 4_096
NSPEncoding = Annotated[str, typer.Option(help="Encoding of --nsp-corpus (e.g. gb18030).")]


@dataclass(frozen=True)
class NSPOptions:
    """Intersentence NSP: ``mode`` head (frozen model) or finetune (the paper's), on
    ``corpus``; or a head saved by an earlier run (``head``)."""

    mode: str = "head"
    corpus: Path | None = None
    head: Path | None = None
    encoding: str = "utf-8"  # of the corpus
    training: NSPTraining = field(default_factory=NSPTraining)
    progress: bool = False  # a progress bar over the fine-tuning steps


@dataclass(frozen=True)
class Settings:
    split: str = "all"
    nsp: NSPOptions = field(default_factory=NSPOptions)
    procedure: str = "official"


class StereoSet(ScoringTask):
    """LMS, SS and ICAT (official StereoSet procedure and evaluator) per domain and split,
    with bootstrap intervals and paired comparisons of models."""

    name = family = "stereoset"
    title = "StereoSet scores"
    per_item = "sentences.csv"
    per_model = True
    item_id = "item_id"  # rows are per sentence
    item_bias = ItemBias(
        "score", "log P(stereotype) − log P(anti-stereotype)", "StereoSet",
        "Per-item bias across models", index="item_id",
    )  # fmt: skip

    def settings(
        self,
        options,
        split: Annotated[str, typer.Option(help="intrasentence | intersentence | all")] = "all",
        nsp_corpus: Annotated[
            Path | None,
            typer.Option(
                help="Corpus for intersentence NSP: UTF-8, one sentence per line, a blank line "
                "between documents (the paper used French Wikipedia)."
            ),
        ] = None,
        nsp_encoding: NSPEncoding = "utf-8",
        nsp_train: Annotated[
            str,
            typer.Option(
                help="finetune: fine-tune a copy of the model with an NSP head on --nsp-corpus "
                "(the paper's procedure); head: train only a linear head on the frozen model."
            ),
        ] = "head",
        nsp_steps: Annotated[
            int, typer.Option(min=1, max=MAX_NSP_STEPS, help="NSP optimiser steps.")
        ] = 200,
        nsp_batch: Annotated[
            int, typer.Option(min=1, max=MAX_NSP_BATCH, help="NSP fine-tuning batch size.")
        ] = 16,
        nsp_lr: Annotated[
            float, typer.Option(help="NSP fine-tuning learning rate of the model.")
        ] = 5e-6,
        nsp_head_lr: Annotated[
            float, typer.Option(help="NSP fine-tuning learning rate of the head.")
        ] = 1e-3,
        nsp_head: Annotated[
            Path | None,
            typer.Option(
                help="Reuse an NSP head saved by an earlier run (<out>/<model>/nsp_head.pt)."
            ),
        ] = None,
        procedure: Annotated[
            str,
            typer.Option(
                help="Masked LMs' intrasentence attribute. official (default): the sentence's "
                "word at the BLANK word's position, punctuation stripped, as StereoSet's "
                "dataloader.py (glued words included: 'sometimes.BLANK' reads "
                "'sometimespriest'); filler: the stored filler in the BLANK's place."
            ),
        ] = "official",
    ) -> Settings:
        if split not in (*SPLITS, "all"):
            raise typer.BadParameter("split must be intrasentence, intersentence or all")
        if procedure not in stereoset.PROCEDURES:
            raise typer.BadParameter(f"--procedure must be {' or '.join(stereoset.PROCEDURES)}")
        if nsp_train not in nsp_mod.MODES:
            raise typer.BadParameter("--nsp-train must be finetune or head")
        if nsp_train == "finetune" and (nsp_corpus is None or nsp_head is not None):
            raise typer.BadParameter("--nsp-train finetune needs --nsp-corpus (and no --nsp-head)")
        if nsp_head is not None:
            nsp_mod.NSPHead.load(nsp_head)  # a bad file is refused before any model is loaded
        for option, rate in (("--nsp-lr", nsp_lr), ("--nsp-head-lr", nsp_head_lr)):
            if not 0 < rate < math.inf:  # NaN fails too
                raise typer.BadParameter(f"{option} must be a positive number, not {rate}")
        encoding = check_encoding(nsp_encoding, "--nsp-encoding")
        if nsp_corpus is not None and nsp_head is None:  # read now: refused before any model
            nsp_mod.read_corpus(nsp_corpus, encoding)
        training = NSPTraining(
            steps=nsp_steps, batch_size=nsp_batch, core_lr=nsp_lr, head_lr=nsp_head_lr,
            seed=options.resampling.seed,
        )  # fmt: skip
        nsp = NSPOptions(
            nsp_train, nsp_corpus, nsp_head, encoding, training, options.model.progress,
        )  # fmt: skip
        return Settings(split, nsp, procedure)

    def select(self, items: pd.DataFrame, settings: Settings, limit, where: str) -> pd.DataFrame:
        if settings.split != "all":
            items = items[items["split"] == settings.split]
        if limit:
            items = items.groupby("split", group_keys=False).head(limit)
        if items.empty:
            raise BiasforgeError(f"no StereoSet items for split {settings.split!r} in {where}")
        items = items.reset_index(drop=True)
        stereoset.examples_from(items, where)  # every item checked before a model is loaded
        return items

    def inputs(self, settings: Settings) -> list[Path]:
        return [p for p in (settings.nsp.corpus, settings.nsp.head) if p is not None]

    def run_options(self, settings: Settings, items: pd.DataFrame) -> dict:
        nsp = settings.nsp
        return {
            "split": settings.split, "procedure": settings.procedure, "nsp_train": nsp.mode,
            "nsp_corpus": str(nsp.corpus or ""), "nsp_head": str(nsp.head or ""),
            "nsp_encoding": nsp.encoding,
            "nsp_training": asdict(nsp.training),
        }  # fmt: skip

    def score(self, lm: LanguageModel, items: pd.DataFrame, settings: Settings, folder: Path):
        """Intra- and intersentence scores, and the model's official files."""
        intra = items[items["split"] == "intrasentence"]
        inter = items[items["split"] == "intersentence"]
        procedure = settings.procedure
        scores = stereoset.score_intrasentence(lm, intra, procedure=procedure)
        scorer, label = _nsp_scorer(lm, settings.nsp, folder) if not inter.empty else (None, "")
        inter_scores, inter_method = stereoset.score_intersentence(lm, inter, scorer, label)
        scores.update(inter_scores)
        intra_method = stereoset.intrasentence_method(lm, procedure) if not intra.empty else "none"
        methods = {"procedure": procedure, "intrasentence": intra_method}
        methods["intersentence"] = inter_method
        write_json_atomic(folder / "predictions.json", stereoset.predictions_json(items, scores))
        gold = _write_gold(items, scores, folder / GOLD)
        chosen = [e for e in stereoset.examples_from(items) if e.stereotype in scores]
        write_json_atomic(folder / "results.json", official_results(chosen, scores))
        return Answers(_sentence_table(items, scores), methods, {"gold": gold})

    def read_rows(self, path: Path) -> pd.DataFrame:
        """A model's ``sentences.csv``: text columns as written, ``score`` as floats."""
        rows = pd.read_csv(path, dtype=dict.fromkeys(TEXT, str), keep_default_na=False)
        missing = [c for c in (*TEXT, "score") if c not in rows.columns]
        if missing:
            raise InputError(path, f"missing column(s) {', '.join(missing)}")
        return rows.assign(score=pd.to_numeric(rows["score"], errors="coerce"))

    def items_from_rows(self, rows: list[pd.DataFrame]) -> pd.DataFrame:
        return report.items_from_sentences(rows)

    def tables(self, results: Results) -> dict:
        return report.tables(results)

    def pairing(self, results: Results, a: str, b: str) -> tuple:
        return report.pairing(results, a, b)

    def bias(self, results: Results, name: str) -> dict:
        scores = report.scores(results.scored[name])
        chosen = [e for e in stereoset.examples_from(results.items) if e.stereotype in scores]
        return stereoset.item_bias(chosen, scores)

    def intro(self, results: Results) -> list:
        return report.intro(results)

    def body(self, results: Results) -> list:
        return report.body(results)

    def shown(self, results: Results, name: str) -> dict:
        return {"procedure": results.scored[name].procedure.get("procedure", "")}

    def recorded(self, results: Results, name: str) -> dict:
        return {}  # the procedure stays in <model>/identity.json


def _write_gold(items: pd.DataFrame, scores: dict[str, float], path: Path) -> str:
    """The items this model scored, in the official StereoSet JSON (the family's
    ``stereoset-json`` format), for StereoSet's ``evaluation.py``: it looks up a score for
    every sentence of its gold file, so the full release fails (``KeyError``) where a split
    was not scored. Returns "" when written, else why not (for the report)."""
    scored = items[items["sentences"].map(lambda ss: _all_scored(ss, scores))]
    if scored.empty:
        return "no item scored"
    layout = families.get(StereoSet.family).format("stereoset-json")
    try:
        layout.write(scored, path, label="biasforge score stereoset")
    except BiasforgeError as exc:  # an item the official loader would refuse
        return f"not written: {exc}"
    return ""


def _all_scored(sentences, scores: dict[str, float]) -> bool:
    return all(s["id"] in scores for s in as_list(sentences))


def _nsp_scorer(
    lm: LanguageModel, nsp: NSPOptions, folder: Path
) -> tuple[nsp_mod.Scorer | None, str]:
    """(scorer of (context, sentence) pairs, its name in the report), or (None, "")."""
    if nsp.head is not None:
        head = nsp_mod.NSPHead.load(nsp.head)
        return partial(head, lm), f"NSP head from {nsp.head.name} (frozen model)"
    if nsp.corpus is None:
        return None, ""
    steps = nsp.training.steps
    if nsp.mode == "finetune":
        scorer = nsp_mod.finetune(lm, nsp.corpus, nsp.training, nsp.progress, nsp.encoding)
        return scorer, f"fine-tuned with an NSP head on {nsp.corpus.name} ({steps} steps)"
    head = nsp_mod.train_head(
        lm, nsp.corpus, steps=steps, seed=nsp.training.seed, progress=False, encoding=nsp.encoding
    )
    head.save(folder / "nsp_head.pt")
    return partial(head, lm), f"trained NSP head on {nsp.corpus.name} (frozen model)"


def _sentence_table(items: pd.DataFrame, scores: dict[str, float]) -> pd.DataFrame:
    rows = []
    for row in items.itertuples(index=False):
        for s in as_list(row.sentences):
            if s["id"] in scores:
                rows.append(
                    {
                        "item_id": row.id,
                        "split": row.split,
                        "bias_type": row.bias_type,
                        "target": row.target,
                        "sentence_id": s["id"],
                        "label": s["label"],
                        "sentence": s["sentence"],
                        "score": scores[s["id"]],
                    }
                )
    return pd.DataFrame(rows)


def evaluate_predictions(dataset: str, predictions: Path) -> dict:
    """Official evaluator numbers for a predictions JSON file against a dataset's items.

    A file in a score folder comes from the release that folder scored: it is evaluated only
    on the same release (name, version, sha256). A file from elsewhere carries no release
    identity, so it must predict every item of the splits it holds, and nothing else."""
    from biasforge.contract.score import check_same_release, enclosing_score_folder
    from biasforge.scoring.data import dataset_identity

    path = Path(predictions)
    items = load_items(dataset, StereoSet.family)
    scores = read_predictions(path)
    folder = enclosing_score_folder(path)
    if folder is not None:
        check_same_release(path, folder.release, dataset_identity(dataset), "--dataset is")
    examples = stereoset.examples_from(items, dataset)
    chosen = _predicted(examples, scores, path)
    if folder is None:
        _check_whole_splits(examples, chosen, path)
    return official_results(chosen, scores)


def _predicted(examples: list, scores: dict[str, float], path: Path) -> list:
    """The examples whose three sentences are predicted; a predicted id that is no sentence
    of the dataset, or an item predicted in part, is refused."""
    ids = {s for e in examples for s in (e.stereotype, e.anti_stereotype, e.unrelated)}
    stray = [key for key in scores if key not in ids]
    if stray:
        raise InputError(
            path,
            f"{len(stray)} predicted id(s) are no sentence of --dataset (first: {stray[0]!r}): "
            "predictions of another dataset",
        )
    chosen = []
    for e in examples:
        have = sum(s in scores for s in (e.stereotype, e.anti_stereotype, e.unrelated))
        if have == 3:
            chosen.append(e)
        elif have:
            raise InputError(path, f"item {e.id}: {have} of its 3 sentences predicted")
    if not chosen:
        raise BiasforgeError(f"{path}: no prediction matches the dataset's sentence ids")
    return chosen


def _check_whole_splits(examples: list, chosen: list, path: Path) -> None:
    """A predictions file outside a score folder predicts every item of its splits."""
    for split in sorted({e.split for e in chosen}):
        total = sum(e.split == split for e in examples)
        done = sum(e.split == split for e in chosen)
        if done < total:
            raise InputError(
                path,
                f"predicts {done} of the {total} {split} items of --dataset and lies in no "
                "score folder (which would name its release): a predictions file from "
                "elsewhere must predict every item of the splits it holds",
            )


TASK = StereoSet()
