"""Entry point run by the argilla-server virtualenv's Python (``python launcher.py ARGS``).

It applies biasforge's changes to argilla-server, every one a row of the table in ``patches``
(the SQL search engine's registration; with ``BIASFORGE_STOCK_SERVER=1`` nothing else), and
then hands the arguments to the server's own command line (``worker`` …).
A patch target that is missing or whose signature changed stops it with one ``error:`` line
naming the target and exit status 2. ``start`` is run by uvicorn here, with ``--workers N``
web processes that each import ``asgi`` (the patched application), since Argilla's own
``start`` command has no such option and its worker processes would not get the patches.
``prepare CREDENTIALS`` does a start's database work in one process: the migrations, then
the search index (indexing the records it does not hold yet: a data folder from before the
index), then the owner account from a 0600 credentials file, so passwords and API keys never
appear on a command line (where ``ps`` would show them) nor in the server's output. A server
of one web process does that work in that process instead (``start --prepare CREDENTIALS``):
each process pays the import of argilla_server (about 7 s of CPU on a slow core), and there
uvicorn serves from the process that already imported it, and the job worker is forked from it
(``--job-worker LOG PID_FILE``, ``job_worker.py``) rather than started as a process that would
import it again;
``rotate-api-key USERNAME`` gives a user a new API key when their password is reset.

Only the standard library and argilla_server are importable here: this file runs outside the
main biasforge environment.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import job_worker
import patches
from overrides import load_tuning

if os.environ.get("BIASFORGE_STOCK_SERVER") != "1":  # a stock server loads what Argilla loads
    patches.defer()  # the Hub jobs load at their first use (patches.DEFERRED), before any import

# sql_engine and sql_index import argilla_server (which builds the app and copies its 14 MB
# web UI): they are imported where needed, so uvicorn's supervisor process and the copy of
# this module each worker process imports stay light.


def create_owner(credentials_path: str) -> int:
    """Create the owner (and its workspace) described by the credentials file, if missing."""
    patches.apply(["owner"])
    from argilla_server.cli.database.users.create import _create
    from argilla_server.enums import UserRole

    credentials = json.loads(Path(credentials_path).read_text(encoding="utf-8"))
    with contextlib.redirect_stdout(io.StringIO()):  # the stock command echoes the API key
        asyncio.run(
            _create(
                first_name=credentials["username"],
                username=credentials["username"],
                role=UserRole.owner,
                password=credentials["password"],
                api_key=credentials["api_key"],
                workspace=[credentials["workspace"]],
            )
        )
    return 0


def patch_groups() -> list[str]:
    """The groups of ``patches.PATCHES`` this server process applies (see ``patches.GROUPS``)."""
    if os.environ.get("BIASFORGE_STOCK_SERVER") == "1":
        return ["engine"]  # stock argilla-server plus the search engine, nothing else
    groups = ["engine", "product", "speed"]
    if load_tuning.enabled():
        from argilla_server.settings import settings

        groups += ["load", "sqlite"] if settings.database_is_sqlite else ["load"]
    return groups


def rotate_api_key(username: str) -> int:
    """Give ``username`` a new API key drawn as Argilla draws them; the old one stops working
    at once (Argilla's API has no route for this, and its ``users update`` command only
    changes roles). The new key is not printed: its owner reads it in the web UI's settings."""
    patches.apply(["keys"])
    from argilla_server.contexts import accounts
    from argilla_server.database import AsyncSessionLocal
    from argilla_server.models.database import generate_user_api_key

    async def rotate() -> bool:
        async with AsyncSessionLocal() as session:
            user = await accounts.get_user_by_username(session, username)
            if user is None:
                return False
            await user.update(session, api_key=generate_user_api_key())
            return True

    if not asyncio.run(rotate()):
        print(f"no user called {username!r}", file=sys.stderr)
        return 1
    return 0


def refused(changed: patches.TargetChanged) -> int:
    """The one line a changed patch target ends a launcher command with; its exit status."""
    print(f"error: {changed}", file=sys.stderr, flush=True)
    return 2


def install_patches() -> None:
    """biasforge's changes to argilla-server, applied in every server process before it
    serves anything; a changed target ends the process with one line naming it."""
    try:
        patches.apply(patch_groups())
    except patches.TargetChanged as changed:
        sys.exit(refused(changed))


def start(argv: list[str]) -> int:
    """Serve the patched application (``asgi:app``) with uvicorn on HOST:PORT, over TLS when
    given a certificate and key. Forwarded headers (client address, scheme) are honoured only
    from the ``--trusted-proxy`` addresses; without one, from nobody (uvicorn's own default
    would trust 127.0.0.1, i.e. any local process)."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="launcher.py start")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=6900)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--ssl-certfile")
    parser.add_argument("--ssl-keyfile")
    parser.add_argument("--trusted-proxy", action="append", default=[])
    parser.add_argument("--prepare", metavar="CREDENTIALS")
    parser.add_argument("--job-worker", nargs=2, metavar=("LOG", "PID_FILE"))
    args = parser.parse_args(argv)
    if args.prepare:  # one web process: it does the database work itself, then serves
        try:
            if args.job_worker:  # forked once patched, before any database work (job_worker.py)
                install_patches()
                job_worker.fork(*args.job_worker)
            prepare(args.prepare)
        except patches.TargetChanged as changed:
            return refused(changed)
    uvicorn.run(
        "asgi:app",
        host=args.host,
        port=args.port,
        workers=args.workers,
        ssl_certfile=args.ssl_certfile,
        ssl_keyfile=args.ssl_keyfile,
        proxy_headers=bool(args.trusted_proxy),
        forwarded_allow_ips=args.trusted_proxy or [],
        server_header=False,
        access_log=False,
        log_level="warning",
    )
    return 0


def migrate() -> None:
    """Argilla's migrations to head, then the search index (patches already installed)."""
    from argilla_server.cli import app

    sys.argv = ["argilla_server", "database", "migrate"]
    try:
        app()
    except SystemExit as done:
        if done.code not in (None, 0):
            raise
    import sql_index

    sql_index.migrate(log=lambda line: print(line, file=sys.stderr))


def prepare(credentials_path: str) -> int:
    """A start's database work in one process (each process pays the ~3 s import of
    argilla_server): biasforge's patches, so a changed target stops the start here with one
    line; then the migrations and the search index; then the owner."""
    install_patches()
    migrate()
    return create_owner(credentials_path)


def main(argv: list[str]) -> int:
    one_shot = {"prepare": prepare, "rotate-api-key": rotate_api_key}
    if argv[:1] and argv[0] in one_shot:  # commands that do their work and exit
        try:
            return one_shot[argv[0]](argv[1])
        except patches.TargetChanged as changed:
            return refused(changed)
    if argv[:1] == ["start"]:
        return start(argv[1:])  # patches applied by asgi, in each web process
    install_patches()
    from argilla_server.cli import app

    sys.argv = ["argilla_server", *argv]
    app()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
