"""Find the Argilla server to talk to: an external one named in the environment, or ours.

``ARGILLA_API_URL`` + ``ARGILLA_API_KEY`` select a team's server (Docker, Hugging Face
Spaces); otherwise the embedded server started by ``biasforge annotate serve`` is found through
the state file it writes in its data dir, and its owner key is read from the 0600 credentials
file next to it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from biasforge.annotation.names import check_workspace_name
from biasforge.annotation.paths import default_data_dir
from biasforge.annotation.serve import CREDENTIALS_FILE, WORKSPACE, read_secret_json, read_state
from biasforge.errors import BiasforgeError


@dataclass(frozen=True)
class Connection:
    url: str
    api_key: str
    workspace: str
    embedded: bool


def find_server(data_dir: Path | None = None, workspace: str | None = None) -> Connection:
    """The server commands should use (environment first, then the running embedded one)."""
    if workspace is not None:
        check_workspace_name(workspace)
    url = os.environ.get("ARGILLA_API_URL")
    if url:
        key = os.environ.get("ARGILLA_API_KEY")
        if not key:
            raise BiasforgeError("ARGILLA_API_URL is set but ARGILLA_API_KEY is not")
        if not workspace and os.environ.get("ARGILLA_WORKSPACE"):
            workspace = check_workspace_name(os.environ["ARGILLA_WORKSPACE"], "ARGILLA_WORKSPACE")
        return Connection(url.rstrip("/"), key, workspace or WORKSPACE, False)
    data_dir = Path(data_dir or default_data_dir())
    state = read_state(data_dir)
    if state is None:
        raise BiasforgeError(
            f"no Argilla server is running for {data_dir}: start one with `biasforge annotate serve` "
            "(or set ARGILLA_API_URL and ARGILLA_API_KEY for an external server)"
        )
    credentials = read_secret_json(data_dir / CREDENTIALS_FILE)
    return Connection(
        state["url"], credentials["api_key"], workspace or credentials["workspace"], True
    )


def client(connection: Connection):
    """An ``argilla.Argilla`` client for the connection (long timeout: bulk calls are big)."""
    import argilla as rg

    return rg.Argilla(api_url=connection.url, api_key=connection.api_key, timeout=120)
