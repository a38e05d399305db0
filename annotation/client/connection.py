"""Find the Argilla server to talk to: an external one named in the environment, or ours.

``ARGILLA_API_URL`` + ``ARGILLA_API_KEY`` select a team's server (Docker, Hugging Face
Spaces); otherwise the embedded server started by ``biasforge annotate serve`` is found through
the state file it writes in its data dir, and its owner key is read from the 0600 credentials
file next to it. An embedded server serving HTTPS is verified against its own certificate
(named in the state file), never with verification turned off.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasforge.annotation.client.names import check_workspace_name
from biasforge.annotation.client.secrets import owner_credentials
from biasforge.errors import BiasforgeError
from biasforge.files import pid_alive
from biasforge.resources import biasforge_home

#: where a running embedded server says where it listens (written by ``annotate serve``)
STATE_FILE = "server.json"
#: the options the server of a data folder was last started with (kept after it stops)
LAST_SERVE_FILE = "last-serve.json"
#: the workspace commands use when none is named (the embedded server's owner's own)
WORKSPACE = "biasforge"


def default_data_dir() -> Path:
    """The embedded server's data: SQLite database, credentials, state file."""
    return biasforge_home() / "argilla"


def read_state(data_dir: Path) -> dict[str, Any] | None:
    """The running server's state, or None if none is running for this data dir."""
    path = data_dir / STATE_FILE
    if not path.is_file():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None
    if not pid_alive(int(state.get("pid", 0))):
        return None
    return state


@dataclass(frozen=True)
class Connection:
    url: str  # what this machine connects to
    api_key: str
    workspace: str
    embedded: bool
    public_url: str | None = None  # what annotators open (None: the same as ``url``)
    tls_cert: str | None = None  # the embedded server's certificate, the only one trusted
    fingerprint: str | None = None
    data_dir: Path | None = None  # the embedded server's

    @property
    def annotators_url(self) -> str:
        return self.public_url or self.url

    def verify(self):
        """httpx's ``verify``: the embedded server's own certificate, or the system's CAs."""
        if self.tls_cert is None:
            return True
        from biasforge.annotation.client.trust import client_context

        return client_context(self.tls_cert)


def serve_command(data_dir: Path) -> str:
    """``biasforge annotate serve`` with the options the data folder's server was last started
    with (its address, TLS, port), so a team's server is not restarted on loopback only."""
    import shlex

    try:
        last = json.loads((data_dir / LAST_SERVE_FILE).read_text(encoding="utf-8"))
        options = [str(option) for option in last["options"]]
    except (OSError, ValueError, KeyError, TypeError):
        options = []
    if data_dir.resolve() != Path(default_data_dir()).resolve():
        options += ["--data-dir", str(data_dir)]
    return shlex.join(["biasforge", "annotate", "serve", *options])


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
            f"no Argilla server is running for {data_dir}: start one with "
            f"`{serve_command(data_dir)}` (or set ARGILLA_API_URL and ARGILLA_API_KEY for an "
            "external server)"
        )
    credentials = owner_credentials(data_dir)
    return Connection(
        state["url"],
        credentials["api_key"],
        workspace or credentials["workspace"],
        True,
        public_url=state.get("public_url"),
        tls_cert=state.get("tls_cert"),
        fingerprint=state.get("fingerprint"),
        data_dir=data_dir.resolve(),
    )


def client(connection: Connection):
    """An ``argilla.Argilla`` client for the connection (long timeout: bulk calls are big)."""
    import argilla as rg

    return rg.Argilla(
        api_url=connection.url, api_key=connection.api_key, timeout=120, verify=connection.verify()
    )
