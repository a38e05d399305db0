"""The embedded server's TLS certificate: the user's own, or one generated and kept here.

A team reaches ``annotate serve --host ADDRESS`` over HTTPS. Without ``--tls-cert``/``--tls-key``
a self-signed certificate is generated once (``cryptography``), its private key kept 0600 in the
data dir and reused across restarts, so the SHA-256 fingerprint annotators checked the first
time stays the same. The certificate names every address and host name it may be reached by
(the bound address, loopback, this machine's names); a later ``--host`` it does not name gets a
new certificate for the same key (and a new fingerprint, printed again).

Commands on the server machine trust that certificate and nothing else
(:mod:`biasforge.annotation.client.trust`).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from biasforge.annotation.client.trust import leaf_certificate
from biasforge.errors import BiasforgeError, InputError
from biasforge.textfiles import read_bytes

TLS_DIR = "tls"
CERT_FILE = "cert.pem"
KEY_FILE = "key.pem"
#: a generated certificate is valid this long and re-issued (same key) when less than
#: RENEW_BEFORE is left
VALIDITY = datetime.timedelta(days=365)
RENEW_BEFORE = datetime.timedelta(days=30)


@dataclass(frozen=True)
class Certificate:
    """A certificate/key pair the server presents, and what annotators check."""

    cert: Path
    key: Path
    fingerprint: str  # SHA-256 of the DER certificate, as browsers show it (AA:BB:…)
    dns_names: tuple[str, ...]
    ip_addresses: tuple[str, ...]
    generated: bool


def _x509():
    from cryptography import x509

    return x509


def fingerprint(cert_path: Path) -> str:
    """SHA-256 fingerprint of the server certificate, colon-separated upper-case hex."""
    from cryptography.hazmat.primitives import hashes

    return leaf_certificate(cert_path).fingerprint(hashes.SHA256()).hex(":").upper()


def _names(cert) -> tuple[tuple[str, ...], tuple[str, ...]]:
    x509 = _x509()
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return (), ()
    dns = tuple(san.get_values_for_type(x509.DNSName))
    ips = tuple(str(ip) for ip in san.get_values_for_type(x509.IPAddress))
    return dns, ips


def _describe(cert_path: Path, key_path: Path, *, generated: bool) -> Certificate:
    dns, ips = _names(leaf_certificate(cert_path))
    return Certificate(cert_path, key_path, fingerprint(cert_path), dns, ips, generated)


def user_certificate(cert_path: Path, key_path: Path) -> Certificate:
    """The user's ``--tls-cert``/``--tls-key``, checked: readable PEM, and the key is the
    certificate's (uvicorn would otherwise fail later, in a log)."""
    from cryptography.hazmat.primitives import serialization

    cert = leaf_certificate(cert_path)
    try:
        key = serialization.load_pem_private_key(
            read_bytes(key_path, "a PEM private key"), password=None
        )
    except OSError as exc:
        raise InputError(key_path, f"cannot read the private key ({exc.strerror})") from exc
    except (ValueError, TypeError) as exc:
        raise InputError(key_path, "not an unencrypted PEM private key") from exc
    if key.public_key() != cert.public_key():
        raise InputError(key_path, f"this key does not belong to the certificate {cert_path}")
    return _describe(Path(cert_path), Path(key_path), generated=False)


def machine_names() -> list[str]:
    """This machine's host names (short and fully qualified), for a certificate's names."""
    names = ["localhost", socket.gethostname(), socket.getfqdn()]
    return list(dict.fromkeys(n for n in names if n))


def _wanted_addresses(host: str) -> list[str]:
    addresses = ["127.0.0.1", "::1"]
    ip = ipaddress.ip_address(host)
    if not ip.is_unspecified:
        addresses.append(str(ip))
    return list(dict.fromkeys(addresses))


def _write_key(path: Path):
    """A new EC P-256 private key, written 0600 from creation."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    os.replace(tmp, path)
    return key


def _load_key(path: Path):
    from cryptography.hazmat.primitives import serialization

    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        raise BiasforgeError(f"{path}: permissions {oct(mode)} are too open; run chmod 600 {path}")
    return serialization.load_pem_private_key(path.read_bytes(), password=None)


def _issue(key, dns: list[str], ips: list[str]) -> bytes:
    """A self-signed server certificate for ``key`` naming ``dns`` and ``ips``."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    x509 = _x509()
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "biasforge annotation server")])
    san = [x509.DNSName(n) for n in dns] + [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.SubjectAlternativeName(san), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def _still_good(cert_path: Path, dns: list[str], ips: list[str]) -> bool:
    if not cert_path.is_file():
        return False
    cert = leaf_certificate(cert_path)
    left = cert.not_valid_after_utc - datetime.datetime.now(datetime.UTC)
    have_dns, have_ips = _names(cert)
    return left > RENEW_BEFORE and set(dns) <= set(have_dns) and set(ips) <= set(have_ips)


def generated_certificate(data_dir: Path, host: str) -> Certificate:
    """The data dir's self-signed certificate for ``host``: reused while it names the host and
    is valid for another month; otherwise issued again for the same 0600 key."""
    folder = Path(data_dir) / TLS_DIR
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    key_path, cert_path = folder / KEY_FILE, folder / CERT_FILE
    dns, ips = machine_names(), _wanted_addresses(host)
    if key_path.exists() and _still_good(cert_path, dns, ips):
        return _describe(cert_path, key_path, generated=True)
    key = _load_key(key_path) if key_path.exists() else _write_key(key_path)
    tmp = cert_path.with_name(f".{cert_path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(_issue(key, dns, ips))
    os.replace(tmp, cert_path)
    return _describe(cert_path, key_path, generated=True)
