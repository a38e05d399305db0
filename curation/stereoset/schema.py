"""Arrow schema of a StereoSet candidate (the run directory contract, see RULES/DESIGN).

Beyond the shared columns, two are StereoSet-specific: ``source_sentences`` (the English
sentence behind each entry of ``sentences``, same order — what a reviewer's correction is
recorded against with ``TranslationMemory.prefer``) and ``variant`` ("" for a source item,
``syn:LABEL:WORD`` for a synonym variant).
"""

from __future__ import annotations

import pyarrow as pa

CHECK = pa.struct(
    [
        ("rule", pa.string()),
        ("passed", pa.bool_()),
        ("severity", pa.string()),
        ("detail", pa.string()),
    ]
)
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
SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("family", pa.string()),
        ("language", pa.string()),
        ("source_id", pa.string()),
        ("source_language", pa.string()),
        ("source_text", pa.string()),
        ("split", pa.string()),
        ("bias_type", pa.string()),
        ("target", pa.string()),
        ("context", pa.string()),
        ("sentences", pa.list_(SENTENCE)),
        ("source_sentences", pa.list_(pa.string())),
        ("variant", pa.string()),
        ("checks", pa.list_(CHECK)),
        ("needs_review", pa.bool_()),
        ("review_reasons", pa.list_(pa.string())),
        ("translation", TRANSLATION),
    ]
)
COLUMNS = SCHEMA.names
