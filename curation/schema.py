"""The candidate envelope shared by every family (DESIGN.md, "Candidate record").

Each family's Arrow schema is the envelope's identity columns, then its own flat typed
columns, then the verdict columns that :func:`curation.checks.run_checks` adds. Defining them
once keeps the run directories of all families readable by the same later stages.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa

CHECK = pa.struct(
    [
        ("rule", pa.string()),
        ("passed", pa.bool_()),
        ("severity", pa.string()),
        ("detail", pa.string()),
    ]
)
SPAN = pa.struct([("start", pa.int32()), ("end", pa.int32())])

IDENTITY = [
    pa.field("id", pa.string()),
    pa.field("family", pa.string()),
    pa.field("language", pa.string()),
    pa.field("source_id", pa.string()),
    pa.field("source_language", pa.string()),
    pa.field("source_text", pa.string()),
]
VERDICTS = [
    pa.field("checks", pa.list_(CHECK)),
    pa.field("needs_review", pa.bool_()),
    pa.field("review_reasons", pa.list_(pa.string())),
]


def candidate_schema(
    family_fields: Iterable[tuple[str, pa.DataType]],
    trailing: Iterable[tuple[str, pa.DataType]] = (),
) -> pa.Schema:
    """Envelope identity columns, the family's columns, the verdicts, then ``trailing``."""
    return pa.schema(
        [
            *IDENTITY,
            *(pa.field(n, t) for n, t in family_fields),
            *VERDICTS,
            *(pa.field(n, t) for n, t in trailing),
        ]
    )
