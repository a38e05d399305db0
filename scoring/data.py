"""Read the items to score: a release folder, one config folder, a parquet file, or a Hub id.

Scoring never imports curation or exports; it reads through the shared contract, which
verifies every folder against its manifest (:func:`biasforge.contract.folders.read_items`), and
checks the items against the family's schema (:mod:`biasforge.families`), so an edited file or
a wrong value or type is refused with the file, record and column instead of being scored.
Accepted paths:

- a release version folder ``<name>/<version>/<config>/<split>.parquet`` (all configs read),
  one of its config folders or parquet files (the whole release is verified first),
- a curation run folder (its ``candidates.parquet``) or reviewed records (accepted rows),
- one ``.parquet`` file outside any biasforge folder, read as it is,
- otherwise the argument is tried as a Hugging Face dataset id (needs network).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

from biasforge import families
from biasforge.contract.folders import combined_sha256, read_items
from biasforge.contract.redact import public_path
from biasforge.contract.schema import FamilySchema
from biasforge.errors import InputError


def load_items(spec: str, family: str) -> pd.DataFrame:
    """Load and validate the items of ``family`` from a path or Hub id.

    A local path is read through the contract's verifying reader, so an edited file, a
    missing manifest or a folder of another family is refused before anything is scored.
    """
    path = Path(spec)
    schema = families.get(family).schema
    if path.exists():
        found = read_items(path, family)
        for name, table in found.tables.items():  # each file: a missing column is not null
            file = found.root if found.kind == "file" else found.root / name
            _check_columns(table.column_names, schema, file)
        items, where = found.frame, str(path)
    else:
        items, where = _load_hub(spec), spec
        _check_columns(items.columns, schema, where)
    if "family" in items.columns:
        items = items[items["family"].isna() | (items["family"] == family)]
    if items.empty:
        raise InputError(where, f"no {family} items found")
    _check_values(items, schema, where)
    if items["id"].duplicated().any():
        dup = items.loc[items["id"].duplicated(), "id"].iloc[0]
        raise InputError(where, "duplicate item id", record=str(dup))
    return items.reset_index(drop=True)


def _check_columns(columns, schema: FamilySchema, where: str | Path) -> None:
    """Refuse a table without a column the family's procedures read (one file at a time, so
    a column dropped from one config is not read as missing values)."""
    optional = {"family", "language"}  # a dataset of one family and language may omit them
    missing = [c for c in schema.required() if c not in columns and c not in optional]
    if missing:
        raise InputError(
            where, f"not a {schema.family} dataset: missing columns {', '.join(missing)}"
        )


def _check_values(items: pd.DataFrame, schema: FamilySchema, where: str) -> None:
    """Refuse items whose types or values break the family's schema (first one named)."""
    columns = [c for c in schema.names if c in items.columns]
    try:
        table = pa.Table.from_pandas(items[columns], preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(where, f"columns of mixed types: {exc}") from exc
    table = _integers_back(table, items, schema, where)
    problems = schema.check(table)
    if problems:
        first = problems[0]
        more = f" ({len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InputError(where, f"{first}{more}", record=first.record)


def _integers_back(table: pa.Table, items: pd.DataFrame, schema: FamilySchema, where: str):
    """pandas reads an integer column with nulls (a family's optional index) as floats: such a
    column gets its integer type back; a float that is not a whole number is refused."""
    for n, name in enumerate(table.column_names):
        expected = schema.arrow.field(name).type
        if pa.types.is_integer(expected) and pa.types.is_floating(table.schema.field(n).type):
            try:
                column = pa.array(items[name], type=expected, from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                raise InputError(where, f"column {name}: not whole numbers ({exc})") from exc
            table = table.set_column(n, name, column)
    return table


def _load_hub(spec: str) -> pd.DataFrame:
    try:
        import datasets

        loaded = datasets.load_dataset(spec)
    except Exception as exc:
        raise InputError(spec, f"not a local path and not loadable from the Hub: {exc}") from exc
    frames = [split.to_pandas() for split in loaded.values()]
    return pd.concat(frames, ignore_index=True)


def dataset_identity(spec: str) -> dict[str, object]:
    """What was scored: the release's name and version (from its verified manifest), the
    sha256 of every parquet file read, and one sha256 for the whole input (the file's own for
    one file, else of the sorted "path sha256" lines)."""
    from biasforge.files import sha256_file

    path = Path(spec)
    if not path.exists():
        return {"path": spec, "source": "hub", "sha256": "", "files": {}}
    found = read_items(path)
    listed = found.manifest.get("files", {})
    digests = {
        name: listed[name] if name in listed else sha256_file(found.root) for name in found.tables
    }
    return {
        "path": public_path(spec),  # reports travel: no absolute path of this machine
        "source": "local",
        "name": found.manifest.get("name", ""),
        "version": found.manifest.get("version", ""),
        "kind": found.kind,
        "sha256": combined_sha256(digests),
        "files": digests,
    }
