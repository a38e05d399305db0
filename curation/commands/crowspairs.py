"""``biasforge curate crowspairs``: built from
:class:`~biasforge.curation.crowspairs.options.Options` over
:func:`biasforge.curation.crowspairs.curate`."""

from __future__ import annotations

import typer

from biasforge.contract.rundir import CANDIDATES, REPORT
from biasforge.curation import options as common
from biasforge.curation.crowspairs.options import Options


def run(options: Options, out: common.Out, overwrite: common.Overwrite = False) -> None:
    """CrowS-Pairs minimal pairs: audit (Blodgett et al. 2021 as flags), DeepL + memory with
    the differing words tagged, minimal-pair checks. --lang en: the English baseline."""
    from biasforge.curation.crowspairs import curate

    stats = curate(options, out, overwrite=overwrite).stats
    t = stats["translation"]
    sent = (
        "no translation (source language)"
        if options.same_language
        else f"translation: {t['characters_sent']} of {t['characters_total']} characters sent"
    )
    typer.echo(
        f"crowspairs {stats['language']}: {stats['kept']} pairs kept ({stats['needs_review']} "
        f"flagged for review), {stats['rejected']} rejected; {sent} -> {out / CANDIDATES}, "
        f"report: {out / REPORT}"
    )


crowspairs = common.curate_command(Options, run)
