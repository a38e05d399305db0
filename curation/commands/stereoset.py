"""``biasforge curate stereoset``: built from
:class:`~biasforge.curation.stereoset.options.Options` over
:func:`biasforge.curation.stereoset.curate` and its ``dry_run``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.contract.rundir import CANDIDATES, REPORT
from biasforge.curation import options as common
from biasforge.curation.stereoset.options import Options

Out = Annotated[
    Path | None,
    typer.Option("--out", help="run directory to create (not needed with --dry-run)"),
]
DryRun = Annotated[
    bool, typer.Option("--dry-run", help="print characters to send and cost; send nothing")
]


def run(
    options: Options, out: Out = None, overwrite: common.Overwrite = False, dry_run: DryRun = False
) -> None:
    """StereoSet in another language (StereoSet-fr): audit, DeepL + memory, structure, flags.
    With --lang equal to --source-lang: the same checks on the source, nothing translated."""
    from biasforge.curation.stereoset import curate
    from biasforge.curation.stereoset import dry_run as estimate
    from biasforge.errors import BiasforgeError

    if out is None and not dry_run:
        raise BiasforgeError("--out RUN is required (or use --dry-run to estimate the cost)")
    plan = estimate(options)
    if dry_run:
        typer.echo(plan.summary())
    if plan.quota:
        typer.echo(plan.quota, err=not dry_run)
    if dry_run:
        return
    stats = curate(options, out, overwrite=overwrite).stats
    if not _stereoset_summary(stats, out):
        # not typer.Exit: biasforge.cli.main runs click with standalone_mode=False, which turns
        # Exit into a return value that main() does not pass on
        raise SystemExit(1)


def _stereoset_summary(stats: dict, out: Path) -> bool:
    """Print what the StereoSet run did; False when some items could not be translated."""
    t = stats["translation"]
    sent = (
        "no translation (source language)"
        if stats["language"] == stats.get("source_language")
        else f"translation: {t['characters_sent']} of {t['characters_total']} characters sent "
        f"({t['cache_hits']} of {t['units']} texts from the memory, {t['requests']} requests)"
    )
    typer.echo(
        f"stereoset {stats['language']}: {stats['kept']} items kept "
        f"({stats['needs_review']} flagged for review), {stats['rejected']} rejected; "
        f"{sent} -> {out / CANDIDATES}, report: {out / REPORT}"
    )
    if not stats["translation_failed"]:
        return True
    typer.secho(
        f"{stats['translation_failed']} items could not be translated "
        f"({'; '.join(t['errors'][:2])}); they are in {out}/rejected.parquet. Rerun the same "
        "command with --overwrite to retry only them.",
        fg=typer.colors.YELLOW,
        err=True,
    )
    return False


stereoset = common.curate_command(Options, run)
