"""The work behind ``biasforge curate stereoset`` (kept out of curation/cli.py so the CLI
module stays a thin list of options)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from biasforge.errors import BiasforgeError
from curation.tables import read_tsv

BUNDLED_SAMPLE = Path(__file__).resolve().parents[1] / "data" / "stereoset" / "sample_dev_en.jsonl"


def read_glossary(path: Path) -> dict[str, str]:
    """A TSV with header ``source<TAB>target``: fixed translations of terms."""
    rows = read_tsv(path, ["source", "target"], non_empty=["source", "target"])
    return {row["source"]: row["target"] for _, row in rows}


def quota_note(translator, characters: int) -> str | None:
    """What the account has left vs what the run needs (``/v2/usage``; free of charge).

    Only asked when a key is configured; a run that does not fit still starts, stops at the
    quota with every untranslated item reported, and resumes from the memory next time.
    """
    if not characters or not os.environ.get("DEEPL_AUTH_KEY"):
        return None
    try:
        used, limit = translator.usage()
    except Exception as exc:  # usage is advice only: never block a run on it
        return f"DeepL usage unavailable ({exc})"
    if used is None or limit is None:
        return None
    left = max(limit - used, 0)
    verdict = "fits" if characters <= left else "does NOT fit: the run will stop at the quota"
    return (
        f"DeepL account: {used} of {limit} characters used this period, {left} left; "
        f"this run needs {characters} ({verdict})"
    )


def run(
    *,
    source: str,
    lang: str,
    out: Path | None,
    translator_name: str,
    server_url: str | None,
    formality: str | None,
    glossary: Path | None,
    memory_path: Path | None,
    synonyms: Path | None,
    lexicon: Path | None,
    dry_run: bool,
    price_per_million: float,
    retries: int,
    retry_delay: float,
    hf_split: str,
    limit: int | None,
    overwrite: bool,
) -> int:
    from curation.stereoset.pipeline import DryRun, Options, curate_stereoset
    from curation.translation.deepl_backend import DeepLTranslator
    from curation.translation.memory import TranslationMemory
    from curation.translation.runner import RetryPolicy

    if translator_name != "deepl":
        raise BiasforgeError(f"unknown translator {translator_name!r}; available: deepl")
    if out is None and not dry_run:
        raise BiasforgeError("--out RUN is required (or use --dry-run to estimate the cost)")
    if retries < 1:
        raise BiasforgeError("--retries must be at least 1")
    translator = DeepLTranslator(
        server_url=server_url,
        formality=formality,
        glossary=read_glossary(glossary) if glossary else None,
    )
    opts = Options(
        lang=lang.lower(),
        synonyms=synonyms,
        lexicon=lexicon,
        retry=RetryPolicy(attempts=retries, delay=retry_delay),
        price_per_million=price_per_million,
        hf_split=hf_split,
        limit=limit,
    )
    extra = {"glossary_file": str(glossary) if glossary else None}
    with TranslationMemory(memory_path) as memory:
        estimate = curate_stereoset(source, out, translator, memory, opts, dry_run=True)
        assert isinstance(estimate, DryRun)
        if dry_run:
            typer.echo(estimate.summary())
        quota = quota_note(translator, estimate.plan.characters_to_send)
        if quota:
            typer.echo(quota, err=not dry_run)
        if dry_run:
            return 0
        result = curate_stereoset(
            source, out, translator, memory, opts, overwrite=overwrite, config_extra=extra
        )
    assert not isinstance(result, DryRun)
    t = result["translation"]
    typer.echo(
        f"stereoset {result['language']}: {result['kept']} items kept "
        f"({result['needs_review']} flagged for review), {result['rejected']} rejected; "
        f"translation: {t['characters_sent']} of {t['characters_total']} characters sent "
        f"({t['cache_hits']} of {t['units']} texts from the memory, {t['requests']} requests) "
        f"-> {out}/candidates.parquet, report: {out}/report.md"
    )
    if result["translation_failed"]:
        typer.secho(
            f"{result['translation_failed']} items could not be translated "
            f"({'; '.join(t['errors'][:2])}); they are in {out}/rejected.parquet. Rerun the same "
            "command with --overwrite to retry only them.",
            fg=typer.colors.YELLOW,
            err=True,
        )
        return 1
    return 0
