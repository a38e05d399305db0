"""``biasforge export …``: releases and compatibility formats."""

from __future__ import annotations

import contextlib
import inspect
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

import typer

from biasforge import families
from biasforge.contract.release import CHANGELOG
from biasforge.families.base import FormatOption
from biasforge.files import MANIFEST

if TYPE_CHECKING:
    from biasforge.exports.release import ReleaseResult

app = typer.Typer(
    help="Release reviewed items and convert them to other tools' formats.", no_args_is_help=True
)


# --format choices: every format some registered family offers (entry-point families too)
Format = StrEnum("Format", {name: name for name in families.format_names()})


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
    unreviewed: Annotated[bool, typer.Option("--unreviewed", help="allow unreviewed runs")] = False,
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
    exclude_changed: Annotated[
        bool,
        typer.Option(
            "--exclude-changed",
            help="leave out items whose labels, given blind in review, differ from the "
            "source's (column labels_changed; the card says how many)",
        ),
    ] = False,
    parallel: Annotated[
        bool,
        typer.Option(
            "--parallel",
            help="line the inputs' languages up (one family): a config per language and a "
            "'shared' config of the source items kept in every language "
            "(docs/parallel-releases.md)",
        ),
    ] = False,
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
        exclude_changed=exclude_changed,
        parallel=parallel,
    )
    if result.already_existed:
        typer.echo(
            f"{result.name} {result.version} already released with these records: {result.path}"
        )
    else:
        _say_released(result)
    if push_to_hub:
        _push(result.path, push_to_hub, private)


def _say_released(result: ReleaseResult) -> None:
    """What a new release holds and what changed (and which records were left out)."""
    configs = ", ".join(f"{c}: {n}" for c, n in result.configs.items())
    changes = ", ".join(f"{k} {v}" for k, v in result.changes.items())
    since = f"since {result.previous}" if result.previous else "first release"
    typer.echo(f"released {result.name} {result.version} -> {result.path} ({configs})")
    typer.echo(f"changes ({since}): {changes}; see {result.path / CHANGELOG}")
    if result.skipped:
        typer.echo(
            f"left out {len({s['record'] for s in result.skipped})} invalid record(s); "
            f"see {result.path / MANIFEST}"
        )


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


def format_options() -> list[FormatOption]:
    """Every option some export format declares, once each (one declaration per name)."""
    found: dict[str, FormatOption] = {}
    for layout in (f for name in families.names() for f in families.get(name).formats):
        for option in layout.options:
            if found.setdefault(option.name, option) != option:
                raise ValueError(f"export option {option.flag} is declared twice, differently")
    return list(found.values())


def _option_parameter(option: FormatOption) -> inspect.Parameter:
    """``--NAME`` of ``convert``: the option's choices, no default (the format's applies)."""
    choices = StrEnum(option.name.title(), {c: c for c in option.choices})
    offered = ", ".join(f.name for n in families.names() for f in families.get(n).formats
                        if option in f.options)  # fmt: skip
    typed = Annotated[
        choices | None, typer.Option(option.flag, help=f"{option.help} (default {option.default}; "
                                     f"formats: {offered})")
    ]  # fmt: skip
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=typed)  # fmt: skip


def _refuse_foreign_options(given: dict[str, str], format: str, family: str | None = None) -> None:
    """One line for an option that ``--format`` (of ``family``, or of any family) lacks."""
    from biasforge.errors import BiasforgeError

    layouts = [f for n in families.names() if family in (None, n) for f in families.get(n).formats
               if f.name == format]  # fmt: skip
    own = {o.name for layout in layouts for o in layout.options}
    for option in (o for o in format_options() if o.name in given.keys() - own):
        whose = f" of {family} items" if family else ""
        raise BiasforgeError(f"{option.flag} is not an option of --format {format}{whose}")


def convert(
    source: Annotated[
        Path, typer.Argument(help="run directory, reviewed records, release folder or parquet file")
    ],
    format: Annotated[
        Format,
        typer.Option(
            "--format",
            help="output layout; each family offers its own: "
            + "; ".join(
                f"{name}: {', '.join(f.name for f in families.get(name).formats)}"
                for name in families.names()
                if families.get(name).formats
            ),
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="file to write (lm-eval: a new folder)")],
    overwrite: Annotated[
        bool,
        typer.Option(
            help="replace what an earlier convert wrote in this format from the same family's "
            "items (only that)"
        ),
    ] = False,
    **options: Any,
) -> None:
    """Write items in another tool's layout; the formats and their options come from the
    family registry."""
    from biasforge.contract.exported import check_output, mark_output
    from biasforge.contract.folders import read_items
    from biasforge.errors import InputError
    from biasforge.files import swap_lock

    given = {name: str(value) for name, value in options.items() if value is not None}
    _refuse_foreign_options(given, format.value)  # before anything is read
    items = read_items(source)
    frame = items.frame
    if "family" not in frame.columns:
        raise InputError(source, "no 'family' column: these are not biasforge items")
    family = families.family_of(frame["family"].unique(), str(source))
    layout = family.format(format.value)
    _refuse_foreign_options(given, format.value, family.name)
    check_output(out, format.value, source, overwrite, family.name, layout.folder)
    # a file and its marker change together for a concurrent --overwrite check (a folder
    # records the same in its own manifest, and is swapped in whole under the same lock)
    with contextlib.nullcontext() if layout.folder else swap_lock(out):
        summary = layout.write(
            frame, out, given, label=items.label, source=source, overwrite=overwrite
        )
        if not layout.folder:
            mark_output(out, format.value, family.name)
    typer.echo(summary)


def _convert_command() -> None:
    """``convert`` with one option per declared format option (as score commands are built)."""
    fixed = [p for p in inspect.signature(convert).parameters.values() if p.name != "options"]
    hints = get_type_hints(convert, include_extras=True)
    fixed = [p.replace(annotation=hints[p.name]) for p in fixed]
    declared = [_option_parameter(o) for o in format_options()]

    def run(**values: Any) -> None:
        convert(**values)

    parameters = [*fixed, *declared]
    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    run.__doc__ = convert.__doc__
    app.command("convert")(run)


_convert_command()
