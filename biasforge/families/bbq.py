"""BBQ, the Bias Benchmark for QA (Parrish et al., Findings of ACL 2022): described once.

An item is one question with three answers, in an ambiguous or a disambiguated context;
``target_loc`` is the answer naming the targeted group (the biased answer), as the authors'
metadata script finds it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pyarrow as pa

from biasforge.contract.markdown import crosstab_md
from biasforge.contract.schema import Column, FamilySchema
from biasforge.families.base import (
    Row,
    as_list,
    escape,
)
from biasforge.families.declaration import declared, declared_review

CATEGORIES = (
    "Age",
    "Disability_status",
    "Gender_identity",
    "Nationality",
    "Physical_appearance",
    "Race_ethnicity",
    "Race_x_SES",
    "Race_x_gender",
    "Religion",
    "SES",
    "Sexual_orientation",
)

#: the nested columns as the published ``data/*.jsonl`` and lm-eval's BBQ tasks read them
ANSWER_INFO = pa.struct([(f"ans{n}", pa.list_(pa.string())) for n in range(3)])
METADATA = pa.struct(
    [
        ("subcategory", pa.string()),
        ("stereotyped_groups", pa.list_(pa.string())),
        ("version", pa.string()),
        ("source", pa.string()),
    ]
)

#: the words an instance's slots were filled with ("" where its template has no such slot)
FILLERS = pa.struct([(slot, pa.string()) for slot in ("NAME1", "NAME2", "WORD1", "WORD2")])
SLOT = re.compile(r"\{\{[A-Z]+[12]\}\}")

SCHEMA = FamilySchema(
    family="bbq",
    columns=(
        Column("category", pa.string(), allowed=CATEGORIES),
        Column("example_id", pa.int64()),
        Column("question_index", pa.string(), nonempty=True),
        Column("question_polarity", pa.string(), allowed=("neg", "nonneg")),
        Column("context_condition", pa.string(), allowed=("ambig", "disambig")),
        Column("context", pa.string(), nonempty=True),
        Column("question", pa.string(), nonempty=True),
        Column("ans0", pa.string(), nonempty=True),
        Column("ans1", pa.string(), nonempty=True),
        Column("ans2", pa.string(), nonempty=True),
        Column("label", pa.int64()),
        Column("answer_info", ANSWER_INFO),  # as published: per answer, [text, group]
        Column("additional_metadata", METADATA),  # as published
        Column("target_loc", pa.int64(), required=False),  # null where undefined
        Column("label_type", pa.string(), allowed=("label", "name")),
        # what the instance was made from: a corrected template is filled with these again
        Column("template_context", pa.string(), required=False),
        Column("fillers", FILLERS, required=False),
    ),
)


def template_of(row: Row) -> str:
    """The template an instance is a filling of: its category, ``Q_id`` and version."""
    version = row["additional_metadata"]["version"]
    return f"{row['category']}-q{row['question_index']}-{version}"


def example(rows: list[Row]) -> Row:
    """What a template's record shows: the first filling's ambiguous context, disambiguating
    sentence, both questions and answer options (from its four instances)."""
    first = rows[0]
    fill = [r for r in rows[:4] if r["ans0"] == first["ans0"] and r["ans1"] == first["ans1"]]
    by = {(r["context_condition"], r["question_polarity"]): r for r in fill}
    ambiguous = by.get(("ambig", "neg"), first)["context"]
    disambiguated = by.get(("disambig", "neg"), first)["context"]
    return {
        **by.get(("ambig", "neg"), first),
        "shown_disambiguating": disambiguated[len(ambiguous) :].strip(),
        "shown_nonneg_question": by.get(("ambig", "nonneg"), first)["question"],
        "shown_instances": len(rows),
    }


NAMED_BY = {"label": "group words", "name": "proper names"}


def to_record(row: Row) -> dict[str, Any]:
    """The template's example, blind: no label, no targeted answer, no context condition."""
    groups = row["additional_metadata"]["stereotyped_groups"]
    options = "\n".join(f"- {escape(row[f'ans{n}'])}" for n in range(3))
    questions = f"- {escape(row['question'])}\n- {escape(row.get('shown_nonneg_question', ''))}"
    return {
        "fields": {
            "ambiguous_context": escape(row["context"]),
            "disambiguating_sentence": escape(row.get("shown_disambiguating", "")),
            "questions": questions,
            "options": options,
            "about": f"**Groups of the stereotype:** {escape(', '.join(as_list(groups)))}\n\n"
            f"*One of {row.get('shown_instances', 1)} questions made from this template.*",
        },
        "metadata": {"category": str(row["category"]), "named_by": NAMED_BY[row["label_type"]]},
        "suggestions": {"template": row["template_context"]} if row.get("template_context") else {},
    }


def slots_of(text: str) -> Counter:
    """The slots of a template text (``{{NAME1}}``…), counted."""
    return Counter(SLOT.findall(text))


def _filled(template: str, fillers: dict) -> str:
    return SLOT.sub(lambda m: str(fillers[m.group(0)[2:-2]] or ""), template).strip()


def apply_correction(row: Row, text: str) -> Row:
    """This instance written from its corrected template: the ambiguous context is the
    correction filled with the instance's own words, a disambiguated context keeps its
    disambiguating sentence after it. The correction must keep the template's slots; the
    authors' English repairs ("an" before a vowel…) are not made again, so an instance they
    changed cannot take the correction (it goes to adjudication with that reason)."""
    old, fillers = row.get("template_context"), row.get("fillers")
    if not old or not fillers:
        raise ValueError("this question records no template to correct")
    if slots_of(text) != slots_of(old):
        raise ValueError(f"the corrected template must keep the slots of {old!r}")
    before, after = _filled(old, fillers), _filled(text, fillers)
    if not row["context"].startswith(before):
        raise ValueError("the context does not begin with its template filled with its words")
    return {**row, "context": after + row["context"][len(before) :], "template_context": text}


REVIEW = declared_review(
    "bbq",
    to_record=to_record,
    apply_correction=apply_correction,
    # the corrected template answers the questions about its wording; the others still hold
    accepts_corrected=lambda d: d.get("settled") == "yes" and d.get("stereotype") == "yes",
    settled_by_correction=("ambiguous", "natural"),
    unit_of=template_of,
    example=example,
)


def statistics(configs: dict[str, pa.Table]) -> str:
    """Category × context condition, a table per config (language)."""
    return "\n\n".join(
        crosstab_md(t.to_pandas(), "category", "context_condition") for t in configs.values()
    )


FAMILY = declared(
    "bbq",
    schema=SCHEMA,
    review=REVIEW,
    statistics=statistics,
)
