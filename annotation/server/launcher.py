"""Entry point run by the argilla-server virtualenv's Python (``python launcher.py ARGS``).

It registers biasforge's SQL search engine with argilla-server, applies the speed-ups in
``speedups``, refuses Argilla's *Push to Hub* (``releases_only``), makes an annotator's progress their own
(``own_progress``) and then hands the arguments to the server's own command line (``start``,
``worker``, ``database migrate`` …). After ``database migrate`` it also creates the search
index and indexes the records it does not hold yet (a data folder from before the index). One
extra command, ``create-owner``, creates the owner
account from a 0600 credentials file, so passwords and API keys never appear on a command line
(where ``ps`` would show them) nor in the server's output.

Only the standard library and argilla_server are importable here: this file runs outside the
main biasforge environment.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import own_progress
import releases_only
import speedups
import sql_engine  # noqa: F401  (registers the engine with argilla_server)
import sql_index


def create_owner(credentials_path: str) -> int:
    """Create the owner (and its workspace) described by the credentials file, if missing."""
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


def main(argv: list[str]) -> int:
    if argv[:1] == ["create-owner"]:
        return create_owner(argv[1])
    if os.environ.get("BIASFORGE_STOCK_SERVER") != "1":
        speedups.install()
    releases_only.install()  # releases go through `biasforge export release`
    own_progress.install()  # an annotator's progress bar counts their own answers
    from argilla_server.cli import app

    sys.argv = ["argilla_server", *argv]
    if argv[:2] == ["database", "migrate"]:
        try:
            app()
        except SystemExit as done:
            if done.code not in (None, 0):
                raise
        sql_index.migrate(log=lambda line: print(line, file=sys.stderr))
        return 0
    app()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
