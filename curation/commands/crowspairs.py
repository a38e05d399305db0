"""``biasforge curate crowspairs``: a thin layer over :func:`biasforge.curation.crowspairs.curate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.contract.rundir import CANDIDATES, REPORT


def crowspairs(
    out: Annotated[Path, typer.Option("--out", help="run directory to create")],
    lang: Annotated[
        str, typer.Option("--lang", help="target language; the source's own: no translation")
    ] = "fr",
    source_lang: Annotated[str, typer.Option(help="language of the source pairs")] = "en",
    source: Annotated[
        Path | None,
        typer.Option(help="CrowS-Pairs CSV/TSV, original or revised layout (default: sample)"),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=0, help="only the first N pairs")] = None,
    group_words: Annotated[
        Path | None, typer.Option(help="TSV 'bias_type<TAB>words' (default: bundled)")
    ] = None,
    server_url: Annotated[
        str | None,
        typer.Option("--server-url", envvar="DEEPL_SERVER_URL", help="DeepL API server"),
    ] = None,
    formality: Annotated[str | None, typer.Option(help="DeepL formality")] = None,
    glossary: Annotated[Path | None, typer.Option(help="TSV 'source<TAB>target'")] = None,
    memory: Annotated[Path | None, typer.Option(help="translation memory file")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace an existing run directory")] = False,
) -> None:
    """CrowS-Pairs minimal pairs: audit (Blodgett et al. 2021 as flags), DeepL + memory with
    the differing words tagged, minimal-pair checks. --lang en: the English baseline."""
    from biasforge.curation.crowspairs import Options, curate
    from biasforge.curation.crowspairs.source import BUNDLED_SAMPLE

    options = Options(
        lang=lang,
        source_lang=source_lang,
        source=str(source or BUNDLED_SAMPLE),
        limit=limit,
        group_words=group_words,
        server_url=server_url,
        formality=formality,
        glossary=glossary,
        memory=memory,
    )
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
