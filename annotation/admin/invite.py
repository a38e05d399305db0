"""Invitations: what an annotator needs to sign in, in one block to pass on privately.

``annotate users … --invite FILE`` writes one block per annotator who got a password in that
call (new, or reset): the address to open, the username, the password and, for the embedded
server's own certificate, the SHA-256 fingerprint to compare with the browser's. The file is
created 0600 and never overwritten (an existing one may hold passwords given earlier);
``--invite -`` prints the blocks instead. Nothing here is logged.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from biasforge.annotation.admin.users import NewUser
from biasforge.annotation.client.connection import Connection
from biasforge.errors import BiasforgeError

CHECK = (
    "  Your browser may warn that the certificate is not trusted (it is the server's own):\n"
    "  open the certificate details and continue only if its SHA-256 fingerprint is exactly\n"
    "  the one above."
)


def invitation(user: NewUser, connection: Connection) -> str:
    """One annotator's block of text."""
    lines = [
        f"biasforge review: invitation for {user.username}",
        f"  open:      {connection.annotators_url}",
        f"  username:  {user.username}",
        f"  password:  {user.password}",
        f"  workspace: {user.workspace} (role: {user.role})",
    ]
    if connection.fingerprint:
        lines.append(f"  certificate SHA-256 fingerprint: {connection.fingerprint}")
        lines.append(CHECK)
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def invitation_file(target: str) -> Iterator[TextIO]:
    """The invitations' destination, opened before any user is created or changed: a file
    that cannot be made is refused while no password has been given yet. A new file is 0600
    from creation; it is removed again if the command fails before writing to it."""
    if target == "-":
        yield sys.stdout
        return
    path = Path(target)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise BiasforgeError(
            f"--invite {path}: the file exists (it may hold passwords given earlier); "
            "choose a new name"
        ) from None
    except OSError as exc:
        raise BiasforgeError(f"--invite {path}: cannot create it ({exc.strerror})") from exc
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        try:
            yield handle
        except BaseException:
            if handle.tell() == 0:
                path.unlink(missing_ok=True)
            raise


def write_invitations(users: list[NewUser], connection: Connection, handle: TextIO) -> int:
    """Write the invitations of ``users`` that carry a password; returns how many."""
    blocks = [invitation(user, connection) for user in users if user.password]
    handle.write("\n".join(blocks))
    handle.flush()
    return len(blocks)
