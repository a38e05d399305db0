"""The CrowS-Pairs CSV layout (Nangia et al. 2020) for minimal-pair data.

CrowS-Pairs tools read ``sent_more`` (the more stereotypical sentence), ``sent_less``,
``stereo_antistereo`` and ``bias_type`` after an unnamed row-number column. StereoSet
intrasentence items are minimal pairs: the stereotype and the anti-stereotype sentence differ
only at the attribute, so they map to ``sent_more``/``sent_less`` with ``stereo``. The
unrelated option has no place in the layout, and intersentence items (different continuations
of a context) are left out and counted. CrowS-Pairs items are written as they are. A family
offers this layout by declaring ``crows-csv`` among its formats (BEC-Pro and SlguSet items have
no stereotype direction, so they do not). ``id`` is added as a last column so results can be
joined back.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from biasforge.errors import InputError
from biasforge.files import write_text_atomic

COLUMNS = ["sent_more", "sent_less", "stereo_antistereo", "bias_type", "id"]
# CrowS-Pairs names StereoSet's "race" domain "race-color"; the others keep their names
# (CrowS-Pairs has no "profession" category; tools group by the string as given).
BIAS_TYPES = {"race": "race-color"}


def stereoset_pairs(items: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Pairs from StereoSet intrasentence items, and how many other items were left out."""
    intra = items[items["split"] == "intrasentence"]
    if intra.empty:
        raise InputError("items", "no intrasentence items: crows-csv writes intrasentence pairs")
    rows = []
    for row in intra.itertuples(index=False):
        by_label = {s["label"]: s["sentence"] for s in row.sentences}
        if "stereotype" not in by_label or "anti-stereotype" not in by_label:
            raise InputError(
                "items", "needs a stereotype and an anti-stereotype sentence", record=row.id
            )
        rows.append(
            [
                by_label["stereotype"],
                by_label["anti-stereotype"],
                "stereo",
                BIAS_TYPES.get(row.bias_type, row.bias_type),
                row.id,
            ]
        )
    return pd.DataFrame(rows, columns=COLUMNS), len(items) - len(intra)


def _write(frame: pd.DataFrame, out: str | Path) -> None:
    write_text_atomic(out, frame.to_csv(lineterminator="\n"))


def write_stereoset_pairs(items: pd.DataFrame, out: str | Path) -> str:
    """``export convert --format crows-csv`` for StereoSet items."""
    frame, left_out = stereoset_pairs(items)
    _write(frame, out)
    return (
        f"wrote {len(frame)} pairs to {out} (CrowS-Pairs layout; "
        f"{left_out} non-intrasentence items left out)"
    )


def write_crowspairs(items: pd.DataFrame, out: str | Path) -> str:
    """``export convert --format crows-csv`` for CrowS-Pairs items: the columns as stored."""
    _write(items[COLUMNS].reset_index(drop=True), out)
    return f"wrote {len(items)} pairs to {out} (CrowS-Pairs layout)"
