"""Trusting one server certificate and nothing else (the embedded server's, pinned).

Commands on the server machine verify an embedded server that serves HTTPS against its own
certificate alone (:func:`client_context`): the certificate is the only trust anchor, so no
other certificate, whoever signed it, is accepted; the host name is not checked against it
because the certificate itself is pinned (a certificate a team bought names their host name,
while commands on the machine connect to the bound address). The certificate is made or
chosen by :mod:`biasforge.annotation.admin.tls`.
"""

from __future__ import annotations

import ssl
from pathlib import Path

from biasforge.errors import InputError
from biasforge.textfiles import read_bytes


def leaf_certificate(cert_path: Path):
    """The first certificate of a PEM file (the server's own; chain certificates follow), as
    a ``cryptography`` certificate."""
    from cryptography import x509

    try:
        return x509.load_pem_x509_certificates(read_bytes(cert_path, "a PEM certificate"))[0]
    except OSError as exc:
        raise InputError(cert_path, f"cannot read the certificate ({exc.strerror})") from exc
    except ValueError as exc:
        raise InputError(cert_path, "not a PEM certificate") from exc


def client_context(cert_path: str | Path) -> ssl.SSLContext:
    """An SSL context that trusts the server's own certificate and nothing else (see the
    module's docstring: pinned, so the host name is not compared)."""
    from cryptography.hazmat.primitives import serialization

    pem = leaf_certificate(Path(cert_path)).public_bytes(serialization.Encoding.PEM).decode()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_REQUIRED
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN  # the leaf itself is the anchor
    context.load_verify_locations(cadata=pem)
    return context
