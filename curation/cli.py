"""``biasforge curate …``: build candidate items into a run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.curation.crowspairs.cli import crowspairs

app = typer.Typer(help="Build candidate test items into a run directory.", no_args_is_help=True)
app.command("crowspairs")(crowspairs)


@app.command("becpro")
def becpro(
    lang: Annotated[str, typer.Option("--lang", help="en, es or eu")],
    out: Annotated[Path, typer.Option("--out", help="run directory to create")],
    variant: Annotated[
        str | None,
        typer.Option(help="es: with_articles (default) or without_articles; en/eu: default"),
    ] = None,
    lexicon: Annotated[
        Path | None,
        typer.Option(
            help="folder with professions.tsv, persons.tsv, templates.tsv (default: bundled)"
        ),
    ] = None,
    overwrite: Annotated[bool, typer.Option(help="replace an existing run directory")] = False,
) -> None:
    """Bias Evaluation Corpus with Professions: templates × professions × person phrases."""
    from biasforge.curation.becpro import Options, curate

    options = Options(lang=lang, variant=variant, lexicon=lexicon)
    stats = curate(options, out, overwrite=overwrite).stats
    typer.echo(
        f"becpro {stats['language']}/{stats['variant']}: {stats['kept']} items kept "
        f"({stats['needs_review']} flagged for review), {stats['rejected']} rejected "
        f"-> {out}/candidates.parquet, report: {out}/report.md"
    )


@app.command("stereoset")
def stereoset(
    lang: Annotated[
        str,
        typer.Option(
            "--lang", help="target language (ISO code, e.g. fr); the source's own: no translation"
        ),
    ] = "fr",
    source_lang: Annotated[str, typer.Option(help="language of the source StereoSet")] = "en",
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
    server_url: Annotated[
        str | None,
        typer.Option(
            "--server-url",
            envvar="DEEPL_SERVER_URL",
            help="DeepL API server (default: chosen by the client from DEEPL_AUTH_KEY)",
        ),
    ] = None,
    formality: Annotated[
        str | None, typer.Option(help="DeepL formality: less, more, prefer_less, prefer_more")
    ] = None,
    glossary: Annotated[
        Path | None, typer.Option(help="TSV 'source<TAB>target' of fixed term translations")
    ] = None,
    memory: Annotated[
        Path | None,
        typer.Option(help="translation memory (default $BIASFORGE_HOME/translation-memory.sqlite)"),
    ] = None,
    synonyms: Annotated[
        Path | None,
        typer.Option(help="TSV 'attribute<TAB>synonym[<TAB>target]': add synonym variants"),
    ] = None,
    lexicon: Annotated[
        Path | None,
        typer.Option(help="TSV of words with no exact translation (default: bundled)"),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="print characters to send and cost; send nothing")
    ] = False,
    price_per_million: Annotated[
        float,
        typer.Option(min=0, help="price per million characters (DeepL API Pro list: 20 EUR)"),
    ] = 20.0,
    retries: Annotated[
        int, typer.Option(min=1, help="attempts per request on 429/5xx/network")
    ] = 5,
    retry_delay: Annotated[float, typer.Option(min=0, help="first backoff pause in seconds")] = 1.0,
    hf_split: Annotated[str, typer.Option(help="split when --source is a hub id")] = "validation",
    limit: Annotated[int | None, typer.Option(min=0, help="only the first N source items")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace an existing run directory")] = False,
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
        f"{sent} -> {out}/candidates.parquet, report: {out}/report.md"
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


@app.command("slguset")
def slguset(
    corpus: Annotated[
        list[str] | None,
        typer.Option(
            "--corpus",
            help="text file (one paragraph per line), .jsonl file, or hf:PATH_OR_NAME[::SPLIT]; "
            "repeatable (default: the bundled People's Daily sample)",
        ),
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="run directory to create")] = Path(
        "runs/slguset"
    ),
    num_proc: Annotated[int, typer.Option("--num-proc", help="parallel datatrove tasks")] = 1,
    encoding: Annotated[
        str, typer.Option(help="encoding of text/JSONL files, e.g. gb18030 or gbk")
    ] = "utf-8",
    text_field: Annotated[str, typer.Option(help="text field of JSONL / dataset rows")] = "text",
    skip_bad_lines: Annotated[
        bool, typer.Option(help="skip (and count) undecodable or malformed lines")
    ] = False,
    lexicon: Annotated[
        Path | None, typer.Option(help="folder with gender_pairs.tsv and word lists")
    ] = None,
    tagger: Annotated[
        str,
        typer.Option(
            help="name filter: fast (jieba segmentation + name model), posseg (jieba POS + "
            "name model), thulac (fast, then THULAC on the sentences every rule kept: slow)"
        ),
    ] = "fast",
    name_eval: Annotated[
        Path | None,
        typer.Option(help="gold JSONL (text, person_names) to measure the name filter's P/R"),
    ] = None,
    include_collective: Annotated[
        bool,
        typer.Option(
            help="keep sentences whose keyword is a collective form excluded by default "
            "(他们/她们, 他俩/她俩: collective_forms.tsv), each flagged for review with the reason"
        ),
    ] = False,
    overwrite: Annotated[bool, typer.Option(help="replace an existing run directory")] = False,
    verbose: Annotated[bool, typer.Option(help="show datatrove's per-task logs")] = False,
    executor: Annotated[
        str,
        typer.Option(
            help="datatrove executor: local (--num-proc forked workers), ray (a Ray cluster), "
            "slurm (submit a job array and a merge job with sbatch)"
        ),
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(help="Ray cluster to join (default: start a local one with --num-proc CPUs)"),
    ] = None,
    slurm_partition: Annotated[
        str | None, typer.Option(help="Slurm partition of the jobs (--executor slurm)")
    ] = None,
    slurm_time: Annotated[
        str, typer.Option(help="Slurm time limit of one mining task")
    ] = "24:00:00",
    dry_run: Annotated[
        bool,
        typer.Option(
            help="--executor slurm: write the job into OUT.slurm/ and print the sbatch scripts, "
            "submit nothing"
        ),
    ] = False,
) -> None:
    """SlguSet: mine gender-neutral Chinese sentences with one gender keyword from a corpus."""
    from biasforge.curation.slguset import Options, curate
    from biasforge.curation.slguset.pipeline import submit_slurm
    from biasforge.curation.slguset.sample import BUNDLED_SAMPLE
    from biasforge.errors import BiasforgeError

    options = Options(
        corpus=corpus or [BUNDLED_SAMPLE],
        num_proc=num_proc,
        encoding=encoding,
        text_field=text_field,
        skip_bad_lines=skip_bad_lines,
        lexicon_dir=lexicon,
        tagger=tagger,
        name_eval=name_eval,
        include_collective=include_collective,
        verbose=verbose,
        executor=executor,
        ray_address=ray_address,
        slurm_partition=slurm_partition,
        slurm_time=slurm_time,
    )
    if dry_run and executor != "slurm":
        raise BiasforgeError("--dry-run goes with --executor slurm")
    if executor == "slurm":
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
        return
    stats = curate(options, out, overwrite=overwrite).stats
    skipped = stats.get("bad_lines_skipped") or 0
    typer.echo(
        f"slguset: {stats['kept']} candidates kept ({stats['needs_review']} flagged for review), "
        f"{stats['rejected']} rejected, from {stats['raw_chars']:,} characters "
        + (f"({skipped:,} bad lines skipped) " if skipped else "")
        + f"-> {out}/candidates.parquet, report: {out}/report.md"
    )
