"""``biasforge export …``: releases and compatibility formats."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    help="Release reviewed items and convert them to other tools' formats.", no_args_is_help=True
)


class Format(StrEnum):
    becpro_tsv = "becpro-tsv"
    stereoset_json = "stereoset-json"
    crows_csv = "crows-csv"


class Masking(StrEnum):
    original = "original"
    spans = "spans"


@app.command("release")
def release(
    sources: Annotated[
        list[Path],
        typer.Argument(
            help="reviewed-records folder(s) from `annotate pull` (or runs, with --unreviewed); "
            "several folders of one family make one release (e.g. BEC-Pro en + es + eu)"
        ),
    ],
    name: Annotated[str, typer.Option("--name", help="dataset name (folder and Hub repo name)")],
    version: Annotated[str, typer.Option("--version", help="semantic version X.Y.Z")],
    out: Annotated[Path, typer.Option("--out", help="releases folder")] = Path("releases"),
    push_to_hub: Annotated[
        str | None,
        typer.Option(
            "--push-to-hub", help="also upload to this Hub dataset repo and tag the version"
        ),
    ] = None,
    unreviewed: Annotated[
        bool, typer.Option("--unreviewed", help="allow curation runs that were not reviewed")
    ] = False,
    skip_invalid: Annotated[
        bool,
        typer.Option(
            "--skip-invalid", help="leave out records that fail the schema checks (listed)"
        ),
    ] = False,
    license: Annotated[
        str | None,
        typer.Option("--license", help="override the family's licence id (e.g. cc-by-sa-4.0)"),
    ] = None,
    private: Annotated[bool, typer.Option(help="create the Hub repo as private")] = False,
    exist_ok: Annotated[
        bool,
        typer.Option(
            "--exist-ok",
            help="succeed without writing when this version already holds exactly these records "
            "(for scripts that re-run); a different existing release is still an error",
        ),
    ] = False,
) -> None:
    """Write releases/NAME/VERSION: parquet per config, dataset card, changelog, manifest."""
    from biasforge.exports.release import make_release

    result = make_release(
        sources,
        name=name,
        version=version,
        out=out,
        unreviewed=unreviewed,
        skip_invalid=skip_invalid,
        license=license,
        exist_ok=exist_ok,
        hub_repo=push_to_hub,
    )
    configs = ", ".join(f"{c}: {n}" for c, n in result.configs.items())
    changes = ", ".join(f"{k} {v}" for k, v in result.changes.items())
    since = f"since {result.previous}" if result.previous else "first release"
    if result.already_existed:
        typer.echo(
            f"{result.name} {result.version} already released with these records: {result.path}"
        )
        if push_to_hub:
            _push(result.path, push_to_hub, private)
        return
    typer.echo(f"released {result.name} {result.version} -> {result.path} ({configs})")
    typer.echo(f"changes ({since}): {changes}; see {result.path / 'CHANGELOG.md'}")
    if result.skipped:
        typer.echo(
            f"left out {len({s['record'] for s in result.skipped})} invalid record(s); "
            f"see {result.path / 'manifest.json'}"
        )
    if push_to_hub:
        _push(result.path, push_to_hub, private)


def _push(path: Path, repo: str, private: bool) -> None:
    from biasforge.exports.hub import push_release

    pushed = push_release(path, repo, private=private)
    typer.echo(f"pushed to {pushed.repo}, tag {pushed.tag} ({pushed.url})")


@app.command("push")
def push(
    release_dir: Annotated[Path, typer.Argument(help="a release folder releases/NAME/VERSION")],
    repo: Annotated[str, typer.Option("--repo", help="Hub dataset repo, e.g. org/name")],
    private: Annotated[bool, typer.Option(help="create the Hub repo as private")] = False,
) -> None:
    """Upload an existing local release to the Hugging Face Hub and tag its version."""
    _push(release_dir, repo, private)


def _check_out_file(out: Path, overwrite: bool) -> None:
    """``--out`` names a file: never a folder, and an existing file only with --overwrite."""
    from biasforge.errors import BiasforgeError, OutputExistsError

    if out.is_dir():
        raise BiasforgeError(f"--out {out}: is a folder; give the path of the file to write")
    if out.exists() and not overwrite:
        raise OutputExistsError(f"{out} already exists; pass --overwrite to replace it")


@app.command("convert")
def convert(
    source: Annotated[Path, typer.Argument(help="run directory, release folder or parquet file")],
    format: Annotated[Format, typer.Option("--format", help="output layout")],
    out: Annotated[Path, typer.Option("--out", help="file to write")],
    masking: Annotated[
        Masking,
        typer.Option(
            help="becpro-tsv: 'original' reproduces the published corpus, 'spans' masks exactly the words"
        ),
    ] = Masking.original,
    overwrite: Annotated[bool, typer.Option(help="replace an existing file at --out")] = False,
) -> None:
    """Write items in another tool's layout (StereoSet JSON, BEC-Pro TSV, CrowS-Pairs CSV)."""
    from biasforge.exports.sources import load_items, release_label

    _check_out_file(out, overwrite)
    items = load_items(source)
    if format is Format.stereoset_json:
        from biasforge.exports.stereoset_json import write_stereoset_json

        counts = write_stereoset_json(items, out, release_label(source))
        typer.echo(
            f"wrote {counts['intrasentence']} intrasentence and {counts['intersentence']} "
            f"intersentence examples to {out} (official StereoSet layout)"
        )
        return
    if format is Format.crows_csv:
        from biasforge.exports.crows_csv import write_crows_csv

        info = write_crows_csv(items, out)
        typer.echo(
            f"wrote {info['rows']} pairs to {out} (CrowS-Pairs layout; "
            f"{info['left_out']} non-intrasentence items left out)"
        )
        return
    from biasforge.exports.becpro_tsv import write_becpro_tsv

    info = write_becpro_tsv(items, out, masking.value)
    other = "spans" if masking is Masking.original else "original"
    typer.echo(
        f"wrote {info['rows']} rows to {out} ({masking.value} masking; "
        f"{info['rows_where_maskings_differ']} rows would differ with --masking {other})"
    )
