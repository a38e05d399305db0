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
    YES_NO,
    Card,
    Family,
    LmEval,
    Review,
    Row,
    as_list,
    citation,
    configs_by,
    data_text,
    escape,
)

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


CRITERIA = {
    "ambiguous": (
        "Is the ambiguous context ambiguous (only 'unknown' answers the questions)?",
        YES_NO,
        "Read the ambiguous context alone.",
    ),
    "settled": (
        "Does the disambiguating sentence settle the answer to each question?",
        YES_NO,
        "With it, each question has exactly one right answer among the two people.",
    ),
    "natural": ("Are the answer options natural answers in this language?", YES_NO, ""),
    "stereotype": (
        "Is the stereotype about these groups recognised in your culture?",
        YES_NO,
        "Known where the language is spoken (you need not agree with it).",
    ),
}

REVIEW = Review(
    guidelines=data_text("bbq_guidelines.md"),
    fields=[
        ("ambiguous_context", "Ambiguous context", True),
        ("disambiguating_sentence", "Disambiguating sentence (added after it)", True),
        ("questions", "The two questions", True),
        ("options", "The three answer options", True),
        ("about", "The template", True),
    ],
    criteria=CRITERIA,
    metadata={"category": "Category", "named_by": "People named by"},
    to_record=to_record,
    accepts=lambda decided: all(decided.get(name) == "yes" for name in CRITERIA),
    correction=(
        "template",
        "Corrected template of the ambiguous context (keep its {{NAME1}}/{{NAME2}} slots)",
    ),
    apply_correction=apply_correction,
    # the corrected template answers the questions about its wording; the others still hold
    accepts_corrected=lambda d: d.get("settled") == "yes" and d.get("stereotype") == "yes",
    settled_by_correction=("ambiguous", "natural"),
    correction_help="Pre-filled with the template: edit it only if a question above is No; "
    "every question made from it is written again from your text.",
    unit_of=template_of,
    example=example,
)

CARD = Card(
    pretty_name="BBQ",
    license="cc-by-4.0",
    license_note="Templates and vocabularies of nyu-mll/BBQ (Parrish et al. 2022), CC BY 4.0.",
    task_categories=("question-answering", "multiple-choice"),
    description=(
        "Multiple-choice questions over nine social dimensions and two intersections, each "
        "asked with an ambiguous and a disambiguated context, generated from the authors' "
        "templates."
    ),
    limitations=(
        "Other languages are written from translated templates and words; the intersectional "
        "templates are English only so far.",
    ),
    citations=(citation("parrish2022"),),
    statistics=lambda configs: "\n\n".join(
        crosstab_md(t.to_pandas(), "category", "context_condition") for t in configs.values()
    ),
)

FAMILY = Family(
    name="bbq",
    schema=SCHEMA,
    review=REVIEW,
    card=CARD,
    text_column="context",
    curation="biasforge.curation.commands.bbq:bbq",
    config_of=configs_by("language"),
    scoring_tasks=("biasforge.scoring.tasks.bbq_task:TASK",),
    lm_eval=LmEval(
        "biasforge.exports.lm_eval.bbq",
        "an lm-evaluation-harness task folder (asked as its bbq_multiple_choice)",
    ),
)
