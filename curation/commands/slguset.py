"""``biasforge curate slguset``: built from :class:`~biasforge.curation.slguset.options.Options`
over :func:`biasforge.curation.slguset.curate` (and, with ``--executor slurm``,
:func:`~biasforge.curation.slguset.pipeline.submit_slurm`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.contract.rundir import CANDIDATES, REPORT
from biasforge.curation import options as common
from biasforge.curation.slguset.options import Options

DryRun = Annotated[
    bool,
    typer.Option(
        help="--executor slurm: write the job into OUT.slurm/ and print the sbatch scripts, "
        "submit nothing"
    ),
]


def run(
    options: Options,
    out: common.Out = Path("runs/slguset"),
    overwrite: common.Overwrite = False,
    dry_run: DryRun = False,
) -> None:
    """SlguSet: mine gender-neutral Chinese sentences with one gender keyword from a corpus."""
    from biasforge.curation.slguset import curate
    from biasforge.errors import BiasforgeError

    if dry_run and options.executor != "slurm":
        raise BiasforgeError("--dry-run goes with --executor slurm")
    if options.executor == "slurm":
        _submit(options, out, dry_run=dry_run, overwrite=overwrite)
        return
    stats = curate(options, out, overwrite=overwrite).stats
    skipped = stats.get("bad_lines_skipped") or 0
    typer.echo(
        f"slguset: {stats['kept']} candidates kept ({stats['needs_review']} flagged for review), "
        f"{stats['rejected']} rejected, from {stats['raw_chars']:,} characters "
        + (f"({skipped:,} bad lines skipped) " if skipped else "")
        + f"-> {out / CANDIDATES}, report: {out / REPORT}"
    )


def _submit(options: Options, out: Path, *, dry_run: bool, overwrite: bool) -> None:
    """Submit (or, dry run, print) the Slurm jobs that mine and then merge the run."""
    from biasforge.curation.slguset.pipeline import submit_slurm

    job = submit_slurm(options, out, dry_run=dry_run, overwrite=overwrite)
    for args, script, job_id in job.calls:
        if dry_run:
            typer.echo(f"# job {job_id}\nsbatch {' '.join(args)} <<'EOF'\n{script}EOF")
        else:
            typer.echo(f"submitted Slurm job {job_id}: sbatch {' '.join(args)}")
    verb = "would be submitted (dry run)" if dry_run else "submitted"
    typer.echo(
        f"slguset: {len(job.calls)} Slurm jobs {verb}; job files in {job.work}, "
        f"the run appears at {job.out} when the merge job ends"
    )


slguset = common.curate_command(Options, run)
