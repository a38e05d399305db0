"""Schema checks that every record must pass before it is released.

Each check names the record it rejects, so a maintainer can find and fix it (in Argilla or
in the run) instead of guessing. The rules are the ones scoring and other tools rely on:
StereoSet intrasentence triplets have one sentence per label and differ only at the
attribute (the French paper found half of independent translations broke this), spans lie
inside their text and cover the word they name, and ids are unique.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

LABELS = ("stereotype", "anti-stereotype", "unrelated")
SPLITS = ("intrasentence", "intersentence")
REQUIRED = {
    "stereoset": ("split", "bias_type", "target", "context", "sentences"),
    "becpro": ("sentence", "person", "person_span", "profession", "profession_span", "gender"),
    "slguset": ("sentence", "keyword", "keyword_start", "keyword_end", "gender"),
}
BASE = ("id", "family", "language")


@dataclass(frozen=True)
class Violation:
    record: str
    message: str
    # Identity problems (missing or duplicate ids) cannot be skipped: which copy to keep, or
    # how to refer to the record, is not ours to guess.
    skippable: bool = True


def missing_columns(columns: Iterable[str], family: str) -> list[str]:
    have = set(columns)
    return [c for c in (*BASE, *REQUIRED.get(family, ())) if c not in have]


def _frame(context: str, sentence: str, attribute: str) -> str | None:
    """Why ``sentence`` is not ``context`` with BLANK replaced by ``attribute``, or None.

    Letter case is compared loosely: the published English StereoSet lower-cases its
    sentences ("The Crimean people…" / "The crimean people…") without changing the words.
    """
    prefix, _, suffix = context.partition("BLANK")
    if not attribute.strip():
        return "empty attribute"
    expected = prefix + attribute + suffix
    if sentence == expected or sentence.lower() == expected.lower():
        return None
    return f"sentence {sentence!r} is not the context with BLANK = {attribute!r}"


def check_stereoset(row: dict[str, Any]) -> list[str]:
    problems = []
    split, sentences = row.get("split"), row.get("sentences") or []
    if split not in SPLITS:
        problems.append(f"split {split!r} is not one of {', '.join(SPLITS)}")
    labels = [s.get("label") for s in sentences]
    if sorted(labels) != sorted(LABELS):
        problems.append(
            f"needs exactly one stereotype, one anti-stereotype and one unrelated sentence, "
            f"has {labels}"
        )
    for s in sentences:
        if not (s.get("id") or "").strip():
            problems.append(f"{s.get('label')} sentence has no id")
        if not (s.get("sentence") or "").strip():
            problems.append(f"{s.get('label')} sentence is empty")
    context = row.get("context") or ""
    if split == "intrasentence":
        if context.count("BLANK") != 1:
            problems.append(f"context must hold exactly one BLANK, has {context.count('BLANK')}")
        else:
            for s in sentences:
                why = _frame(context, s.get("sentence") or "", s.get("attribute") or "")
                if why:
                    problems.append(f"{s.get('label')}: {why} (must differ only at the attribute)")
    elif split == "intersentence" and not context.strip():
        problems.append("intersentence item has an empty context")
    return problems


def _span_problem(text: str, span: Any, expected: str | None, what: str) -> str | None:
    if not isinstance(span, dict) or span.get("start") is None or span.get("end") is None:
        return f"{what} span is missing"
    start, end = int(span["start"]), int(span["end"])
    if not 0 <= start < end <= len(text):
        return f"{what} span {start}:{end} lies outside the sentence (length {len(text)})"
    if expected is not None and text[start:end] != expected:
        return f"{what} span {start}:{end} covers {text[start:end]!r}, not {expected!r}"
    return None


def check_becpro(row: dict[str, Any]) -> list[str]:
    text = row.get("sentence") or ""
    problems = [
        _span_problem(text, row.get("person_span"), row.get("person"), "person"),
        _span_problem(text, row.get("profession_span"), row.get("profession"), "profession"),
    ]
    outer = row.get("profession_span") or {}
    for span in row.get("profession_word_spans") or []:
        problem = _span_problem(text, span, None, "profession word")
        if problem is None and not (
            outer.get("start", 0) <= span["start"] and span["end"] <= outer.get("end", len(text))
        ):
            problem = (
                f"profession word span {span['start']}:{span['end']} lies outside the profession"
            )
        problems.append(problem)
    return [p for p in problems if p]


def check_slguset(row: dict[str, Any]) -> list[str]:
    text = row.get("sentence") or ""
    span = {"start": row.get("keyword_start"), "end": row.get("keyword_end")}
    problems = [_span_problem(text, span, row.get("keyword"), "keyword")]
    if row.get("gender") not in ("male", "female"):
        problems.append(f"gender {row.get('gender')!r} is not male or female")
    return [p for p in problems if p]


CHECKS = {"stereoset": check_stereoset, "becpro": check_becpro, "slguset": check_slguset}


def validate_rows(rows: Iterable[dict[str, Any]], family: str) -> list[Violation]:
    """Every violation in ``rows``: duplicate ids (items and StereoSet sentences) and the
    family's structural rules."""
    check = CHECKS[family]
    seen: set[str] = set()
    seen_sentences: set[str] = set()
    out: list[Violation] = []
    for row in rows:
        rid = str(row.get("id") or "")
        if not rid:
            out.append(
                Violation("<no id>", f"record without an id: {str(row)[:120]}", skippable=False)
            )
            continue
        if rid in seen:
            out.append(
                Violation(rid, "duplicate id (ids must be unique in a release)", skippable=False)
            )
        seen.add(rid)
        if row.get("family") != family:
            out.append(Violation(rid, f"family {row.get('family')!r} in a {family} release"))
        out.extend(Violation(rid, problem) for problem in check(row))
        for s in row.get("sentences") or [] if family == "stereoset" else []:
            sid = s.get("id")
            if sid and sid in seen_sentences:
                out.append(Violation(rid, f"duplicate sentence id {sid!r}", skippable=False))
            seen_sentences.add(sid)
    return out
