"""Sentence-level precision/recall of the name filter on gold-annotated sentences.

The People's Daily dev file (``{"id", "text", "person_names": [{start, end, text}]}``) is cut
into two fixed halves by a hash of each record's id (:func:`split_of`): ``tune`` (weights and
threshold of the name model are fitted there) and ``heldout`` (reported, never fitted). The
split depends only on the ids, so it is the same on every machine and for every file order.
A sentence is *positive* when it has at least one gold name; the filter *flags* a sentence
when it finds at least one name. Precision = flagged ∧ positive / flagged; recall = flagged ∧
positive / positive.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasforge.errors import InputError


def split_of(record_id: str) -> str:
    """``tune`` or ``heldout``: the parity of the first byte of sha256(id)."""
    return "tune" if hashlib.sha256(record_id.encode("utf-8")).digest()[0] % 2 == 0 else "heldout"


@dataclass(frozen=True)
class GoldSentence:
    id: str
    text: str
    names: tuple[tuple[int, int], ...]


def read_gold(path: str | Path) -> list[GoldSentence]:
    """Read a gold JSONL file; a broken line is an InputError naming file and line."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "gold file for the name-filter evaluation not found")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read the gold file: {exc.strerror or exc}") from None
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
            "sentences": self.sentences,
            "positives": self.positives,
            "flagged": self.flagged,
            "true_positives": self.true_positives,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
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


def evaluate_name_filter(path: str | Path, tagger: str = "fast") -> dict[str, Any]:
    """P/R of the shipped model (and of jieba ``nr`` alone) on each half and on the whole file,
    with a tokenizer of its own (jieba's dictionary, no extra words)."""
    from curation.slguset.names import NameFinder, Tokenizer, jieba_nr_names, load_models

    tokenizer = Tokenizer()
    finder = NameFinder(load_models()[tagger], tokenizer)
    gold = read_gold(path)
    result: dict[str, Any] = {
        "file": str(path),
        "tagger": tagger,
        "threshold": finder.model.threshold,
    }
    for part in ("tune", "heldout", "all"):
        subset = [g for g in gold if part == "all" or split_of(g.id) == part]
        result[part] = {
            "model": sentence_pr(subset, lambda s: bool(finder.find_in(s))).as_dict(),
            "jieba_nr": sentence_pr(
                subset, lambda s: bool(jieba_nr_names(tokenizer.tokens(s, "posseg")))
            ).as_dict(),
        }
    return result
