"""The embedded server's certificate: generated once and kept, or the user's own; and the
pinned verification commands on the server machine use (real TLS handshakes, no Argilla)."""

from __future__ import annotations

import hashlib
import json
import socket
import ssl
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from biasforge.annotation.admin.tls import generated_certificate, user_certificate
from biasforge.annotation.client.trust import client_context
from biasforge.errors import InputError
from tests.annotation.conftest import ROOT


def openssl(*args: str) -> str:
    return subprocess.run(["openssl", *args], check=True, capture_output=True, text=True).stdout


def self_signed(folder: Path, name: str) -> tuple[Path, Path]:
    """A certificate and key made by the openssl command (not by the code under test)."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", f"/CN={name}",
            "-addext", f"subjectAltName=DNS:{name}")  # fmt: skip
    return cert, key


def der_sha256(cert: Path) -> str:
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(cert.read_text())).hexdigest().upper()


def names_in(cert: Path) -> str:
    return openssl("x509", "-in", str(cert), "-noout", "-ext", "subjectAltName")


def test_a_generated_certificate_is_kept_and_names_the_address(tmp_path):
    first = generated_certificate(tmp_path, "192.0.2.1")
    assert stat.S_IMODE(first.key.stat().st_mode) == 0o600
    assert first.fingerprint.replace(":", "") == der_sha256(first.cert)
    sans = names_in(first.cert)
    assert "IP Address:192.0.2.1" in sans and "IP Address:127.0.0.1" in sans
    assert "DNS:localhost" in sans and f"DNS:{socket.gethostname()}" in sans
    again = generated_certificate(tmp_path, "192.0.2.1")  # a restart: same certificate
    assert (
        again.fingerprint == first.fingerprint
        and again.cert.read_bytes() == first.cert.read_bytes()
    )
    key = first.key.read_bytes()
    moved = generated_certificate(tmp_path, "192.0.2.7")  # another address: re-issued, same key
    assert moved.fingerprint != first.fingerprint and "IP Address:192.0.2.7" in names_in(moved.cert)
    assert moved.key.read_bytes() == key


def test_the_users_certificate_is_checked_and_identified(tmp_path):
    cert, key = self_signed(tmp_path, "review.example.org")
    _, other_key = self_signed(tmp_path, "other.example.org")
    mine = user_certificate(cert, key)
    said = openssl("x509", "-in", str(cert), "-noout", "-fingerprint", "-sha256")
    assert said.strip().split("=", 1)[1] == mine.fingerprint
    assert mine.dns_names == ("review.example.org",)
    with pytest.raises(InputError, match="this key does not belong to the certificate"):
        user_certificate(cert, other_key)
    serve = [sys.executable, "-m", "biasforge.cli", "annotate", "serve", "--host", "192.0.2.1"]
    data_dir = tmp_path / "argilla"
    refused = subprocess.run(
        [*serve, "--tls-cert", str(cert), "--tls-key", str(other_key), "--data-dir", str(data_dir)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert refused.stderr.startswith(f"error: {other_key}: this key does not belong")
    assert not data_dir.exists()


def handshake(server_cert: Path, server_key: Path, pinned: Path, chain: Path | None = None):
    """Connect with ``client_context(pinned)`` to a TLS server presenting ``server_cert``
    (followed by ``chain``); returns None when the handshake succeeds, else the error."""
    served = server_cert
    if chain is not None:
        served = server_cert.with_suffix(".fullchain")
        served.write_text(server_cert.read_text() + chain.read_text())
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(served, server_key)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def accept() -> None:
        connection, _ = listener.accept()
        try:
            with server_side.wrap_socket(connection, server_side=True) as tls:
                tls.recv(1)
        except (ssl.SSLError, OSError):
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    try:
        raw = socket.create_connection(("127.0.0.1", port), timeout=10)
        with raw, client_context(pinned).wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x")
        return None
    except ssl.SSLError as exc:
        return exc
    finally:
        thread.join(10)
        listener.close()


def test_commands_trust_the_servers_own_certificate_and_nothing_else(tmp_path):
    mine = generated_certificate(tmp_path / "a", "127.0.0.1")
    other = generated_certificate(tmp_path / "b", "127.0.0.1")
    assert handshake(mine.cert, mine.key, mine.cert) is None
    assert "certificate verify failed" in str(handshake(other.cert, other.key, mine.cert))
    # a bought certificate comes with its CA's chain: only the server's own is trusted, not
    # every certificate that CA signed
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", str(tmp_path / "ca.key"), "-out", str(tmp_path / "ca.pem"), "-days", "2",
            "-subj", "/CN=test CA")  # fmt: skip
    leaves = {}
    for name in ("review", "elsewhere"):
        key, request = tmp_path / f"{name}.key", tmp_path / f"{name}.csr"
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", str(key), "-out", str(request), "-subj", f"/CN={name}.example.org")  # fmt: skip
        cert = tmp_path / f"{name}.pem"
        openssl("x509", "-req", "-in", str(request), "-CA", str(tmp_path / "ca.pem"),
                "-CAkey", str(tmp_path / "ca.key"), "-out", str(cert), "-days", "2")  # fmt: skip
        leaves[name] = (cert, key)
    pinned = tmp_path / "review-fullchain.pem"  # what a team passes as --tls-cert
    pinned.write_text(leaves["review"][0].read_text() + (tmp_path / "ca.pem").read_text())
    assert handshake(*leaves["review"], pinned, chain=tmp_path / "ca.pem") is None
    refused = handshake(*leaves["elsewhere"], pinned, chain=tmp_path / "ca.pem")
    assert "certificate verify failed" in str(refused)


def test_the_url_annotators_open_and_the_one_commands_use(tmp_path):
    from biasforge.annotation.admin.listen import Binding

    everywhere = Binding(host="0.0.0.0", tls=True).resolve(tmp_path / "a", 6900)
    assert everywhere.url == "https://127.0.0.1:6900"  # commands on this machine
    # the machine's full name (its short name where the full one is just "localhost")
    name = next(n for n in (socket.getfqdn(), socket.gethostname()) if n != "localhost")
    assert everywhere.public_url == f"https://{name}:6900"
    assert f"DNS:{name}" in names_in(everywhere.cert.cert)  # a name the certificate holds
    cert, key = self_signed(tmp_path, "review.example.org")
    bought = Binding(host="0.0.0.0", tls_cert=cert, tls_key=key).resolve(tmp_path / "b", 443)
    assert bought.public_url == "https://review.example.org:443"
    proxied = Binding(trusted_proxies=("127.0.0.1",), public_url="https://review.example.org/")
    behind = proxied.resolve(tmp_path / "c", 6900)
    assert (behind.url, behind.public_url) == (
        "http://127.0.0.1:6900",
        "https://review.example.org",
    )
    assert behind.launcher_args()[-2:] == ["--trusted-proxy", "127.0.0.1/32"]


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("--public-url", "https://ann:s3cret-pw@review.example.org",
         "error: --public-url: give it without a user name or password "
         "('https://review.example.org'); annotators sign in with their own accounts, and the "
         "address is shown and logged"),
        ("--public-url", "https://review.example.org\nX-Evil: 1",
         "error: --public-url 'https://review.example.org\\\\nX-Evil: 1': it holds a control "
         "character (a newline?)"),
        ("--trusted-proxy", "0.0.0.0/0",
         "error: --trusted-proxy '0.0.0.0/0' trusts every address's forwarded headers: any "
         "client could claim any address (and pass the sign-in throttle); give the proxy's "
         "address"),
    ],
)  # fmt: skip
def test_serve_refuses_a_public_url_with_secrets_or_newlines_and_trusting_everyone(
    tmp_path, option, value, expected
):
    """Issue 47, item 14: these were accepted silently (the password was printed and logged,
    the newline used raw, every forwarded header trusted); each is one line, nothing starts."""
    from tests.conftest import one_error_line, run_cli

    result = run_cli("annotate", "serve", option, value, "--data-dir", tmp_path / "srv",
                     "--port", "0", check=False)  # fmt: skip
    assert one_error_line(result) == expected
    assert "s3cret" not in result.stdout + result.stderr


def test_the_hint_after_a_stop_serves_again_on_the_same_address_over_tls(tmp_path):
    """Issue 47, item 9: once a team's server had stopped, commands said to start it with
    plain `biasforge annotate serve` (loopback, no TLS); the options it was served with come
    back instead (written at each start, kept after the stop)."""
    from biasforge.annotation.admin.listen import Listening
    from biasforge.annotation.client.connection import LAST_SERVE_FILE, serve_command

    cert = generated_certificate(tmp_path, "192.0.2.1")
    listening = Listening("192.0.2.1", 6900, cert, ("192.0.2.9",))
    options = listening.serve_options(tmp_path)
    assert options == ["--host", "192.0.2.1", "--tls", "--trusted-proxy", "192.0.2.9"]
    (tmp_path / LAST_SERVE_FILE).write_text(f'{{"options": {json.dumps(options)}}}')
    assert serve_command(tmp_path) == (
        "biasforge annotate serve --host 192.0.2.1 --tls --trusted-proxy 192.0.2.9 "
        f"--data-dir {tmp_path}"
    )
