"""The ``biasforge`` command: one group per package (curate, annotate, export, score).

Each group's commands live with their package; heavy imports (torch, argilla) happen inside
the commands, so ``biasforge --help`` stays fast.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from biasforge.annotation.cli import app as annotate_app
from biasforge.curation.cli import app as curate_app
from biasforge.errors import BiasforgeError
from biasforge.exports.cli import app as export_app
from biasforge.scoring.cli import app as score_app

app = typer.Typer(
    name="biasforge",
    help="Curate multilingual bias-evaluation datasets, review them on Argilla, release and score.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(curate_app, name="curate")
app.add_typer(annotate_app, name="annotate")
app.add_typer(export_app, name="export")
app.add_typer(score_app, name="score")


@app.command("families")
def show_families(
    name: Annotated[str | None, typer.Argument(help="a family to describe in full")] = None,
) -> None:
    """List the registered families, or show one family's record contract and review task."""
    from biasforge import families

    if name is None:
        for known in families.names():
            family = families.get(known)
            typer.echo(f"{known:<10} {family.card.pretty_name}: {len(family.schema.names)} columns")
        return
    typer.echo(describe_family(families.get(name)))


def describe_family(family) -> str:
    """The contract of one family as markdown: columns, rules, questions, configs."""
    from biasforge.contract.markdown import md_table

    rows = [
        [c.name, str(c.type), "yes" if c.required else "", ", ".join(c.allowed or ())]
        for c in family.schema.all_columns
    ]
    rules = [rule.__name__ for rule in family.schema.row_rules]
    release = [rule.__name__ for rule in family.schema.release_rules]
    questions = [
        [q, title, ", ".join(labels)] for q, (title, labels, _) in family.review.criteria.items()
    ]
    return "\n\n".join(
        [
            f"# {family.name} ({family.card.pretty_name}, {family.card.license})",
            md_table(["column", "type", "required", "allowed values"], rows),
            f"Row rules: {', '.join(rules) or 'none'}; release rules: {', '.join(release) or 'none'}.",
            md_table(["question", "title", "answers"], questions),
            "Correction question: "
            + (family.review.correction[0] if family.review.correction else "none"),
        ]
    )


def main() -> None:
    """Console entry point: user errors print one clear line and exit 2, no traceback.

    Typer's standalone mode already handles usage errors, ``--help``, exit codes and Ctrl-C;
    only our own errors (bad input, refusing to overwrite) need translating.
    """
    try:
        _check_output_names(sys.argv[1:])
        app()
    except BiasforgeError as exc:
        _fail(str(exc))
    except OSError as exc:  # the machine said no: read-only folder, full disk, a missing file
        where = f"{exc.filename}: " if exc.filename else ""
        _fail(f"{where}{exc.strerror or exc}")


def _check_output_names(argv: list[str]) -> None:
    """Refuse an ``--out`` whose name is not valid UTF-8 (Python keeps such bytes as
    surrogates; Arrow, JSON and the Hub write UTF-8 names only) before anything is done."""
    for i, arg in enumerate(argv):
        option, given, value = arg.partition("=")
        if option != "--out":
            continue
        value = value if given else (argv[i + 1] if i + 1 < len(argv) else "")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            shown = value.encode("utf-8", "surrogateescape")
            raise BiasforgeError(
                f"--out {shown!r}: the name is not valid UTF-8; choose a UTF-8 name"
            ) from None


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    sys.exit(2)


if __name__ == "__main__":
    main()
