"""``biasforge curate stereoset``: a thin layer over :func:`biasforge.curation.stereoset.curate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.contract.rundir import CANDIDATES, REPORT
from biasforge.curation.commands import options as check


def stereoset(
    lang: check.Lang = "fr",
    source_lang: check.SourceLang = "en",
    language_pack: check.LanguagePack = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="run directory to create (not needed with --dry-run)"),
    ] = None,
    source: Annotated[
        str,
        typer.Option(
            "--source",
            help="StereoSet as official JSON, flattened JSONL, or a Hugging Face hub id "
            "(default: the bundled sample)",
        ),
    ] = "",
    translator: Annotated[str, typer.Option("--translator", help="translation backend")] = "deepl",
    server_url: check.ServerUrl = None,
    formality: check.Formality = None,
    glossary: check.Glossary = None,
    memory: check.Memory = None,
    synonyms: Annotated[
        Path | None,
        typer.Option(help="TSV 'attribute<TAB>synonym[<TAB>target]': add synonym variants"),
    ] = None,
    lexicon: Annotated[
        Path | None,
        typer.Option(help="TSV of words with no exact translation (default: the language pack's)"),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="print characters to send and cost; send nothing")
    ] = False,
    price_per_million: Annotated[
        float,
        typer.Option(
            min=0,
            callback=check.finite,
            help="price per million characters (DeepL API Pro list: 20 EUR)",
        ),
    ] = 20.0,
    retries: Annotated[
        int, typer.Option(min=1, help="attempts per request on 429/5xx/network")
    ] = 5,
    retry_delay: Annotated[
        float, typer.Option(min=0, callback=check.finite, help="first backoff pause in seconds")
    ] = 1.0,
    hf_split: Annotated[str, typer.Option(help="split when --source is a hub id")] = "validation",
    limit: check.Limit = None,
    encoding: check.encoding_option("--source, --glossary, --synonyms, --lexicon") = "utf-8",
    overwrite: check.Overwrite = False,
) -> None:
    """StereoSet in another language (StereoSet-fr): audit, DeepL + memory, structure, flags.
    With --lang equal to --source-lang: the same checks on the source, nothing translated."""
    from biasforge.curation.stereoset import Options, curate
    from biasforge.curation.stereoset import dry_run as estimate
    from biasforge.curation.stereoset.source import BUNDLED_SAMPLE
    from biasforge.curation.translation.runner import RetryPolicy
    from biasforge.errors import BiasforgeError

    options = Options(
        lang=lang,
        source_lang=source_lang,
        language_pack=language_pack,
        source=source or str(BUNDLED_SAMPLE),
        translator=translator,
        server_url=server_url,
        formality=formality,
        glossary=glossary,
        memory=memory,
        synonyms=synonyms,
        lexicon=lexicon,
        retry=RetryPolicy(attempts=retries, delay=retry_delay),
        price_per_million=price_per_million,
        hf_split=hf_split,
        limit=limit,
        encoding=encoding,
    )
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
