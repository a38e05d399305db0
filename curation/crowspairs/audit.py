"""Audit of CrowS-Pairs, after Blodgett et al. (2021), before anything is translated.

Two ``reject`` rules remove pairs that cannot be a test: the two sentences are the same (or
one is empty), or the pair repeats an earlier one. Two ``review`` rules keep the pair and tell
annotators what Blodgett et al. found in many pairs:

* ``extra_differences`` — the sentences differ in more than the group words: more than
  ``MAX_SPANS`` separate places, or a differing run longer than ``MAX_SPAN_WORDS`` words;
* ``bias_type_words`` — the differing words name a group of another bias type and none of
  the stated one (from the editable word list ``group_words.tsv``); silent when no listed word
  differs, since absence from a list proves nothing.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import regex

from biasforge.curation.checks import Check, verdicts
from biasforge.curation.tables import read_tsv
from biasforge.families.crowspairs import BIAS_TYPES, differing_spans
from biasforge.unspaced import UNSPACED

MAX_SPANS = 2
MAX_SPAN_WORDS = 3
#: a word of a differing run; in Chinese and Japanese, a character (as the spans are cut)
_WORD = regex.compile(rf"[{UNSPACED}]|[^\W{UNSPACED}]+(?:[-'’][^\W{UNSPACED}]+)*")


def read_group_words(path: str | Path | None, encoding: str = "utf-8") -> dict[str, set[str]]:
    """bias type -> its group words (lower case), from a TSV ``bias_type<TAB>words`` (the
    source language's pack's, or ``--group-words``); None: no words. A bias type outside the
    family's (``robot``) would never match a pair, so it is refused."""
    if path is None:
        return {}
    rows = read_tsv(
        path,
        ["bias_type", "words"],
        allowed={"bias_type": BIAS_TYPES},
        non_empty=["words"],
        encoding=encoding,
    )
    return {row["bias_type"]: set(row["words"].lower().split()) for _, row in rows}


def changed_words(more: str, less: str) -> tuple[list[str], list[str]]:
    """The differing runs of ``more`` and of ``less``, as text."""
    spans_more, spans_less = differing_spans(more, less)
    return [more[s:e] for s, e in spans_more], [less[s:e] for s, e in spans_less]


def _same(batch: pd.DataFrame) -> pd.DataFrame:
    problems = []
    for more, less in zip(batch["sent_more"], batch["sent_less"], strict=True):
        if not more.strip() or not less.strip():
            problems.append("a sentence is empty")
        elif changed_words(more, less) == ([], []):
            problems.append("the two sentences are the same word for word")
        else:
            problems.append(None)
    return verdicts([p is None for p in problems], [p or "a pair" for p in problems], batch.index)


def _duplicate(batch: pd.DataFrame) -> pd.DataFrame:
    keys = batch["sent_more"].str.lower() + "\x1f" + batch["sent_less"].str.lower()
    first = ~keys.duplicated()
    firsts = dict(zip(keys[first], batch["source_id"][first], strict=True))
    detail = [
        "first occurrence" if ok else f"repeats pair {firsts[k]}"
        for ok, k in zip(first, keys, strict=True)
    ]
    return verdicts(first, detail, batch.index)


def _listed(run: str, listed: set[str]) -> bool:
    words = [w.lower() for w in _WORD.findall(run)]
    return bool(words) and all(w in listed for w in words)


def extra_check(words: dict[str, set[str]]) -> Check:
    """Runs made only of listed group words (he/she, his/her) never count: a gender pair
    changes every pronoun."""
    listed = set().union(*words.values()) if words else set()

    def fn(batch: pd.DataFrame) -> pd.DataFrame:
        passed, detail = [], []
        for more, less in zip(batch["sent_more"], batch["sent_less"], strict=True):
            runs_more, runs_less = changed_words(more, less)
            other = [r for r in [*runs_more, *runs_less] if not _listed(r, listed)]
            places = max(
                sum(not _listed(r, listed) for r in runs_more),
                sum(not _listed(r, listed) for r in runs_less),
            )
            longest = max((len(_WORD.findall(r)) for r in other), default=0)
            problems = []
            if places > MAX_SPANS:
                problems.append(f"the sentences differ in {places} places besides group words")
            if longest > MAX_SPAN_WORDS:
                problems.append(f"a differing run has {longest} words")
            shown = "; ".join(f"{m!r} / {n!r}" for m, n in zip(runs_more, runs_less, strict=False))
            passed.append(not problems)
            detail.append(
                f"differs only in {shown}"
                if not problems
                else f"{' and '.join(problems)} ({shown}): more than the group words may differ"
            )
        return verdicts(passed, detail, batch.index)

    return Check(
        "extra_differences",
        fn,
        "review",
        f"besides listed group words, the sentences differ in at most {MAX_SPANS} places of at "
        f"most {MAX_SPAN_WORDS} words",
    )


def bias_type_check(words: dict[str, set[str]]) -> Check:
    def fn(batch: pd.DataFrame) -> pd.DataFrame:
        passed, detail = [], []
        for more, less, stated in zip(
            batch["sent_more"], batch["sent_less"], batch["bias_type"], strict=True
        ):
            runs_more, runs_less = changed_words(more, less)
            changed = {w.lower() for r in [*runs_more, *runs_less] for w in _WORD.findall(r)}
            types = sorted(t for t, listed in words.items() if changed & listed)
            ok = not types or stated in types
            passed.append(ok)
            detail.append(
                f"the differing words name {', '.join(types) or 'no listed group'}"
                if ok
                else f"the differing words name {', '.join(types)}, not the stated {stated}"
            )
        return verdicts(passed, detail, batch.index)

    return Check(
        "bias_type_words",
        fn,
        "review",
        "the differing words are not listed only for another bias type than the stated one",
    )


def audit_checks(words: dict[str, set[str]]) -> list[Check]:
    return [
        Check("same_sentences", _same, "reject", "the two sentences are non-empty and differ"),
        Check("duplicate", _duplicate, "reject", "the pair is not a copy of an earlier one"),
        extra_check(words),
        bias_type_check(words),
    ]
