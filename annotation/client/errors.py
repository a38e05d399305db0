"""Failures of the conversation with the Argilla server, said in one line.

A server that dies mid-push, refuses a request or cannot be reached is the user's situation
to act on (restart it, fix a name), not a bug: the command prints what happened and that a
re-run is safe (pushes are idempotent, pulls write atomically) instead of a traceback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from biasforge.errors import BiasforgeError


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


@contextlib.contextmanager
def server_errors(url: str) -> Iterator[None]:
    """Turn transport failures and the SDK's API errors into one-line user errors."""
    import httpx
    from argilla._exceptions import ArgillaError
    from pydantic import ValidationError

    try:
        yield
    except httpx.TransportError as exc:
        raise BiasforgeError(
            f"lost the connection to the Argilla server at {url} ({type(exc).__name__}: "
            f"{_first_line(exc)}); nothing is sent twice, so run the command again once it is up"
        ) from exc
    except ArgillaError as exc:
        raise BiasforgeError(f"the Argilla server at {url} refused: {_first_line(exc)}") from exc
    except ValidationError as exc:  # the SDK could not read what the server sent
        raise BiasforgeError(
            f"the Argilla server at {url} sent something the argilla SDK cannot read "
            f"({_first_line(exc)}); was a workspace or dataset created there with a name "
            "Argilla's SDK refuses?"
        ) from exc
