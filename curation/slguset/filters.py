"""The SlguSet rules as plain checks over a batch of sentence rows (see curation/checks.py).

Rows come from :func:`rows_for`: one per sentence that passed the regex keyword prefilter, with
the keyword matches and jieba tokens already attached (the one jieba pass serves every rule
below). Each check returns one verdict and a reason per row and never mutates its input, so the
same functions run in tests, in a datatrove step, or under ``datasets.map``.

Reject rules (the paper's automatic filters): ``preprocess`` (the sentence could not be cleaned),
``non_gender_word`` (every gender character sits inside a word such as 吉他/子女), and
``person_name`` (the sentence names someone). Review rules (the paper's annotation criteria,
decided by people, so only flagged): ``other_gender_term`` (criterion 2: another gender term
may co-refer and leak the gender), ``biological_sex`` (criterion 3), ``counterpart_sense``
(criterion 1: swapping the keyword makes another word, as 男儿 → 女儿).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from curation.checks import Check, verdicts
from curation.slguset.lexicon import Lexicon
from curation.slguset.names import NameModel, Token, find_names


@dataclass(frozen=True)
class Match:
    form: str
    start: int
    end: int
    genuine: bool  # inside one token that is not a non-gender word
    token: str


def keyword_matches(sentence: str, lexicon: Lexicon) -> list[tuple[str, int, int]]:
    """Every occurrence of a gender form (regex, longest form first): the cheap prefilter."""
    return [(m.group(), m.start(), m.end()) for m in lexicon.pattern.finditer(sentence)]


def classify_matches(
    matches: Sequence[tuple[str, int, int]], tokens: Sequence[Token], lexicon: Lexicon
) -> list[Match]:
    """Decide with the jieba tokens whether each occurrence is a gender word: it must lie inside
    one token, and no listed non-gender word (吉他, 他杀, 子女 …) inside that token may cover it
    (jieba's own dictionary has longer words such as 其他人 that contain 其他)."""
    out = []
    for form, start, end in matches:
        token = next((t for t in tokens if t.start <= start < t.start + len(t.word)), None)
        inside = token is not None and end <= token.start + len(token.word)
        word = token.word if token is not None else ""
        genuine = inside and not _covered(word, token.start if token else 0, start, end, lexicon)
        out.append(Match(form, start, end, genuine, word))
    return out


def _covered(word: str, offset: int, start: int, end: int, lexicon: Lexicon) -> bool:
    """Whether a non-gender word inside token ``word`` (at ``offset``) covers [start, end)."""
    if word in lexicon.non_gender_words:
        return True
    for other in lexicon.non_gender_words:
        if len(other) >= len(word):
            continue
        pos = word.find(other)
        while pos >= 0:
            if offset + pos <= start and end <= offset + pos + len(other):
                return True
            pos = word.find(other, pos + 1)
    return False


def target_of(matches: Sequence[Match]) -> Match | None:
    """The candidate's one target keyword: the first genuine occurrence."""
    return next((m for m in matches if m.genuine), None)


def check_preprocess(batch: pd.DataFrame) -> pd.DataFrame:
    problems = batch["problem"]
    return verdicts(
        [not p for p in problems],
        [
            p or f"cleaned ({r} quote repairs)"
            for p, r in zip(problems, batch["repairs"], strict=True)
        ],
        batch.index,
    )


def check_non_gender(batch: pd.DataFrame) -> pd.DataFrame:
    passed, detail = [], []
    for matches in batch["matches"]:
        target = target_of(matches)
        passed.append(target is not None)
        if target is not None:
            detail.append(f"{target.form} in 「{target.token}」")
        else:
            words = sorted({m.token or m.form for m in matches})
            detail.append("gender characters only inside non-gender words: " + "、".join(words))
    return verdicts(passed, detail, batch.index)


def make_name_check(model: NameModel) -> Check:
    def check_names(batch: pd.DataFrame) -> pd.DataFrame:
        passed, detail = [], []
        for tokens in batch["tokens"]:
            hits = find_names(tokens, model)
            passed.append(not hits)
            detail.append(
                "person names: " + "、".join(f"{h.text}({h.score:.2f})" for h in hits)
                if hits
                else "no person name found"
            )
        return verdicts(passed, detail, batch.index)

    return Check(
        "person_name",
        check_names,
        "reject",
        f"sentence names a person (jieba tokens + name model, {model.tagger})",
    )


def make_review_checks(lexicon: Lexicon) -> list[Check]:
    def other_terms(batch: pd.DataFrame) -> pd.DataFrame:
        passed, detail = [], []
        for matches, tokens in zip(batch["matches"], batch["tokens"], strict=True):
            target = target_of(matches)
            others = [m.form for m in matches if m.genuine and m is not target]
            others += [t.word for t in tokens if t.word in lexicon.other_gender_terms]
            passed.append(not others)
            detail.append(
                "other gender terms may co-refer: " + "、".join(others)
                if others
                else "no other gender term"
            )
        return verdicts(passed, detail, batch.index)

    def biological(batch: pd.DataFrame) -> pd.DataFrame:
        passed, detail = [], []
        for sentence in batch["sentence"]:
            found = sorted(t for t in lexicon.biological_terms if t in sentence)
            passed.append(not found)
            detail.append(
                "biological-sex terms: " + "、".join(found) if found else "no biological-sex term"
            )
        return verdicts(passed, detail, batch.index)

    def counterpart_sense(batch: pd.DataFrame) -> pd.DataFrame:
        passed, detail = [], []
        for sentence, matches in zip(batch["sentence"], batch["matches"], strict=True):
            target = target_of(matches)
            form = lexicon.forms[target.form]
            swapped = sentence[: target.start] + form.counterpart + sentence[target.end :]
            end = target.start + len(form.counterpart)
            clash = [
                m.group()
                for m in lexicon.pattern.finditer(swapped, max(0, target.start - 3), end + 3)
                if m.start() < end
                and m.end() > target.start
                and (m.start(), m.end()) != (target.start, end)
            ]
            passed.append(not clash)
            detail.append(
                f"swapping {target.form}→{form.counterpart} makes 「{clash[0]}」, another term"
                if clash
                else f"{target.form}→{form.counterpart}"
            )
        return verdicts(passed, detail, batch.index)

    return [
        Check(
            "other_gender_term",
            other_terms,
            "review",
            "criterion 2: another gender term in the sentence may co-refer with the keyword",
        ),
        Check(
            "biological_sex",
            biological,
            "review",
            "criterion 3: biological-sex information (经期, 孕期, 哺乳期 …)",
        ),
        Check(
            "counterpart_sense",
            counterpart_sense,
            "review",
            "criterion 1: the counterpart swap turns the keyword into another term (男儿→女儿)",
        ),
    ]


def all_checks(lexicon: Lexicon, model: NameModel) -> list[Check]:
    """Cheap first: cleaning, non-gender words (jieba), names, then the review flags."""
    return [
        Check(
            "preprocess",
            check_preprocess,
            "reject",
            "sentence cleaned: terminator, CJK/digits/punctuation only, quotes balanced",
        ),
        Check(
            "non_gender_word",
            check_non_gender,
            "reject",
            "a gender keyword stands as a word of its own, not inside 吉他/他杀/子女 …",
        ),
        make_name_check(model),
        *make_review_checks(lexicon),
    ]
