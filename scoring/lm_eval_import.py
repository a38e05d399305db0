"""``score import-lm-eval``: lm-evaluation-harness results of an exported release's tasks
(``export convert --format lm-eval``, run with ``--log_samples``) back into a biasforge score
folder, the same files ``biasforge score <family>`` writes.

lm-eval logs, per document, each choice's ``loglikelihood`` (sum of token log-probabilities)
and the document itself (with each choice's token count, for a family whose figures need
them). A :class:`ReplayedLM` answers biasforge's generic questions from those values, and the
scoring task the family names in its ``lm_eval`` hook runs on it through the one runner, so
every figure, interval, comparison, plot and report comes from the family's own scoring code,
not a second implementation. The
questions it answers are the ones lm-eval asked: a sentence after the model's start token, a
continuation after its context. For a causal model whose tokenizer starts texts with BOS
(Gemma, Llama) these equal ``biasforge score``'s reading of every family; for GPT-2-style
models StereoSet intrasentence and SlguSet differ (the official generative code reads tokens
after the first without the start token), while CrowS-Pairs and StereoSet intersentence agree.

Results are accepted only from tasks built from the release given with ``--dataset``: each
task's metadata (copied by lm-eval into ``results_*.json``) carries the release's name, version
and sha256, checked by the score-folder contract (``check_same_release``), and a results
folder given twice is refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from biasforge.contract.score import check_distinct, check_same_release, release_of_task
from biasforge.errors import BiasforgeError, InputError
from biasforge.families import Family
from biasforge.scoring.data import dataset_identity
from biasforge.scoring.interface import Capability, FilledSentence, LanguageModel, ModelIdentity
from biasforge.scoring.model_spec import ModelSpec
from biasforge.scoring.runner import RunOptions, ScoreRequest, run_task, unique_names
from biasforge.scoring.tasks import load_task
from biasforge.textfiles import read_bytes

PROCEDURE = (
    "lm-evaluation-harness loglikelihood (imported): token probabilities after the start token "
    "(a continuation: after its context)"
)


@dataclass
class Run:
    """One model's lm-eval results for the release's tasks."""

    spec: str  # pretrained=… of --model_args
    config: dict
    values: dict[tuple[str, str], tuple[float, int]] = field(default_factory=dict)
    tasks: list[str] = field(default_factory=list)


class ReplayedLM(LanguageModel):
    """Answers sentence and continuation questions from logged lm-eval log-likelihoods.

    Each answer is an array of the sentence's token count holding the mean log-probability,
    so its sum is lm-eval's log-likelihood and its mean the per-token mean (StereoSet's
    geometric mean); the per-token values themselves are not logged by lm-eval."""

    kind = "causal"
    capabilities: ClassVar[Mapping[Capability, str]] = {
        Capability.SCORE_SENTENCE: PROCEDURE,
        Capability.SCORE_CONTINUATION: PROCEDURE,
    }

    def __init__(self, name: str, run: Run) -> None:
        super().__init__(name)
        self.run = run
        self.identity = _identity(name, run)

    def _answer(self, context: str, text: str) -> np.ndarray:
        found = self.run.values.get((context, text))
        if found is None:
            raise BiasforgeError(
                f"{self.name}: the lm-eval results hold no log-likelihood of {text!r}"
                + (f" after {context!r}" if context else "")
                + f" (tasks {', '.join(self.run.tasks)}); were they run on the whole release?"
            )
        total, count = found
        return np.full(max(count, 1), total / max(count, 1))

    def sentence_logprobs(self, requests: Sequence[FilledSentence]) -> list[np.ndarray]:
        return [self._answer("", r.sentence) for r in requests]

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        return [self._answer(context, text) for context, text in pairs]

    def parameter_count(self) -> int:
        return self.identity.parameters

    def close(self) -> None:
        """Nothing to free: the values are the results files'."""


def _identity(name: str, run: Run) -> ModelIdentity:
    from biasforge.scoring.models import weights_sha256

    args = _model_args(run.config.get("model_args"))
    folder = Path(run.spec)
    sha, of = weights_sha256(folder) if run.spec and folder.is_dir() else ("", "")
    return ModelIdentity(
        name=name,
        display=f"{name} (lm-eval {run.config.get('model', '?')} backend)",
        source=_public(run.spec),
        kind=f"causal (lm-eval {run.config.get('model', '?')})",
        revision=str(args.get("revision", "")),
        sha256=sha,
        sha256_of=of,
        dtype=str(args.get("dtype", "")),
        parameters=int(run.config.get("model_num_parameters") or 0),
    )


def _public(spec: str) -> str:
    """A hub id as given; a path (of this or the machine lm-eval ran on) by its folder name."""
    return Path(spec).name if spec.startswith(("/", "~", ".")) or "\\" in spec else spec


def _model_args(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    pairs = [part.split("=", 1) for part in str(value or "").split(",") if "=" in part]
    return {k.strip(): v.strip() for k, v in pairs}


def _results_files(folders: Sequence[Path]) -> list[Path]:
    check_distinct(folders, "lm-eval results folder")
    found = []
    for folder in folders:
        if not Path(folder).is_dir():
            raise InputError(folder, "not a folder of lm-eval results (--output_path)")
        files = sorted(Path(folder).rglob("results_*.json"))
        if not files:
            raise InputError(folder, "no results_*.json: not an lm-eval --output_path folder")
        found += files
    return found


def _samples(results: Path, task: str) -> Path:
    stamp = results.stem.removeprefix("results_")
    path = results.with_name(f"samples_{task}_{stamp}.jsonl")
    if not path.is_file():
        raise InputError(results, f"no {path.name} beside it: run lm_eval with --log_samples")
    return path


def _loglikelihoods(sample: dict, where: Path) -> list[float]:
    try:
        return [float(resp[0][0]) for resp in sample["resps"]]
    except (KeyError, IndexError, TypeError, ValueError):
        raise InputError(
            where, "a sample without log-likelihoods", record=sample.get("doc_id")
        ) from None


def _read_task(run: Run, samples: Path) -> None:
    """Add every choice's (log-likelihood, token count) of one task's samples to ``run``; a
    document that logs token counts (its family's figures need them) must have them all."""
    text = read_bytes(samples, "an lm-eval samples file").decode("utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        try:
            sample = json.loads(line)
            doc = sample["doc"]
        except (ValueError, KeyError):
            raise InputError(samples, "not an lm-eval samples line", line=number) from None
        lls = _loglikelihoods(sample, samples)
        counts = doc.get("tokens")
        if counts is not None and not all(counts):
            raise InputError(
                samples,
                "no token counts in the logged document: the task could not load the model's "
                "tokenizer (pass --model_args pretrained=… or tokenizer=…), and its figures "
                "(a mean over tokens) need them",
                line=number,
            )
        counts = counts or [0] * len(lls)
        for choice, ll, count in zip(doc["choices"], lls, counts, strict=True):
            run.values[(doc["context"], choice)] = (ll, int(count))


def read_runs(folders: Sequence[Path], source: dict, family: str) -> list[Run]:
    """One :class:`Run` per results file holding tasks of ``family``, each task checked
    against the release (tasks of other families in the same results are left alone)."""
    runs = []
    for results in _results_files(folders):
        try:
            data = json.loads(read_bytes(results, "an lm-eval results file").decode("utf-8"))
            configs, config = data["configs"], data.get("config", {})
        except (ValueError, KeyError, TypeError):
            raise InputError(results, "not an lm-eval results file") from None
        spec = str(_model_args(config.get("model_args")).get("pretrained", "model"))
        run = Run(spec, config)
        for task, task_config in sorted(configs.items()):
            meta = task_config.get("metadata") or {}
            if meta.get("biasforge_family") != family:
                continue  # another task of the same lm-eval run
            where = f"{results} (task {task})"
            check_same_release(where, release_of_task(meta), source, "--dataset is")
            _read_task(run, _samples(results, task))
            run.tasks.append(task)
        if run.tasks:
            runs.append(run)
    if not runs:
        raise BiasforgeError(
            f"{', '.join(map(str, folders))}: no {family} task exported by biasforge "
            "(export convert --format lm-eval) in these results"
        )
    return runs


def _family(dataset: str) -> Family:
    from biasforge import families
    from biasforge.contract.folders import read_items

    frame = read_items(dataset).frame
    if "family" not in frame.columns:
        raise InputError(dataset, "no 'family' column: these are not biasforge items")
    return families.family_of(frame["family"].unique(), dataset)


def import_lm_eval(
    folders: Sequence[Path], dataset: str, out: Path, options: RunOptions
) -> tuple[str, Path]:
    """Write the score folder of ``dataset``'s family from lm-eval results; the family."""
    family = _family(dataset)
    hook = family.lm_eval
    reference = hook and (hook.score or next(iter(family.scoring_tasks), None))
    if not reference:
        raise BiasforgeError(f"{family.name}: no lm-eval import for this family")
    task = load_task(reference)
    source = dataset_identity(dataset)
    runs = read_runs(folders, source, family.name)
    names = unique_names([ModelSpec.parse(_public(run.spec)) for run in runs])
    replayed = dict(zip(names, runs, strict=True))

    def models_from(models: list[ModelSpec], _options: Any) -> Iterator[tuple[str, LanguageModel]]:
        for model in models:
            yield model.given, ReplayedLM(model.given, replayed[model.given])

    listed = [ModelSpec.parse(name) for name in names]  # the manifest lists the models by name
    request = ScoreRequest(dataset, listed, out, options, tuple(map(Path, folders)))
    run_task(task, request, task.settings(options), models_from=models_from)
    return family.name, out
