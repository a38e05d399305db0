"""``biasforge curate crowspairs``: a thin layer over :func:`biasforge.curation.crowspairs.curate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.contract.rundir import CANDIDATES, REPORT
from biasforge.curation.commands import options as check


def crowspairs(
    out: check.Out,
    lang: check.Lang = "fr",
    source_lang: check.SourceLang = "en",
    language_pack: check.LanguagePack = None,
    source: Annotated[
        Path | None,
        typer.Option(help="CrowS-Pairs CSV/TSV, original or revised layout (default: sample)"),
    ] = None,
    limit: check.Limit = None,
    encoding: check.encoding_option("--source, --group-words, --glossary") = "utf-8",
    group_words: Annotated[
        Path | None, typer.Option(help="TSV 'bias_type<TAB>words' (default: bundled)")
    ] = None,
    server_url: check.ServerUrl = None,
    formality: check.Formality = None,
    glossary: check.Glossary = None,
    memory: check.Memory = None,
    overwrite: check.Overwrite = False,
) -> None:
    """CrowS-Pairs minimal pairs: audit (Blodgett et al. 2021 as flags), DeepL + memory with
    the differing words tagged, minimal-pair checks. --lang en: the English baseline."""
    from biasforge.curation.crowspairs import Options, curate
    from biasforge.curation.crowspairs.source import BUNDLED_SAMPLE

    options = Options(
        lang=lang,
        source_lang=source_lang,
        language_pack=language_pack,
        source=str(source or BUNDLED_SAMPLE),
        limit=limit,
        group_words=group_words,
        encoding=encoding,
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
