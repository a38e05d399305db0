"""Native items: ``curate FAMILY --lang L --native FILE`` adds items written in L.

The French CrowS-Pairs (Névéol et al. 2022) collected about 210 pairs written in French beside
its translations, KoBBQ (Jin et al. 2024) templates for Korean-specific biases: a stereotype a
culture holds that the source never had cannot be translated in. A native file is in the
family's own source format, so it is curated by the family's own pipeline as a run in the
source language (``source_lang`` = ``lang``: nothing is translated, nothing is paid), with the
same audit and checks; its items then join the translated ones in one run, marked
``origin=native`` and ``adaptation=native`` (:mod:`biasforge.contract.adaptation`), and go to
review and release like the others. Native items have no counterpart in the source: their
``source_id`` is prefixed ``native:`` and their id derived again, so none collides with a
translated item's.

Every translated family gets it by decorating its pipeline's ``curate`` with
:func:`with_native`; the option is :class:`~biasforge.curation.translation.settings.
TranslationSettings`' ``native``. The native file is curated first: a bad one is refused (one
line naming file and line) before anything is translated.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from biasforge import families
from biasforge.contract import adaptation
from biasforge.contract.redact import public_path
from biasforge.contract.rundir import (
    KIND,
    REJECTED,
    REPORT,
    Run,
    RunResult,
    input_entry,
    read_run,
    read_table,
    run_writer,
)
from biasforge.files import check_not_input, check_replaceable, stable_id

#: how a native item's source id starts (it has no counterpart in the source)
PREFIX = "native:"
Curate = Callable[..., RunResult]


def with_native(curate: Curate) -> Curate:
    """``curate(options, out, *, overwrite, **engine)`` that also curates ``options.native``
    (if given) and writes both into ``out`` as one run."""

    @functools.wraps(curate)
    def curate_with_native(
        options: Any, out: str | Path, *, overwrite: bool = False, **engine: Any
    ) -> RunResult:
        native = getattr(options, "native", None)
        if native is None:
            return curate(options, out, overwrite=overwrite, **engine)
        check_not_input(Path(out), (native,))
        check_replaceable(out, overwrite=overwrite, kind=KIND)  # before anything is paid for
        with tempfile.TemporaryDirectory(prefix="biasforge-native-") as tmp:
            curate(native_options(options), Path(tmp) / "native")
            curate(replace(options, native=None), Path(tmp) / "translated", **engine)
            runs = read_run(Path(tmp) / "translated"), read_run(Path(tmp) / "native")
            return combine(out, *runs, native_file=native, overwrite=overwrite)

    return curate_with_native


def native_options(options: Any) -> Any:
    """The options of the native file's run: its items are read as the source, in ``lang``
    (nothing to translate), all of them (``--limit`` counts source items)."""
    return replace(
        options,
        source=str(options.native),
        source_lang=options.lang,
        native=None,
        limit=None,
        glossary=None,
    )


def _marked(table: pa.Table, origin: str) -> pa.Table:
    """``table`` with ``origin`` set (and, native, a new id and source id and ``adaptation``)."""
    n = table.num_rows
    if origin == adaptation.NATIVE:
        ids = [stable_id(str(i), adaptation.NATIVE) for i in table.column("id").to_pylist()]
        sources = [PREFIX + str(s) for s in table.column("source_id").to_pylist()]
        table = table.set_column(table.schema.get_field_index("id"), "id", pa.array(ids))
        at = table.schema.get_field_index("source_id")
        table = table.set_column(at, "source_id", pa.array(sources, pa.string()))
    decided = adaptation.NATIVE if origin == adaptation.NATIVE else None
    table = table.append_column(adaptation.ADAPTATION, pa.array([decided] * n, pa.string()))
    table = table.append_column(adaptation.ADAPTATION_NOTE, pa.array([""] * n, pa.string()))
    return table.append_column(adaptation.ORIGIN, pa.array([origin] * n, pa.string()))


def _both(translated: pa.Table, native: pa.Table, schema: pa.Schema) -> pa.Table:
    tables = [_marked(translated, adaptation.TRANSLATED), _marked(native, adaptation.NATIVE)]
    names = [n for n in schema.names if n in tables[0].column_names]
    return pa.concat_tables([t.select(names).cast(schema) for t in tables])


def combine(
    out: str | Path, translated: Run, native: Run, *, native_file: Path, overwrite: bool
) -> RunResult:
    """One run of ``translated`` and ``native``: candidates and rejected rows of both (marked),
    the translated run's stats with a ``native`` entry, both reports, every input."""
    family = families.get(str(translated.manifest.family))
    schema = adaptation.schema_with_adaptation(family.schema)
    rejected_schema = schema.arrow.append(pa.field("reasons", pa.list_(pa.string())))
    own = _native_stats(native, native_file)
    totals = {  # what the run holds, native items included (``native`` says how many)
        k: translated.stats[k] + own[k]
        for k in ("kept", "rejected", "needs_review")
        if isinstance(translated.stats.get(k), int)
    }
    stats = {**translated.stats, **totals, "native": own}
    config = {**(translated.manifest.get("config") or {}), "native": public_path(native_file)}
    inputs = [*(translated.manifest.get("inputs") or []), input_entry(native_file, "native items")]
    with run_writer(
        out, schema=schema, inputs=inputs, config=config, overwrite=overwrite
    ) as writer:
        writer.kept.add_table(_both(translated.table, native.table, schema.arrow))
        rejected = [read_table(r.path / REJECTED) for r in (translated, native)]
        writer.rejected.add_table(_both(*rejected, rejected_schema))
        writer.finish(stats, _report(translated, native, stats["native"]))
    return RunResult(Path(out), stats)


def _native_stats(run: Run, native_file: Path) -> dict[str, Any]:
    flagged = run.table.column("needs_review") if run.table.num_rows else pa.array([], pa.bool_())
    return {
        "source": public_path(native_file),
        "items": run.table.num_rows + len(run.rejected),
        "kept": run.table.num_rows,
        "rejected": len(run.rejected),
        "needs_review": int(pc.sum(pc.fill_null(flagged, False).cast("int64")).as_py() or 0),
    }


def _report(translated: Run, native: Run, stats: dict[str, Any]) -> str:
    """The translated run's report, then the native run's under its own heading."""
    own = (native.path / REPORT).read_text(encoding="utf-8")
    heading = (
        f"\n\n# Native items ({stats['source']})\n\n{stats['kept']} kept, {stats['rejected']} "
        f"rejected, {stats['needs_review']} flagged for review: written in the language, not "
        "translated; same checks, marked origin=native.\n\n"
    )
    body = own.split("\n", 1)[1] if own.startswith("# ") else own  # its title is the heading
    return (translated.path / REPORT).read_text(encoding="utf-8").rstrip() + heading + body
