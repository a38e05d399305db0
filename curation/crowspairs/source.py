"""Reading CrowS-Pairs CSV files: the original layout (an unnamed index column, comma
separated, ``race-color``) and the revised ones (an ``id`` column, tab or comma separated,
spelling variants of the bias types such as ``race-colour`` or ``race_color``).

Only ``sent_more``, ``sent_less``, ``stereo_antistereo`` and ``bias_type`` are read; every
problem is an :class:`~biasforge.errors.InputError` naming the file and line. The file is
read in the user's ``--encoding`` (:mod:`biasforge.textfiles`) and parsed strictly: one stray
quote makes the csv module join fields and shift the columns of a row, which would keep the
row with a wrong id, so a row must have exactly the header's fields and an id without
separators, spaces or quotes.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pandas as pd

from biasforge.errors import InputError
from biasforge.families.crowspairs import BIAS_TYPES, DIRECTIONS
from biasforge.resources import package_path
from biasforge.textfiles import DEFAULT, control_problem, open_text

BUNDLED_SAMPLE = package_path("biasforge.curation", "data", "crowspairs", "sample_en.csv")
REQUIRED = ("sent_more", "sent_less", "stereo_antistereo", "bias_type")
ID_COLUMNS = ("", "id", "index", "Unnamed: 0")
#: spellings of the revised files and of other tools, mapped to the published names
BIAS_ALIASES = {"race-colour": "race-color", "race": "race-color"}
#: what an id of the original (a row number) or revised files (a number or a short code) is
SOURCE_ID = re.compile(r"[\w.:-]+")


def normal_bias_type(value: str) -> str:
    name = value.strip().lower().replace("_", "-").replace(" ", "-")
    return BIAS_ALIASES.get(name, name)


def _dialect(header: str) -> str:
    return "\t" if header.count("\t") > header.count(",") else ","


def _shape_problem(raw: dict, width: int) -> str | None:
    """Why a row parsed into another number of fields than the header has (a stray quote)."""
    extra = raw.get(None)
    if extra:
        return f"{width + len(extra)} fields where the header has {width} (a stray quote?)"
    missing = sum(value is None for value in raw.values())
    if missing:
        return f"{width - missing} fields where the header has {width} (a stray quote?)"
    return None


def _row(
    line: int, index: int, raw: dict[str, str], path: Path, id_column: str | None
) -> dict[str, str]:
    """The pair on ``line`` (the ``index``-th row, its id when the file has none)."""
    problem = _shape_problem(raw, len(raw) - (None in raw))
    if problem:
        raise InputError(path, problem, line=line)
    row = {name: (raw.get(name) or "").strip() for name in REQUIRED}
    for name in ("sent_more", "sent_less"):
        problem = control_problem(row[name])
        if problem:
            raise InputError(path, f"{name}: {problem}", line=line)
    row["bias_type"] = normal_bias_type(row["bias_type"])
    row["stereo_antistereo"] = row["stereo_antistereo"].lower()
    for name, allowed in (("bias_type", BIAS_TYPES), ("stereo_antistereo", DIRECTIONS)):
        if row[name] not in allowed:
            raise InputError(
                path, f"{name} {row[name]!r} is not one of {', '.join(allowed)}", line=line
            )
    source_id = (raw.get(id_column) or "").strip() if id_column is not None else ""
    if source_id and not SOURCE_ID.fullmatch(source_id):
        raise InputError(
            path,
            f"id {source_id[:40]!r} is not an id (columns shifted by a stray quote?)",
            line=line,
        )
    row["source_id"] = source_id or str(index)
    return row


def _csv_problem(exc: csv.Error) -> str:
    """What the csv module could not parse, in the user's terms."""
    if "field limit" in str(exc):
        return (
            f"a field is longer than {csv.field_size_limit():,} characters ({exc}); a CrowS-Pairs "
            "row is two sentences and their labels"
        )
    return f"{exc} (a stray quote?)"


def read_pairs(path: str | Path, encoding: str = DEFAULT) -> pd.DataFrame:
    """The pairs of a CrowS-Pairs CSV/TSV, with ``source_id`` (the file's id, else the row)."""
    path = Path(path)
    with open_text(path, encoding) as handle:
        delimiter = _dialect(handle.readline())
        handle.seek(0)
        reader = csv.DictReader(handle, delimiter=delimiter, strict=True)
        try:
            header = reader.fieldnames or []
        except csv.Error as exc:  # e.g. a header line of megabytes without a delimiter
            problem = f"cannot read the header line: {_csv_problem(exc)}"
            raise InputError(path, problem, line=1) from None
        missing = [name for name in REQUIRED if name not in header]
        if missing:
            raise InputError(path, f"missing column(s) {', '.join(missing)}", line=1)
        id_column = next((c for c in ID_COLUMNS if c in header), None)
        rows, lines = [], {}
        try:
            for i, raw in enumerate(reader):
                row = _row(reader.line_num, i, raw, path, id_column)
                first = lines.setdefault(row["source_id"], reader.line_num)
                if first != reader.line_num:  # two items with one id: refused at push/release
                    raise InputError(
                        path,
                        f"id {row['source_id']!r} is already on line {first}",
                        line=reader.line_num,
                    )
                rows.append(row)
        except csv.Error as exc:  # DictReader's own line_num is that of the last good row
            line = reader.reader.line_num
            raise InputError(path, _csv_problem(exc), line=line) from None
    if not rows:
        raise InputError(path, "no pairs")
    return pd.DataFrame(rows)
