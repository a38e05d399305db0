"""Arrow schema of a StereoSet candidate (the run directory contract, see RULES/DESIGN).

Beyond the shared columns, two are StereoSet-specific: ``source_sentences`` (the English
sentence behind each entry of ``sentences``, same order — what a reviewer's correction is
recorded against with ``TranslationMemory.prefer``) and ``variant`` ("" for a source item,
``syn:LABEL:WORD`` for a synonym variant).
"""

from __future__ import annotations

import pyarrow as pa

from curation.schema import CHECK, candidate_schema

__all__ = ["CHECK", "COLUMNS", "SCHEMA", "SENTENCE", "TRANSLATION"]

SENTENCE = pa.struct(
    [
        ("id", pa.string()),
        ("label", pa.string()),
        ("sentence", pa.string()),
        ("attribute", pa.string()),
    ]
)
TRANSLATION = pa.struct(
    [
        ("engine", pa.string()),
        ("source_lang", pa.string()),
        ("target_lang", pa.string()),
        ("cache_hit", pa.bool_()),
        ("glossary", pa.string()),
    ]
)
SCHEMA = candidate_schema(
    [
        ("split", pa.string()),
        ("bias_type", pa.string()),
        ("target", pa.string()),
        ("context", pa.string()),
        ("sentences", pa.list_(SENTENCE)),
        ("source_sentences", pa.list_(pa.string())),
        ("variant", pa.string()),
    ],
    trailing=[("translation", TRANSLATION)],
)
COLUMNS = SCHEMA.names
