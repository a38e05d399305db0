"""``biasforge annotate …``: review candidates on Argilla."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from biasforge.annotation.admin.listen import Binding
    from biasforge.annotation.client.connection import Connection

app = typer.Typer(
    help="Review candidates on Argilla (serve, users, push, pull, agreement).", no_args_is_help=True
)

DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help="embedded server data (default $BIASFORGE_HOME/argilla)"),
]


def _workspace_name(name: str | None) -> str | None:
    from biasforge.annotation.client.names import check_workspace_name

    return None if name is None else check_workspace_name(name)


Workspace = Annotated[
    str | None,
    typer.Option(
        "--workspace",
        help="Argilla workspace (letters, digits, '-', '_')",
        callback=_workspace_name,
    ),
]


def _dataset_name(name: str) -> str:
    from biasforge.annotation.client.names import check_dataset_name

    return check_dataset_name(name)


DatasetName = Annotated[
    str, typer.Option("--dataset", help="Argilla dataset name", callback=_dataset_name)
]


class Policy(StrEnum):
    """How the answers of several annotators combine (see ``biasforge.annotation.review.pull``)."""

    unanimous = "unanimous"
    majority = "majority"
    dawid_skene = "dawid-skene"
    mace = "mace"


@contextlib.contextmanager
def _server(data_dir: Path | None, workspace: str | None) -> Iterator[Connection]:
    """The server a command talks to, its failures said in one line (a re-run is safe: see
    :mod:`biasforge.annotation.client.errors`)."""
    from biasforge.annotation.client.connection import find_server
    from biasforge.annotation.client.errors import server_errors

    connection = find_server(data_dir, workspace)
    with server_errors(connection.url):
        yield connection


@app.callback()
def annotate() -> None:
    """Review candidates on Argilla.

    Commands talk to ARGILLA_API_URL / ARGILLA_API_KEY when set, else to the embedded server
    started by `biasforge annotate serve`.
    """


@app.command()
def serve(
    data_dir: DataDir = None,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="port to listen on (0: a free one)")
    ] = 6900,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="address to listen on: 127.0.0.1 (default), an interface address or 0.0.0.0; "
            "beyond loopback only with --tls or --tls-cert/--tls-key",
        ),
    ] = "127.0.0.1",
    tls: Annotated[
        bool,
        typer.Option(
            "--tls", help="serve HTTPS with a self-signed certificate kept in the data dir"
        ),
    ] = False,
    tls_cert: Annotated[
        Path | None, typer.Option("--tls-cert", help="serve HTTPS with this PEM certificate")
    ] = None,
    tls_key: Annotated[
        Path | None, typer.Option("--tls-key", help="the certificate's PEM private key")
    ] = None,
    insecure_http: Annotated[
        bool,
        typer.Option(
            "--insecure-http", help="allow plain HTTP beyond loopback (passwords in the clear)"
        ),
    ] = False,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            help="a reverse proxy's address (or network) whose X-Forwarded-For/-Proto headers "
            "are believed; repeatable",
        ),
    ] = None,
    public_url: Annotated[
        str | None,
        typer.Option("--public-url", help="the address annotators open, when behind a proxy"),
    ] = None,
    worker: Annotated[bool, typer.Option(help="also run Argilla's background job worker")] = True,
    background: Annotated[
        bool, typer.Option("--background", help="start detached, return once it answers")
    ] = False,
) -> None:
    """Run the embedded Argilla server until Ctrl-C (or `annotate stop`): on 127.0.0.1, or
    for a team on an interface address over HTTPS (see docs/team-server.md)."""
    import sys

    from biasforge.annotation.admin.listen import Binding
    from biasforge.annotation.admin.serve import serve as run

    binding = Binding(
        host=host,
        tls=tls,
        tls_cert=tls_cert.resolve() if tls_cert else None,
        tls_key=tls_key.resolve() if tls_key else None,
        insecure_http=insecure_http,
        trusted_proxies=tuple(trusted_proxy or ()),
        public_url=public_url,
    )
    if background:
        _serve_detached(data_dir, port, worker, binding)
        return
    code = run(data_dir, port, worker=worker, binding=binding)
    if code:
        sys.exit(code)  # typer.Exit's code is dropped by the root command's non-standalone mode


def _serve_detached(data_dir: Path | None, port: int, worker: bool, binding: Binding) -> None:
    """``serve --background``: start the server detached and say where it answers."""
    from biasforge.annotation.admin.listen import PLAIN_HTTP_WARNING, is_loopback
    from biasforge.annotation.admin.serve import OWNER_USERNAME, serve_background, started_message
    from biasforge.annotation.client.secrets import CREDENTIALS_FILE

    state = serve_background(data_dir, port, worker=worker, binding=binding)
    if state.get("tls_cert") is None and not is_loopback(state.get("host", "127.0.0.1")):
        typer.echo(PLAIN_HTTP_WARNING.format(host=state["host"]), err=True)
    credentials = Path(state["data_dir"]) / CREDENTIALS_FILE
    state.setdefault("public_url", state["url"])
    typer.echo(started_message(state, OWNER_USERNAME, credentials))
    typer.echo(f"  pid {state['pid']}; stop it with: biasforge annotate stop")


@app.command()
def stop(data_dir: DataDir = None) -> None:
    """Stop the embedded server started with `annotate serve` (any of its forms)."""
    from biasforge.annotation.admin.serve import stop_server

    typer.echo("stopped" if stop_server(data_dir) else "no embedded server was running")


@app.command()
def users(
    usernames: Annotated[list[str] | None, typer.Argument(help="usernames to add")] = None,
    csv_file: Annotated[Path | None, typer.Option("--csv", help="CSV with username[,role]")] = None,
    role: Annotated[
        str | None,
        typer.Option(
            help="role for usernames given as arguments (new users: annotator); an "
            "existing user's role is changed to it"
        ),
    ] = None,
    reset_password: Annotated[
        str | None,
        typer.Option(
            "--reset-password",
            help="give NAME a new generated password (and, on the embedded server, a new API key)",
        ),
    ] = None,
    invite: Annotated[
        str | None,
        typer.Option(
            "--invite",
            help="write each new password as an invitation (address, username, password, "
            "certificate fingerprint) to this new 0600 FILE, or '-' to print them",
        ),
    ] = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            help="make an annotator who has already answered an admin (admins can read every "
            "annotator's answers)",
        ),
    ] = False,
    workspace: Workspace = None,
    data_dir: DataDir = None,
) -> None:
    """Add annotators to the workspace, change roles, reset a password; generated passwords
    are shown once, here (or in the --invite file)."""
    from biasforge.annotation.admin.invite import invitation_file, write_invitations
    from biasforge.annotation.admin.users import read_users_csv
    from biasforge.errors import BiasforgeError

    if invite is not None and not invite.strip():
        raise BiasforgeError("--invite: give a FILE to write the invitations to, or '-' to print")
    wanted = [(name, role) for name in usernames or []]
    if csv_file:
        wanted += read_users_csv(csv_file)
    if not wanted and not reset_password:
        raise BiasforgeError("give usernames, --csv FILE or --reset-password NAME")
    opened = invitation_file(invite) if invite else contextlib.nullcontext()
    with _server(data_dir, workspace) as connection, opened as invitations:
        done = _apply_users(connection, wanted, reset_password, yes)
        for user in done:
            secret = user.password if user.password else f"({user.status})"
            if user.password and invitations is not None:
                secret = "(password in the invitation)" if invite != "-" else "(password below)"
            note = f"\t({user.status})" if user.password and user.status != "created" else ""
            typer.echo(f"{user.username}\t{user.role}\t{user.workspace}\t{secret}{note}")
        if invitations is not None:
            count = write_invitations(done, connection, invitations)
            where = "above" if invite == "-" else f"in {invite} (readable only by you)"
            typer.echo(f"{count} invitation(s) {where}", err=True)
        typer.echo(
            f"Annotators log in at {connection.annotators_url} ; passwords are not stored "
            "anywhere else.",
            err=True,
        )


def _apply_users(
    connection, wanted: list[tuple[str, str | None]], reset_password: str | None, yes: bool
):
    """Create/change the users, reset one password; notes about admins on stderr."""
    from biasforge.annotation.admin.users import ADMIN_NOTE, add_users
    from biasforge.annotation.admin.users import reset_password as reset

    done = add_users(connection, wanted, yes=yes) if wanted else []
    if reset_password:
        done.append(reset(connection, reset_password))
    for user in done:
        if user.role == "admin" and not user.status.startswith("already"):
            typer.echo(
                "note: " + ADMIN_NOTE.format(name=user.username, workspace=user.workspace),
                err=True,
            )
    return done


@app.command()
def push(
    run: Annotated[Path, typer.Argument(help="curation run directory")],
    dataset: DatasetName,
    min_submitted: Annotated[
        int, typer.Option(min=1, help="answers per record (submitted or discarded)")
    ] = 3,
    suggest_labels: Annotated[
        bool,
        typer.Option(
            "--suggest-labels",
            help="pre-select the current labels/answers of judged questions (off by default: "
            "they anchor annotators; the release card then says so)",
        ),
    ] = False,
    controls: Annotated[
        Path | None,
        typer.Option(
            "--controls",
            help="control items with known answers, mixed into the queue unmarked: a release, "
            "reviewed records or run of validated items of the same family, or a JSONL file "
            "of items each with an 'expected' object (question -> answer)",
        ),
    ] = None,
    control_share: Annotated[
        float | None,
        typer.Option(
            "--control-share",
            help="add this fraction of the run's size as control items made from its items "
            "by the family (BEC-Pro: a planted misprint), e.g. 0.05; those items are then not "
            "pushed themselves (a control beside its own item is spotted as a repeat)",
        ),
    ] = None,
    workspace: Workspace = None,
    data_dir: DataDir = None,
) -> None:
    """Push a run's candidates (idempotent: only missing ids are created)."""
    from biasforge.annotation.review.push import push_run, read_pushable_run
    from biasforge.annotation.review.registry import remember_run
    from biasforge.contract.rundir import run_identity
    from biasforge.families import family_of

    checked = read_pushable_run(
        run
    )  # a bad run (or controls file) is reported before looking for a server
    if controls is not None or control_share is not None:
        from biasforge.annotation.review.controls import check_options

        family = family_of(checked.candidates["family"].unique(), str(run))
        check_options(family, controls, control_share, checked.table.to_pylist())
    with _server(data_dir, workspace) as connection:
        result = push_run(
            run, dataset, connection, min_submitted=min_submitted, suggest=suggest_labels,
            controls=controls, control_share=control_share,
        )  # fmt: skip
        remember_run(
            connection.url, connection.workspace, dataset, run, result.family,
            run_identity(checked.manifest),
        )  # fmt: skip
        typer.echo(
            f"{dataset}: {result.created} records created, {result.already_present} already there "
            f"({result.total} candidates) -> {connection.url}/dataset/{result.dataset_id}/annotation-mode"
        )
        if result.outdated:
            typer.echo(
                f"{dataset}: {result.outdated} of the records already there show other text "
                "than this run's items (pushed from an earlier run); they are left as they are, "
                "since annotators may have answered them: push the run to a new --dataset to "
                "review its text"
            )
        if result.controls:
            typer.echo(
                f"{dataset}: {result.controls} control items ({result.controls_created} created "
                "now), known only to this machine's biasforge state; `annotate pull` reports "
                "each annotator's accuracy on them"
            )
        if family_of(checked.candidates["family"].unique(), str(run)).review.needs_key:
            _say_key(connection, dataset)


def _say_key(connection, dataset: str) -> None:
    """Where the dataset's private key is kept, or that its records predate keyed orders."""
    from biasforge.annotation.review import private_state

    args = (connection.url, connection.workspace, dataset)
    if private_state.secret(*args) is None:
        typer.echo(
            f"{dataset}: pushed by an earlier biasforge, before what annotators are shown was "
            "arranged with a private key (annotators could work out the answers from the "
            "record ids): push the run to a new dataset for a blind review"
        )
        return
    typer.echo(
        f"{dataset}: what annotators are shown is arranged with the dataset's private key, "
        f"{private_state.path(*args)} (0600, never sent to Argilla): keep it; `annotate pull` "
        "on another machine needs a copy"
    )


@app.command()
def pull(
    dataset: DatasetName,
    out: Annotated[Path, typer.Option("--out", help="reviewed-records folder to write")],
    policy: Annotated[
        Policy,
        typer.Option(
            help="how answers combine: unanimous, majority, or the most probable answer under "
            "an annotator model fitted on every answer (dawid-skene, mace)"
        ),
    ] = Policy.unanimous,
    min_competence: Annotated[
        float,
        typer.Option(
            "--min-competence",
            min=0.0,
            max=1.0,
            help="name in the report's To-do each annotator whose competence (MACE θ: share "
            "of answers given knowingly rather than guessed) is below this",
        ),
    ] = 0.5,
    run: Annotated[
        Path | None, typer.Option("--run", help="run the dataset was pushed from")
    ] = None,
    adjudicators: Annotated[
        str | None,
        typer.Option(
            "--adjudicators",
            help="comma-separated users who may adjudicate (besides the workspace's admins); "
            "none of them is shown a record they answered",
        ),
    ] = None,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="replace --out if it holds an earlier pull of this dataset (nothing else)",
        ),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="decide and write the folder, but change nothing on the server (no record "
            "sent to, moved between or removed from adjudication) nor in the translation memory",
        ),
    ] = False,
    workspace: Workspace = None,
    data_dir: DataDir = None,
) -> None:
    """Collect answers, compute agreement, decide, and write reviewed records."""
    from biasforge.annotation.review.pull import pull as run_pull

    with _server(data_dir, workspace) as connection:
        named = [n.strip() for n in (adjudicators or "").split(",") if n.strip()]
        manifest = run_pull(
            dataset, out, connection, policy=policy.value, run_dir=run, adjudicators=named,
            dry_run=dry_run, overwrite=overwrite, min_competence=min_competence,
        )  # fmt: skip
        counts = ", ".join(f"{k}: {v}" for k, v in sorted(manifest["decisions"].items()))
        adjudication = manifest["adjudication"]
        would = "(dry run: nothing changed) would have " if dry_run else ""
        typer.echo(
            f"{dataset}: {counts}; {would}{adjudication['sent']} sent to adjudication "
            f"({adjudication['moved']} moved, {adjudication['sent_back']} sent back, "
            f"{adjudication['removed']} removed), "
            f"{adjudication['waiting']} waiting there, {adjudication['merged']} adjudicated "
            f"-> {out}/reviewed.parquet (report: {out}/report.md)"
        )


@app.command()
def agreement(
    dataset: DatasetName,
    workspace: Workspace = None,
    data_dir: DataDir = None,
) -> None:
    """Print per-question agreement of a dataset's submitted answers (writes nothing)."""
    import argilla as rg

    from biasforge.annotation.review.agreement import agreement_report
    from biasforge.annotation.review.controls import control_ids
    from biasforge.annotation.review.pull import _dataset, collect
    from biasforge.errors import BiasforgeError

    with _server(data_dir, workspace) as connection:
        target = _dataset(connection, dataset)
        if target is None:
            raise BiasforgeError(f"no dataset {dataset!r} in workspace {connection.workspace!r}")
        long = collect(connection, str(target.id)).long
        # control items are no agreement item (their answers are known; see annotate push)
        long = long[~long["id"].isin(control_ids(connection.url, connection.workspace, dataset))]
        answers = long[long["status"] == "submitted"].rename(columns={"id": "item"})
        questions = [q.name for q in target.settings.questions if isinstance(q, rg.LabelQuestion)]

        def figure(value: float | None) -> str:
            return "undefined" if value is None else f"{value:.3f}"

        for question, figures in agreement_report(answers, questions).items():
            unanimous = figures["percent_unanimous"]
            line = (
                f"{question}: alpha={figure(figures['krippendorff_alpha'])} "
                f"kappa={figure(figures['fleiss_kappa'])} "
                f"unanimous%={'–' if unanimous is None else f'{unanimous:.1f}'} items={figures['items']}"
            )
            notes = "; ".join(figures["notes"])
            typer.echo(line + (f"  ({notes})" if notes else ""))
