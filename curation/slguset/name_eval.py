"""Sentence-level precision/recall of the name filter on gold-annotated sentences.

The People's Daily dev file (``{"id", "text", "person_names": [{start, end, text}]}``) is cut
into :data:`PARTS` parts by a salted hash of each record's id (:func:`part_of`). Part
:data:`HELDOUT_PART` is held out: ``benchmarks/train_slguset_names.py`` chooses and fits the
name model by cross-validation over the other parts (``cv``) and measures the chosen model once
on the held-out part. The parts depend only on the ids, so they are the same on every machine
and for every file order. A sentence is *positive* when it has at least one gold name; the
filter *flags* a sentence when it finds at least one name. Precision = flagged ∧ positive /
flagged; recall = flagged ∧ positive / positive; intervals are Wilson 95 % intervals.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from biasforge.errors import InputError
from biasforge.textfiles import read_bytes

PARTS = 5
HELDOUT_PART = 0
SALT = b"slguset-names-cv:"
# how the second-stage check was chosen and measured (benchmarks/eval_slguset_second_stage.py)
SECOND_STAGE_FILE = "second_stage.json"


def part_of(record_id: str) -> int:
    """0 … PARTS-1: sha256(SALT + id), first byte, modulo PARTS."""
    return hashlib.sha256(SALT + record_id.encode("utf-8")).digest()[0] % PARTS


def split_of(record_id: str) -> str:
    """``heldout`` (part :data:`HELDOUT_PART`) or ``cv`` (the parts the model was chosen and
    fitted on)."""
    return "heldout" if part_of(record_id) == HELDOUT_PART else "cv"


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """Wilson 95 % interval of a proportion (statsmodels); (0, 1) without trials."""
    if not trials:
        return (0.0, 1.0)
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(successes, trials, alpha=0.05, method="wilson")
    return float(low), float(high)


@dataclass(frozen=True)
class GoldSentence:
    id: str
    text: str
    names: tuple[tuple[int, int], ...]


def read_gold(path: str | Path) -> list[GoldSentence]:
    """Read a gold JSONL file; a broken line is an InputError naming file and line."""
    path = Path(path)
    data = read_bytes(path, "gold file for the name-filter evaluation")
    out = []
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                path, f"not UTF-8 (byte {exc.start + 1} of the line)", line=lineno
            ) from None
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            names = tuple((int(n["start"]), int(n["end"])) for n in row["person_names"])
            out.append(GoldSentence(str(row["id"]), str(row["text"]), names))
        except (ValueError, KeyError, TypeError, OverflowError, RecursionError) as exc:
            raise InputError(
                path, f"not a gold record (id, text, person_names): {exc}", line=lineno
            ) from None
    return out


@dataclass(frozen=True)
class PR:
    sentences: int
    positives: int
    flagged: int
    true_positives: int

    @property
    def precision(self) -> float:
        return self.true_positives / self.flagged if self.flagged else 0.0

    @property
    def recall(self) -> float:
        return self.true_positives / self.positives if self.positives else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "precision": round(self.precision, 4),
            "precision_ci95": [round(v, 4) for v in wilson(self.true_positives, self.flagged)],
            "recall": round(self.recall, 4),
            "recall_ci95": [round(v, 4) for v in wilson(self.true_positives, self.positives)],
        }


def sentence_pr(gold: Iterable[GoldSentence], has_name: Callable[[str], bool]) -> PR:
    n = pos = flagged = tp = 0
    for sent in gold:
        n += 1
        truth = bool(sent.names)
        pred = bool(has_name(sent.text))
        pos += truth
        flagged += pred
        tp += truth and pred
    return PR(n, pos, flagged, tp)


def _recorded_second_stage() -> dict[str, Any] | None:
    from biasforge.curation.slguset.names.words import DATA_DIR

    path = DATA_DIR / SECOND_STAGE_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def candidate_share(
    gold: Iterable[GoldSentence],
    has_keyword: Callable[[str], bool],
    first: Callable[[str], bool],
    second: Callable[[str], bool] | None,
) -> dict[str, Any]:
    """What reaches the candidates: among sentences with a gender form that the first-stage
    name filter lets through (*survivors*), the share naming a person (gold) before and after
    the second stage, and the share of clean survivors the second stage drops; Wilson 95 %."""
    survivors = [g for g in gold if has_keyword(g.text) and not first(g.text)]
    dropped = {g.id for g in survivors if second is not None and second(g.text)}
    kept = [g for g in survivors if g.id not in dropped]
    named_before = sum(bool(g.names) for g in survivors)
    named_after = sum(bool(g.names) for g in kept)
    clean = [g for g in survivors if not g.names]
    lost = sum(g.id in dropped for g in clean)

    def share(k: int, n: int) -> dict[str, Any]:
        return {
            "k": k,
            "n": n,
            "share": round(k / n, 4) if n else 0.0,
            "ci95": [round(v, 4) for v in wilson(k, n)],
        }

    return {
        "named_share_first_stage": share(named_before, len(survivors)),
        "named_share": share(named_after, len(kept)),
        "clean_lost": share(lost, len(clean)),
    }


def evaluate_name_filter(
    path: str | Path, tagger: str = "fast", name_check: str = "lac"
) -> dict[str, Any]:
    """P/R of the shipped filter for ``tagger`` (with the THULAC second stage for
    ``thulac``, and the LAC check unless ``name_check`` is ``none``), and of jieba ``nr``
    alone, on the held-out part, the CV parts (which the shipped model was fitted on:
    optimistic) and the whole file, with a tokenizer of its own (jieba's dictionary, no extra
    words); the share of would-be candidates naming a person (:func:`candidate_share`); plus
    the cross-validated figures recorded when the model and the check were chosen
    (``name_model.json``, ``second_stage.json``)."""
    from biasforge.curation.slguset.lexicon import load_lexicon
    from biasforge.curation.slguset.names import (
        MODEL_PATH,
        LacNames,
        NameFinder,
        ThulacNames,
        Tokenizer,
        jieba_nr_names,
        load_models,
    )

    tokenizer = Tokenizer()
    finder = NameFinder(load_models()[tagger], tokenizer)
    thulac = ThulacNames() if tagger == "thulac" else None
    lac = LacNames() if name_check == "lac" else None
    pattern = load_lexicon().pattern

    # Each verdict is a pure function of the sentence, asked again for the "all" part and
    # for the candidate shares: it is computed once per sentence (half the evaluation's time).
    @cache
    def first(sentence: str) -> bool:
        if finder.find_in(sentence):
            return True
        return bool(thulac is not None and thulac.find(sentence))

    @cache
    def second(sentence: str) -> bool:
        return bool(lac is not None and lac.find(sentence))

    @cache
    def jieba_nr(sentence: str) -> bool:
        return bool(jieba_nr_names(tokenizer.tokens(sentence, "posseg")))

    def flags(sentence: str) -> bool:
        return first(sentence) or second(sentence)

    gold = read_gold(path)
    recorded = json.loads(MODEL_PATH.read_text(encoding="utf-8")).get("evaluation", {})
    result: dict[str, Any] = {
        "file": str(path),
        "tagger": tagger,
        "name_check": name_check,
        "threshold": finder.model.threshold,
        "cross_validated": recorded.get(tagger),
        "second_stage_recorded": _recorded_second_stage() if lac else None,
    }
    for part in ("heldout", "cv", "all"):
        subset = [g for g in gold if part == "all" or split_of(g.id) == part]
        result[part] = {
            "model": sentence_pr(subset, flags).as_dict(),
            "jieba_nr": sentence_pr(subset, jieba_nr).as_dict(),
            "candidates": candidate_share(
                subset, lambda s: pattern.search(s) is not None, first, second if lac else None
            ),
        }
    return result
