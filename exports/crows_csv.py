"""The CrowS-Pairs CSV layout (Nangia et al. 2020) for minimal-pair data.

CrowS-Pairs tools read ``sent_more`` (the more stereotypical sentence), ``sent_less``,
``stereo_antistereo`` and ``bias_type`` after an unnamed row-number column. StereoSet
intrasentence items are minimal pairs: the stereotype and the anti-stereotype sentence differ
only at the attribute, so they map to ``sent_more``/``sent_less`` with ``stereo``. The
unrelated option has no place in the layout. Intersentence items (different continuations of
a context) and BEC-Pro/SlguSet items (no stereotype direction) are not minimal pairs of this
kind and are refused rather than forced into the layout. ``id`` is added as a last column so
results can be joined back.
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


def to_crows_frame(items: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Pairs from StereoSet intrasentence items, and how many other items were left out."""
    if "family" not in items or (items["family"] != "stereoset").any():
        raise InputError(
            "items",
            "crows-csv needs minimal pairs (StereoSet intrasentence items); BEC-Pro and "
            "SlguSet items have no stereotype/anti-stereotype direction",
        )
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


def write_crows_csv(items: pd.DataFrame, out: str | Path) -> dict[str, int]:
    frame, left_out = to_crows_frame(items)
    write_text_atomic(out, frame.to_csv(lineterminator="\n"))
    return {"rows": len(frame), "left_out": left_out}
