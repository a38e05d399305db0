"""``biasforge curate slguset``: a thin layer over :func:`biasforge.curation.slguset.curate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.contract.rundir import CANDIDATES, REPORT
from biasforge.curation.commands import options as check


def slguset(
    corpus: Annotated[
        list[str] | None,
        typer.Option(
            "--corpus",
            help="text file (one paragraph per line), .jsonl file, or hf:PATH_OR_NAME[::SPLIT]; "
            "repeatable (default: the bundled People's Daily sample)",
        ),
    ] = None,
    out: check.Out = Path("runs/slguset"),
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
    lexicon_encoding: Annotated[
        str,
        typer.Option(callback=check.encoding, help="encoding of the --lexicon folder's files"),
    ] = "utf-8",
    tagger: Annotated[
        str,
        typer.Option(
            help="name filter: fast (jieba segmentation + name model), posseg (jieba POS + "
            "name model), thulac (fast, then THULAC on the sentences every rule kept: slow)"
        ),
    ] = "fast",
    name_check: Annotated[
        str,
        typer.Option(
            help="second-stage person-name check on the sentences every rule kept: lac "
            "(Baidu LAC, PER tag; about 0.57x the mining throughput) or none"
        ),
    ] = "lac",
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
    overwrite: check.Overwrite = False,
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
        str | None,
        typer.Option(
            callback=check.slurm_partition,
            help="Slurm partition of the jobs (--executor slurm); several: comma-separated",
        ),
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
        lexicon_encoding=lexicon_encoding,
        tagger=tagger,
        name_check=name_check,
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
        + f"-> {out / CANDIDATES}, report: {out / REPORT}"
    )
