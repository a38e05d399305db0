"""The StereoSet candidate record, as the curation pipeline writes it.

The schema is described once, in :mod:`biasforge.families.stereoset`; beyond the shared
columns, ``source_sentences`` holds the English sentence behind each entry of ``sentences``
(same order: what a reviewer's correction re-translates) and ``variant`` is "" for a source
item or ``syn:LABEL:WORD`` for a synonym variant.
"""

from __future__ import annotations

from biasforge.contract.schema import CHECK
from biasforge.families.stereoset import SCHEMA as FAMILY_SCHEMA
from biasforge.families.stereoset import SENTENCE, TRANSLATION

SCHEMA = FAMILY_SCHEMA
COLUMNS = SCHEMA.names

__all__ = ["CHECK", "COLUMNS", "SCHEMA", "SENTENCE", "TRANSLATION"]
