"""Reading CrowS-Pairs CSV files: the original layout (an unnamed index column, comma
separated, ``race-color``) and the revised ones (an ``id`` column, tab or comma separated,
spelling variants of the bias types such as ``race-colour`` or ``race_color``).

Only ``sent_more``, ``sent_less``, ``stereo_antistereo`` and ``bias_type`` are read; every
problem is an :class:`~biasforge.errors.InputError` naming the file and line.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from biasforge.errors import InputError
from biasforge.families.crowspairs import BIAS_TYPES, DIRECTIONS
from biasforge.resources import package_path

BUNDLED_SAMPLE = package_path("biasforge.curation", "data", "crowspairs", "sample_en.csv")
REQUIRED = ("sent_more", "sent_less", "stereo_antistereo", "bias_type")
ID_COLUMNS = ("", "id", "index", "Unnamed: 0")
#: spellings of the revised files and of other tools, mapped to the published names
BIAS_ALIASES = {"race-colour": "race-color", "race": "race-color"}


def normal_bias_type(value: str) -> str:
    name = value.strip().lower().replace("_", "-").replace(" ", "-")
    return BIAS_ALIASES.get(name, name)


def _dialect(path: Path) -> str:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        header = handle.readline()
    return "\t" if header.count("\t") > header.count(",") else ","


def _row(line: int, raw: dict[str, str], path: Path, id_column: str | None) -> dict[str, str]:
    row = {name: (raw.get(name) or "").strip() for name in REQUIRED}
    row["bias_type"] = normal_bias_type(row["bias_type"])
    row["stereo_antistereo"] = row["stereo_antistereo"].lower()
    for name, allowed in (("bias_type", BIAS_TYPES), ("stereo_antistereo", DIRECTIONS)):
        if row[name] not in allowed:
            raise InputError(
                path, f"{name} {row[name]!r} is not one of {', '.join(allowed)}", line=line
            )
    source_id = (raw.get(id_column) or "").strip() if id_column is not None else ""
    row["source_id"] = source_id or str(line - 2)
    return row


def read_pairs(path: str | Path) -> pd.DataFrame:
    """The pairs of a CrowS-Pairs CSV/TSV, with ``source_id`` (the file's id, else the row)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such file")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle, delimiter=_dialect(path))
        header = reader.fieldnames or []
        missing = [name for name in REQUIRED if name not in header]
        if missing:
            raise InputError(path, f"missing column(s) {', '.join(missing)}", line=1)
        id_column = next((c for c in ID_COLUMNS if c in header), None)
        try:
            rows = [_row(i + 2, raw, path, id_column) for i, raw in enumerate(reader)]
        except csv.Error as exc:
            raise InputError(path, str(exc), line=reader.line_num) from None
    if not rows:
        raise InputError(path, "no pairs")
    return pd.DataFrame(rows)
