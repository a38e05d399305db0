"""How a release's rows split into configs (subsets): the family decides, this module groups."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from biasforge.contract.release import SPLIT
from biasforge.errors import BiasforgeError
from biasforge.families import Family, family_of

__all__ = ["SPLIT", "family_of_table", "split_configs"]


def family_of_table(table: pa.Table, where: str) -> Family:
    """The one registered family of a table's rows; releases never mix families."""
    if "family" not in table.column_names:
        raise BiasforgeError(f"{where}: no 'family' column; these are not biasforge candidates")
    return family_of(table.column("family").unique().to_pylist(), where)


def split_configs(table: pa.Table, family: Family) -> dict[str, pa.Table]:
    """Rows grouped by config, each in input order; the family's own order comes first."""
    names = pa.array(family.config_of(table))
    order = list(family.config_order)
    present = sorted(
        set(names.to_pylist()),
        key=lambda n: (n not in order, order.index(n) if n in order else 0, n),
    )
    return {name: table.filter(pc.equal(names, name)) for name in present}
