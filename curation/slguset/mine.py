"""Mining one stream of documents into SlguSet rows: the work of one task, executor-agnostic.

:class:`Miner` takes documents (text + source + line) and produces kept and rejected rows with
every verdict attached. It holds only per-task state (the duplicate set and counters), so a
datatrove task, a ``datasets.map`` worker or a test each make their own. Cheap work first: a
document with no gender form at all is skipped after one regex search; only sentences with a
form are cleaned, deduplicated and segmented by jieba (once, for every rule).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from biasforge.files import stable_id
from curation.checks import CheckStats, run_checks
from curation.slguset.filters import all_checks, classify_matches, keyword_matches, target_of
from curation.slguset.lexicon import Lexicon
from curation.slguset.names import NameModel, tokenize
from curation.slguset.preprocess import (
    TERMINATORS,
    character_problem,
    clean,
    repair_quotes,
    split_sentences,
)

ROW_FIELDS = (
    "id",
    "source_id",
    "source_text",
    "sentence",
    "keyword",
    "keyword_start",
    "keyword_end",
    "gender",
    "counterpart",
    "checks",
    "needs_review",
    "review_reasons",
)


@dataclass
class MineStats:
    documents: int = 0
    raw_chars: int = 0
    documents_without_keyword: int = 0
    sentences_seen: int = 0  # sentences of documents that had a keyword somewhere
    sentences_without_keyword: int = 0
    duplicates: int = 0
    quote_repairs: int = 0
    rules: dict[str, CheckStats] = field(default_factory=dict)
    seconds: Counter = field(default_factory=Counter)

    def add_rules(self, stats: Iterable[CheckStats]) -> None:
        for s in stats:
            mine = self.rules.setdefault(s.name, CheckStats(s.name, s.severity, s.description))
            mine.seen += s.seen
            mine.failed += s.failed
            mine.seconds += s.seconds

    def as_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "raw_chars": self.raw_chars,
            "documents_without_keyword": self.documents_without_keyword,
            "sentences_seen": self.sentences_seen,
            "sentences_without_keyword": self.sentences_without_keyword,
            "duplicates": self.duplicates,
            "quote_repairs": self.quote_repairs,
            "rules": {name: s.as_dict() for name, s in self.rules.items()},
            "seconds": {k: round(v, 6) for k, v in self.seconds.items()},
        }


class Miner:
    """Turns documents into checked sentence rows, batch by batch."""

    def __init__(self, lexicon: Lexicon, model: NameModel, *, batch_size: int = 2000) -> None:
        self.lexicon = lexicon
        self.model = model
        self.checks = all_checks(lexicon, model)
        self.batch_size = batch_size
        self.stats = MineStats()
        self._seen: set[bytes] = set()
        self._pending: list[dict[str, Any]] = []
        self._jieba_words = lexicon.jieba_words()

    def feed(
        self, text: str, source: str, line: int, piece: int = 0
    ) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
        """Add one document; yields (kept, rejected) frames whenever a batch is full."""
        stats = self.stats
        stats.documents += 1
        stats.raw_chars += len(text)
        started = time.perf_counter()
        pattern = self.lexicon.pattern
        if pattern.search(text) is None:
            stats.documents_without_keyword += 1
            stats.seconds["keyword_prefilter"] += time.perf_counter() - started
            return
        rows = []
        short = source if source.startswith("hf:") else source.rsplit("/", 1)[-1]
        where = f"{short}:{line}" + (f".{piece}" if piece else "")
        for index, raw in enumerate(split_sentences(text)):
            stats.sentences_seen += 1
            sentence = clean(raw)
            if not sentence or pattern.search(sentence) is None:
                stats.sentences_without_keyword += 1
                continue
            rows.append((index, raw, sentence))
        stats.seconds["keyword_prefilter"] += time.perf_counter() - started
        started = time.perf_counter()
        for index, raw, sentence in rows:
            fixed, repairs, broken = repair_quotes(sentence)
            stats.quote_repairs += repairs
            digest = hashlib.blake2b(fixed.encode("utf-8"), digest_size=12).digest()
            if digest in self._seen:
                stats.duplicates += 1
                continue
            self._seen.add(digest)
            problem = _problem(fixed, broken)
            self._pending.append(
                {
                    "source_id": f"{where}#{index}",
                    "source_text": raw.strip(),
                    "sentence": fixed,
                    "problem": problem or "",
                    "repairs": repairs,
                    "_f": source,
                    "_l": line,
                    "_p": piece,
                    "_s": index,
                }
            )
        stats.seconds["preprocess_dedup"] += time.perf_counter() - started
        if len(self._pending) >= self.batch_size:
            yield self._flush()

    def finish(self) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
        if self._pending:
            yield self._flush()

    def _flush(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        batch = pd.DataFrame(self._pending)
        self._pending = []
        started = time.perf_counter()
        tokens, matches = [], []
        for sentence, problem in zip(batch["sentence"], batch["problem"], strict=True):
            found = keyword_matches(sentence, self.lexicon)
            toks = tokenize(sentence, self.model.tagger, self._jieba_words) if not problem else []
            tokens.append(toks)
            matches.append(classify_matches(found, toks, self.lexicon) if toks else [])
        batch["tokens"] = tokens
        batch["matches"] = matches
        self.stats.seconds["jieba_segmentation"] += time.perf_counter() - started
        result = run_checks(batch, self.checks)
        self.stats.add_rules(result.stats)
        return _finalise(result.kept, self.lexicon), _finalise(result.rejected, self.lexicon)


def _problem(sentence: str, broken: bool) -> str | None:
    if broken:
        return "unbalanced_quotes"
    if not any(ch in TERMINATORS for ch in sentence[-3:]):
        return "no_terminator"
    return character_problem(sentence)


def _finalise(frame: pd.DataFrame, lexicon: Lexicon) -> pd.DataFrame:
    """Fill the candidate columns: the target keyword (or, for a rejected row, the first form
    found) with its span, gender and counterpart; a stable id from the sentence."""
    if frame.empty:
        return frame
    keyword, start, end, gender, counterpart = [], [], [], [], []
    for sentence, matches in zip(frame["sentence"], frame["matches"], strict=True):
        target = target_of(matches)
        if target is not None:
            form, a, b = target.form, target.start, target.end
        else:
            found = keyword_matches(sentence, lexicon)
            form, a, b = found[0] if found else ("", -1, -1)
        entry = lexicon.forms.get(form)
        keyword.append(form)
        start.append(a)
        end.append(b)
        gender.append(entry.gender if entry else "")
        counterpart.append(entry.counterpart if entry else "")
    out = frame.drop(columns=["tokens", "matches", "problem", "repairs"])
    out["keyword"], out["keyword_start"], out["keyword_end"] = keyword, start, end
    out["gender"], out["counterpart"] = gender, counterpart
    out["id"] = [stable_id("slguset", "zh", s) for s in out["sentence"]]
    return out
