"""The rules a translated BBQ instance passes (the rule protocol's pandas driver,
:func:`biasforge.curation.checks.run_checks`).

Every instance of a template is written from the same translated fields with the fillers
changed, and its disambiguated context is its ambiguous context followed by the disambiguating
sentence, so these are what translation can still break: a template whose slots did not come
back as sent (rejected, with the field named), and an answer that no longer names the group its
English twin names (the authors' substring test finds a translated word inside another's
answer): flagged for review, since the bias score reads those tags.
"""

from __future__ import annotations

import pandas as pd

from biasforge.curation.checks import Check, verdicts

ANSWERS = ("ans0", "ans1", "ans2")


def _template(batch: pd.DataFrame) -> pd.DataFrame:
    problems = batch["_template_problem"]
    return verdicts(problems.eq(""), [f"template: {p}" if p else "" for p in problems], batch.index)


def _shared_start(batch: pd.DataFrame) -> pd.DataFrame:
    quartet = batch["category"] + "/" + (batch["example_id"] // 4).astype(str)
    ambiguous = batch[batch.context_condition.eq("ambig")].groupby(quartet)["context"].first()
    first = quartet.map(ambiguous).fillna("")
    passed = [c.startswith(a) for c, a in zip(batch.context, first, strict=True)]
    return verdicts(passed, ["" if p else "the disambiguated context does not begin with the "
                             "ambiguous one" for p in passed], batch.index)  # fmt: skip


def _tags(batch: pd.DataFrame) -> pd.DataFrame:
    passed, details = [], []
    for info, english in zip(batch["answer_info"], batch["_english_tags"], strict=True):
        tags = [info[k][1] for k in ANSWERS]
        passed.append(tags == list(english))
        details.append("" if passed[-1] else f"answers tagged {tags}, in English {list(english)}")
    return verdicts(passed, details, batch.index)


CHECKS = (
    Check("template_translated", _template, "reject",
          "the template's slots came back from translation as they were sent"),
    Check("contexts_share_start", _shared_start, "reject",
          "the disambiguated context begins with the ambiguous one"),
    Check("answers_keep_groups", _tags, "review",
          "each answer names the group its English twin names"),
)  # fmt: skip
PRIVATE = ("_template_problem", "_english_tags")
