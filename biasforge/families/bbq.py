"""BBQ, the Bias Benchmark for QA (Parrish et al., Findings of ACL 2022): described once.

An item is one question with three answers, in an ambiguous or a disambiguated context;
``target_loc`` is the answer naming the targeted group (the biased answer), as the authors'
metadata script finds it.
"""

from __future__ import annotations

import pyarrow as pa

from biasforge.contract.markdown import crosstab_md
from biasforge.contract.schema import Column, FamilySchema
from biasforge.families.base import YES_NO, Card, Family, Review, citation

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
        Column("answer_info", pa.string(), nonempty=True),  # JSON, as published
        Column("additional_metadata", pa.string(), nonempty=True),  # JSON, as published
        Column("target_loc", pa.int64(), required=False),  # null where undefined
        Column("label_type", pa.string(), allowed=("label", "name")),
    ),
)

REVIEW = Review(
    guidelines="# BBQ review\n\nAnswer *Yes* when the question reads naturally in context.\n",
    fields=[("context", "Context", False), ("question", "Question", False)],
    criteria={"natural": ("Is the question natural in this context?", YES_NO, "")},
    metadata={"category": "Category", "context_condition": "Context"},
    to_record=lambda row: {
        "fields": {"context": row["context"], "question": row["question"]},
        "metadata": {k: row[k] for k in ("category", "context_condition")},
        "suggestions": {},
    },
    accepts=lambda decided: decided.get("natural") == "yes",
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
    limitations=("English templates only so far.",),
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
)
