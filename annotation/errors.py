"""Failures of the conversation with the Argilla server, said in one line.

A server that dies mid-push, refuses a request or cannot be reached is the user's situation
to act on (restart it, fix a name), not a bug: the command prints what happened and that a
re-run is safe (pushes are idempotent, pulls write atomically) instead of a traceback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from biasforge.errors import BiasforgeError

DATASET_NAME_MAX = 200 - len("-adjudication")  # Argilla's limit, minus what review appends


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


@contextlib.contextmanager
def server_errors(url: str) -> Iterator[None]:
    """Turn transport failures and the SDK's API errors into one-line user errors."""
    import httpx
    from argilla._exceptions import ArgillaError

    try:
        yield
    except httpx.TransportError as exc:
        raise BiasforgeError(
            f"lost the connection to the Argilla server at {url} ({type(exc).__name__}: "
            f"{_first_line(exc)}); nothing is sent twice, so run the command again once it is up"
        ) from exc
    except ArgillaError as exc:
        raise BiasforgeError(f"the Argilla server at {url} refused: {_first_line(exc)}") from exc


def check_dataset_name(name: str) -> str:
    """Argilla's own rule for dataset names (1–200 characters), leaving room for the
    ``-adjudication`` suffix; no surrounding spaces or control characters."""
    if not name or not name.strip():
        raise BiasforgeError("--dataset: give a dataset name")
    if name != name.strip() or any(ord(c) < 32 for c in name):
        raise BiasforgeError(f"--dataset {name!r}: no surrounding spaces or control characters")
    if len(name) > DATASET_NAME_MAX:
        raise BiasforgeError(
            f"--dataset: {len(name)} characters; Argilla allows at most {DATASET_NAME_MAX} here"
        )
    return name
