"""Each annotator's competence, and competence-weighted decisions, from crowd-kit (issue 38).

Pairwise agreement cannot tell a careless annotator from a minority that is right, and with
three annotators under a majority rule a spammer decides every split record. The
crowdsourcing literature's answer is a model of each annotator fitted to all answers at once;
``crowd-kit`` (Toloka's library) implements the standard ones. Per judged question, from every
submitted answer (items and control items):

* **Dawid–Skene** (``crowdkit.aggregation.DawidSkene``, Dawid & Skene 1979): a confusion
  matrix per annotator and a prior over the answers, fitted by EM; the answers known for
  control items are given to the fit as true labels. Reported: the annotator's estimated
  accuracy, ``Σ_c prior(c) · P(answers c | truth c)``. Its chance level depends on the labels
  (0.5 for yes/no, a third for three labels).
* **MACE** (``crowdkit.aggregation.MACE``, Hovy et al. 2013): each answer is either known (the
  truth) or a guess drawn from the annotator's own habits. Reported: the *competence* θ, the
  probability that an answer was known rather than guessed — near 0 for a random or a
  one-button annotator whatever the number of labels, which is why the ``--min-competence``
  threshold is read on it.

Both models also give each record its most probable answer: the decision rules
``dawid-skene`` and ``mace`` of :mod:`biasforge.annotation.review.decide`.

crowd-kit 1.4.2's MACE draws every restart's starting point from the same ``random_state``,
so its restarts repeat one run: one restart gives the same result in a tenth of the time.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from biasforge.families.base import JOINT_SEPARATOR

MODELS = ("dawid-skene", "mace")
FEW_ANSWERS = 20  # below this many answers to a question, an annotator's estimate is unstable
#: a question whose most common answer is this share of all answers tells the models too
#: little: a careful annotator and a one-button one agree with the majority nearly always
#: (issue 47: on BEC-Pro, 91 % "yes", MACE gave 0.45, 0.43 and 0.50 to annotators 97 % right,
#: 80 % right and always "yes"). Such a question is left out of the annotators' competence.
SKEWED = 0.85
DS_ITERATIONS = 100


@dataclass
class Estimates:
    """Per question: each annotator's figures and notes; per model: each record's answer."""

    questions: dict[str, dict[str, Any]] = field(default_factory=dict)
    labels: dict[str, dict[str, dict[str, str]]] = field(
        default_factory=lambda: {m: {} for m in MODELS}
    )  # model -> record id -> question -> most probable answer

    def answers_for(self, model: str, record: str) -> dict[str, str]:
        return self.labels.get(model, {}).get(record, {})


def _ds_accuracy(model: Any, worker: str) -> float:
    errors, priors = model.errors_, model.priors_
    return float(
        sum(
            priors[c] * errors.loc[(worker, c), c]
            for c in priors.index
            if (worker, c) in errors.index and c in errors.columns
        )
    )


#: fits already made in this process, by content of their answers: every pull fits both models
#: whatever its policy (the report gives both), and comparing policies on the same answers (a
#: notebook, a dry run before the pull) fits the same data again. A fit is a pure function of
#: its answers and known answers, so the same content gives the same models.
_FITS: dict[bytes, tuple[Any, Any]] = {}
_FITS_KEPT = 64


def _content(data: pd.DataFrame, golden: pd.Series) -> bytes:
    rows = pd.util.hash_pandas_object(data, index=False).to_numpy().tobytes()
    known = pd.util.hash_pandas_object(golden.astype(str), index=True).to_numpy().tobytes()
    return hashlib.sha256(rows + b"|" + known).digest()


def _fit(data: pd.DataFrame, golden: pd.Series) -> tuple[Any, Any]:
    key = _content(data, golden)
    if key not in _FITS:
        if len(_FITS) >= _FITS_KEPT:
            _FITS.pop(next(iter(_FITS)))
        _FITS[key] = _fit_models(data, golden)
    return _FITS[key]


def _fit_models(data: pd.DataFrame, golden: pd.Series) -> tuple[Any, Any]:
    from crowdkit.aggregation import MACE, DawidSkene

    with warnings.catch_warnings():  # crowd-kit 1.4.2 uses pandas keywords pandas 3 deprecates
        warnings.filterwarnings("ignore", module="crowdkit")
        ds = DawidSkene(n_iter=DS_ITERATIONS).fit(data, true_labels=golden if len(golden) else None)
        mace = MACE(n_restarts=1, random_state=0).fit(data)
    return ds, mace


def question_estimates(data: pd.DataFrame, golden: pd.Series) -> tuple[dict, dict, dict]:
    """Figures per annotator, notes and the models' answers for one question.

    ``data``: columns ``task`` (record id), ``worker`` (annotator), ``label`` (answer);
    ``golden``: the known answers of control records, by record id.
    """
    ds, mace = _fit(data, golden)
    workers = pd.factorize(data["worker"])[1]
    spam = np.asarray(mace.spamming_, dtype=float)
    theta = dict(zip(workers, spam[:, 1] / spam.sum(axis=1), strict=True))
    counts = data["worker"].value_counts()
    degenerate = data["label"].nunique() < 2 or data["worker"].nunique() < 2
    notes = []
    if data["worker"].nunique() < 2:
        notes.append("one annotator only: competence needs two or more on shared records")
    elif data["label"].nunique() < 2:
        notes.append(f"every answer was {data['label'].iloc[0]!r}: nothing tells annotators apart")
    figures = {
        str(w): {
            "answers": int(counts[w]),
            "dawid_skene": None if degenerate else _ds_accuracy(ds, w),
            "mace": None if degenerate else float(theta[w]),
        }
        for w in sorted(workers)
    }
    label, share = _most_given(data)
    if not degenerate and share >= SKEWED:
        notes.append(
            f"{share:.0%} of answers are {label!r}: the models cannot tell careful "
            "annotators from one-button ones here (not identifiable), so this question is "
            "left out of each annotator's competence"
        )
    few = sorted(w for w, f in figures.items() if f["answers"] < FEW_ANSWERS)
    if few and not degenerate:
        notes.append(f"fewer than {FEW_ANSWERS} answers from {', '.join(few)}: unstable")
    labels = {
        "dawid-skene": ds.labels_.astype(str).to_dict(),
        "mace": mace.labels_.astype(str).to_dict(),
    }
    return figures, notes, labels


def _joint_answers(given: pd.DataFrame, joint: tuple[str, ...]) -> pd.DataFrame:
    """Each annotator's joint criteria as one answer of one question (``+``-joined, only
    where all were answered): a structure that is one answer is estimated as one."""
    rows = given[given["question"].isin(joint)]
    wide = rows.pivot_table(
        index=["id", "annotator"], columns="question", values="value", aggfunc="first"
    )
    if wide.empty or not set(joint) <= set(wide.columns):
        return given.iloc[0:0]
    wide = wide[list(joint)].dropna().astype(str)
    value = wide.agg(JOINT_SEPARATOR.join, axis=1)
    return (
        value.rename("value")
        .reset_index()
        .assign(question=JOINT_SEPARATOR.join(joint), status="submitted")
    )


def _data(rows: pd.DataFrame) -> pd.DataFrame:
    """crowd-kit's columns (task, worker, label), one answer per record and annotator."""
    return pd.DataFrame(
        {
            "task": rows["id"].astype(str),
            "worker": rows["annotator"].astype(str),
            "label": rows["value"].astype(str),
        }
    ).drop_duplicates(["task", "worker"])


def _golden(data: pd.DataFrame, golden: dict[str, dict[str, str]], question: str) -> pd.Series:
    """The known answers to ``question`` that can anchor the fit."""
    parts = question.split(JOINT_SEPARATOR)
    known = {
        rid: JOINT_SEPARATOR.join(str(k[p]) for p in parts)
        for rid, k in golden.items()
        if all(p in k for p in parts)
    }
    gold = pd.Series(known, dtype=object)
    # a known answer nobody gave is no column of the model's: it cannot anchor the fit
    return gold[gold.index.isin(data["task"]) & gold.isin(set(data["label"]))]


def estimate(
    answers: pd.DataFrame,
    questions: list[str],
    golden: dict[str, dict[str, str]],
    joint: tuple[str, ...] = (),
) -> Estimates:
    """Fit both models on each question's submitted answers (``answers``: columns ``id``,
    ``annotator``, ``status``, ``question``, ``value``, as ``pull`` collects them). The
    ``joint`` criteria are also fitted as one question, whose answers decide records (each
    annotator's figures stay per question, as reported)."""
    from biasforge.progress import progress_bar

    out = Estimates()
    given = answers[(answers["status"] == "submitted") & answers["value"].notna()]
    combined = _joint_answers(given, joint) if joint else given.iloc[0:0]
    given = pd.concat([given, combined], ignore_index=True)
    questions = [*questions, *([JOINT_SEPARATOR.join(joint)] if joint else [])]
    asked = [q for q in questions if (given["question"] == q).any()]
    for question in progress_bar(asked, desc="annotator competence", unit="question"):
        data = _data(given[given["question"] == question])
        figures, notes, labels = question_estimates(data, _golden(data, golden, question))
        if question not in combined["question"].values:
            out.questions[question] = {
                "annotators": figures, "notes": notes, "identifiable": _identifiable(data),
            }  # fmt: skip
        for model, by_record in labels.items():
            for rid, label in by_record.items():
                out.labels[model].setdefault(rid, {})[question] = label
    return out


def _most_given(data: pd.DataFrame) -> tuple[str, float]:
    """The most common answer and its share of all answers."""
    shares = data["label"].value_counts(normalize=True)
    return str(shares.index[0]), float(shares.iloc[0])


def _identifiable(data: pd.DataFrame) -> bool:
    """Whether the answers vary enough for the models to tell annotators apart."""
    return _most_given(data)[1] < SKEWED


def pooled(estimates: Estimates) -> dict[str, dict[str, Any]]:
    """Each annotator's figures over the questions where they are identifiable: means
    weighted by their answers (None where no such question remains)."""
    sums: dict[str, dict[str, float]] = {}
    for figures in estimates.questions.values():
        for who, f in figures["annotators"].items():
            mine = sums.setdefault(who, {"answers": 0, "ds": 0.0, "mace": 0.0, "weight": 0})
            mine["answers"] += f["answers"]
            if f["mace"] is not None and figures.get("identifiable", True):
                mine["weight"] += f["answers"]
                mine["ds"] += f["answers"] * f["dawid_skene"]
                mine["mace"] += f["answers"] * f["mace"]
    return {
        who: {
            "answers": int(s["answers"]),
            "dawid_skene": s["ds"] / s["weight"] if s["weight"] else None,
            "mace": s["mace"] / s["weight"] if s["weight"] else None,
        }
        for who, s in sorted(sums.items())
    }


def flagged(
    estimates: Estimates,
    minimum: float,
    controls: dict[str, Any] | None = None,
    choices: dict[str, int] | None = None,
) -> dict[str, list[str]]:
    """Annotators to check, with why: what the report's To-do names.

    Control items are known answers, so they come first: an annotator is flagged when their
    control accuracy, rescaled so that guessing among a question's ``choices`` is 0 and
    always right is 1 (MACE's θ on the same scale), is below ``minimum`` even at the upper
    end of its 95 % Wilson interval (0 of 6 on yes/no questions is; 5 of 6 is not). Then MACE
    θ over the identifiable questions (see :data:`SKEWED`); nobody is flagged on it with
    fewer than :data:`FEW_ANSWERS` answers (their estimate says little either way)."""
    out = {}
    for who, mine in sorted((controls or {}).items()):
        bound = _upper_beyond_chance(mine, choices or {})
        if bound is not None and bound < minimum:
            right = sum(q["right"] for q in mine["questions"].values())
            out[who] = [
                f"controls {right}/{mine['answers']} right (at most {bound:.2f} beyond chance, "
                "95 %)"
            ]
    for who, figures in pooled(estimates).items():
        if who in out or figures["mace"] is None or figures["mace"] >= minimum:
            continue
        if figures["answers"] < FEW_ANSWERS:
            continue
        mine = [(q, f["annotators"].get(who) or {}) for q, f in estimates.questions.items()
                if f.get("identifiable", True)]  # fmt: skip
        out[who] = [
            f"{q} {f['mace']:.2f}"
            for q, f in mine
            if f.get("mace") is not None and f["mace"] < minimum
        ]
    return out


def _upper_beyond_chance(mine: dict[str, Any], choices: dict[str, int]) -> float | None:
    """The upper end of the 95 % Wilson interval of a control accuracy, rescaled: 0 for what
    guessing gets (one in a question's number of choices, two where unknown), 1 for always
    right, clipped at 0."""
    from statsmodels.stats.proportion import proportion_confint

    answers = sum(q["answers"] for q in mine["questions"].values())
    if not answers:
        return None
    right = sum(q["right"] for q in mine["questions"].values())
    chance = sum(q["answers"] / choices.get(name, 2) for name, q in mine["questions"].items())
    chance /= answers
    _, upper = proportion_confint(right, answers, alpha=0.05, method="wilson")
    return max(0.0, (upper - chance) / (1 - chance))
