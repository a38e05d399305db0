"""Plain HTTP sent to the HTTPS port is answered in plain HTTP: a 400 whose one line names
the https URL (issue 47, item 7: ``http://`` to a team's server got an empty reply, which
reads as a server that is down).

OpenSSL recognises an HTTP request where a TLS handshake should start (the ``HTTP_REQUEST``
error of the handshake). Both event loops uvicorn may run (uvloop, asyncio) do TLS through
``SSLContext.wrap_bio``, which builds the context's ``sslobject_class`` on two memory buffers,
and send whatever the outgoing buffer holds when a handshake step asks for more data. So the
handshake object here writes the plain answer to that buffer and asks for more data instead
of failing; the client reads the answer (``Connection: close``) and hangs up, and anything it
sends after that ends the connection as before. Every other handshake error is unchanged.

Only the standard library: this runs in the server's virtualenv (``asgi`` installs it in each
web process; the launcher puts the URL in the environment).
"""

from __future__ import annotations

import os
import ssl

#: the environment variable that holds the https URL the answer names
URL_ENV = "BIASFORGE_HTTPS_URL"


def answer(url: str) -> bytes:
    """The plain-HTTP reply: 400, one line of text naming ``url``, connection closed."""
    body = f"This server speaks HTTPS only: open {url}\n".encode()
    head = (
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class AnswersPlainHttp(ssl.SSLObject):
    """An ``SSLObject`` whose server-side handshake answers a plain HTTP request once."""

    @classmethod
    def _create(cls, incoming, outgoing, *args, **kwargs):
        made = super()._create(incoming, outgoing, *args, **kwargs)
        made._plain_outgoing, made._plain_answered = outgoing, False
        return made

    def do_handshake(self) -> None:
        try:
            super().do_handshake()
        except ssl.SSLError as error:
            if error.reason != "HTTP_REQUEST" or self._plain_answered or not self.server_side:
                raise
            self._plain_answered = True
            self._plain_outgoing.write(answer(os.environ.get(URL_ENV, "the https:// address")))
            raise ssl.SSLWantReadError("plain HTTP answered") from None


def install() -> None:
    """Every TLS connection of this process answers plain HTTP (see the module docstring)."""
    ssl.SSLContext.sslobject_class = AnswersPlainHttp
