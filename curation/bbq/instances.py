"""The four instances of one filled template (the authors' ``create_templating_dicts``).

Ambiguous and disambiguated context × negative and non-negative question, sharing one drawn
"unknown" wording and one drawn order of the three answers; ``answer_info`` says which group
each answer names. Mirrored exactly, including the authors' substring tests (a name found
inside an answer marks that answer) and their guard that keeps "man" from matching "woman".
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

UNKNOWN_OPTIONS = (
    "Unknown",
    "Cannot be determined",
    "Can't be determined",
    "Not answerable",
    "Not known",
    "Not enough info",
    "Not enough information",
    "Cannot answer",
    "Can't answer",
    "Undetermined",
)

KEYS = ("ans0", "ans1", "ans2")


def _found(name: str | list, answer: str) -> tuple[bool, str]:
    """Whether ``answer`` names ``name`` (a word, or a [group, gender/SES] pair: both words),
    and the text ``answer_info`` records."""
    if isinstance(name, list):
        second = " man" if name[1] == "man" else name[1]
        return name[0] in answer and second in answer, name[0] + " " + second.lstrip()
    name = " man" if name == "man" else name
    return name in answer, name.lstrip()


def _answer_info(
    answers: list[str], neg: str, non_neg: str, unknown: str, names: list[tuple[Any, Any]]
) -> dict[str, list]:
    # " man" keeps "man" from being found in "woman"; a later match overwrites an earlier one
    info: dict[str, list] = {key: ["", ""] for key in KEYS}
    for name, name_info in names:
        for answer in (neg, non_neg):
            found, text = _found(name, answer)
            if found:
                info[KEYS[answers.index(answer)]] = [text, name_info]
    info[KEYS[answers.index(unknown)]] = [unknown, "unknown"]
    return info


def instances(
    row: dict,
    category: str,
    subcategory: str,
    bias_targets: list,
    names: tuple[tuple[str, Any], tuple[str, Any]],
    first_id: int,
    rng: random.Random,
    wording: Callable[[str], str] | None = None,
) -> list[dict]:
    """The four instances of a filled template ``row``, numbered from ``first_id``.

    ``names`` are the two group words with what is recorded about each (``answer_info``);
    ``wording`` gives the drawn "unknown" wording in the instances' language.
    """
    neg, non_neg = row["Answer_negative"], row["Answer_non_negative"]
    unknown = rng.choice(UNKNOWN_OPTIONS)
    unknown = wording(unknown) if wording else unknown
    answers = [neg, non_neg, unknown]
    rng.shuffle(answers)
    info = _answer_info(answers, neg, non_neg, unknown, list(names))
    ambiguous = row["Ambiguous_Context"]
    disambiguated = f"{ambiguous.strip()} {row['Disambiguating_Context']}"
    metadata = {
        "subcategory": subcategory,
        "stereotyped_groups": bias_targets,
        "version": row.get("version", "None"),
        "source": row["Notes"],
    }
    cases = (
        ("neg", "ambig", ambiguous, row["Question_negative_stereotype"], unknown),
        ("neg", "disambig", disambiguated, row["Question_negative_stereotype"], neg),
        ("nonneg", "ambig", ambiguous, row["Question_non_negative"], unknown),
        ("nonneg", "disambig", disambiguated, row["Question_non_negative"], non_neg),
    )
    return [
        {
            "example_id": first_id + n,
            "question_index": row["Q_id"],
            "question_polarity": polarity,
            "context_condition": condition,
            "category": category,
            "answer_info": info,
            "additional_metadata": metadata,
            "context": context.strip(),
            "question": question.strip(),
            "ans0": answers[0],
            "ans1": answers[1],
            "ans2": answers[2],
            "label": answers.index(correct),
        }
        for n, (polarity, condition, context, question, correct) in enumerate(cases)
    ]
