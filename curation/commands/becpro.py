"""``biasforge curate becpro``: built from :class:`~biasforge.curation.becpro.options.Options`
over :func:`biasforge.curation.becpro.curate`."""

from __future__ import annotations

import typer

from biasforge.contract.rundir import CANDIDATES, REPORT
from biasforge.curation import options as common
from biasforge.curation.becpro.options import Options


def run(options: Options, out: common.Out, overwrite: common.Overwrite = False) -> None:
    """Bias Evaluation Corpus with Professions: templates × professions × person phrases."""
    from biasforge.curation.becpro import curate

    stats = curate(options, out, overwrite=overwrite).stats
    typer.echo(
        f"becpro {stats['language']}/{stats['variant']}: {stats['kept']} items kept "
        f"({stats['needs_review']} flagged for review), {stats['rejected']} rejected "
        f"-> {out / CANDIDATES}, report: {out / REPORT}"
    )


becpro = common.curate_command(Options, run)
