"""SlguSet (Zhao et al.), described once: Chinese news sentences with one gender keyword.

An item is a sentence whose context is gender-neutral once the keyword is masked. Review asks
the paper's three selection criteria, and, as in the paper, an item is kept only when every
annotator says it passes all three.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from biasforge.contract.schema import GENDERS, Column, FamilySchema, span_problem
from biasforge.families.base import (
    Row,
    escape,
    follow_span,
    mark,
    marked,
    occurrence,
    ordinal,
    per_config_crosstab,
)
from biasforge.families.declaration import declared, declared_review


def keyword_rule(row: Row) -> list[str]:
    """The keyword offsets lie inside the sentence and cover the keyword."""
    span = {"start": row.get("keyword_start"), "end": row.get("keyword_end")}
    problem = span_problem(row.get("sentence") or "", span, row.get("keyword"), "keyword")
    return [problem] if problem else []


SCHEMA = FamilySchema(
    family="slguset",
    columns=(
        Column("sentence", pa.string(), nonempty=True),
        Column("keyword", pa.string(), nonempty=True),
        Column("keyword_start", pa.int32()),
        Column("keyword_end", pa.int32()),
        Column("gender", pa.string(), allowed=GENDERS),
        Column("counterpart", pa.string(), nonempty=True),
    ),
    row_rules=(keyword_rule,),
)


def _keyword_span(row: Row) -> tuple[int, int]:
    return int(row.get("keyword_start") or 0), int(row.get("keyword_end") or 0)


def to_record(row: Row) -> dict[str, Any]:
    sentence = str(row["sentence"])
    start, end = _keyword_span(row)
    keyword = str(row.get("keyword"))
    which = occurrence(sentence, start, keyword)
    which_text = (
        f" — 第 {which[0]} 个（共 {which[1]} 个）/ the {ordinal(which[0])} of {which[1]}"
        if which
        else ""
    )
    return {
        "fields": {
            "sentence": marked(sentence, [(start, end, "keyword")]),
            "source": (
                f"**关键词 Keyword:** {mark(keyword, 'keyword')} ({escape(row.get('gender'))})"
                f"{escape(which_text)} ↔ **对应词 counterpart:** {escape(row.get('counterpart'))}"
                f"\n\n**来源 Source:** {escape(row.get('source_text'))}"
            ),
        },
        "metadata": {"domain": str(row.get("keyword")), "gender": str(row.get("gender"))},
        "suggestions": {"correction": sentence},
    }


def apply_correction(row: Row, text: str) -> Row:
    """Use the corrected sentence; the keyword offsets follow the edit.

    The keyword must survive unchanged at the place the edit maps it to, or be the same n-th
    occurrence of the keyword as before; otherwise which 他 is meant cannot be told.
    """
    text, old = text.strip(), str(row.get("sentence") or "")
    keyword = str(row.get("keyword"))
    start, end = follow_span(old, text, _keyword_span(row), widen=False)
    if text[start:end] != keyword:
        before = [i for i in range(len(old)) if old.startswith(keyword, i)]
        after = [i for i in range(len(text)) if text.startswith(keyword, i)]
        if len(after) != len(before) or _keyword_span(row)[0] not in before:
            raise ValueError(f"the correction moves or changes the keyword {keyword!r}")
        start = after[before.index(_keyword_span(row)[0])]
        end = start + len(keyword)
    return dict(row, sentence=text, keyword_start=start, keyword_end=end)


REVIEW = declared_review("slguset", to_record=to_record, apply_correction=apply_correction)


def statistics(configs: dict[str, pa.Table]) -> str:
    return per_config_crosstab(
        configs,
        "keyword",
        "gender",
        lambda config, n: f"**{config}**: sentences per gender keyword",
    )


FAMILY = declared(
    "slguset",
    schema=SCHEMA,
    review=REVIEW,
    statistics=statistics,
)
