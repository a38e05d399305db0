"""Where the embedded server listens, and the two URLs that follow from it.

Loopback (the default) may be plain HTTP; any other address needs HTTPS (the user's
certificate or a generated one) unless the user insists with ``--insecure-http``. Two URLs come
out of a choice: the one annotators open (the bound address, a name of the certificate, or the
``--public-url`` of a reverse proxy) and the one commands on the server machine use (the bound
address, or loopback when bound to every interface), checked against the certificate.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasforge.annotation.admin.tls import Certificate, machine_names
from biasforge.annotation.client.trust import client_context
from biasforge.errors import BiasforgeError

LOOPBACK = "127.0.0.1"
PLAIN_HTTP_WARNING = (
    "warning: serving plain HTTP on {host}: passwords, API keys and answers cross the network "
    "unencrypted (--insecure-http); use HTTPS (drop --insecure-http) or a reverse proxy"
)


def parse_host(host: str) -> str:
    """An interface address (IPv4/IPv6), ``0.0.0.0``/``::`` or ``localhost``; else one line."""
    if host == "localhost":
        return LOOPBACK
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        raise BiasforgeError(
            f"--host {host!r}: give an address of one of this machine's interfaces "
            "(e.g. 192.168.1.20), 0.0.0.0 for all of them, or 127.0.0.1"
        ) from None


def check_bindable(host: str, port: int = 0) -> None:
    """Refuse, in one line and before anything is written, an address this machine does not
    have and a port something else holds (listening or only bound: the server could not bind
    it either). Asked of the kernel with a bind, as the server will do (SO_REUSEADDR too)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRNOTAVAIL:
                raise BiasforgeError(
                    f"--host {host}: not an address of this machine (its addresses: "
                    f"{', '.join(machine_addresses())}); give one of them, or 0.0.0.0"
                ) from None
            if exc.errno == errno.EADDRINUSE:
                raise BiasforgeError(
                    f"port {port} on {host} is in use; choose another with --port"
                ) from None
            raise BiasforgeError(f"cannot listen on {host} port {port}: {exc.strerror}") from None


def machine_addresses() -> list[str]:
    """The IP addresses of this machine's interfaces (for a message)."""
    import psutil

    found = {
        address.address.split("%")[0]
        for addresses in psutil.net_if_addrs().values()
        for address in addresses
        if address.family in (socket.AF_INET, socket.AF_INET6)
    }
    return sorted(found, key=lambda a: (":" in a, a))


def is_loopback(host: str) -> bool:
    return ipaddress.ip_address(host).is_loopback


def check_exposure(host: str, *, tls: bool, insecure_http: bool) -> None:
    """Refuse plain HTTP beyond loopback unless the user asked for it by name."""
    if not tls and not insecure_http and not is_loopback(host):
        raise BiasforgeError(
            f"refusing to serve plain HTTP on {host}: annotators' passwords would cross the "
            "network unencrypted; add --tls-cert FILE --tls-key FILE, or --tls for a generated "
            "certificate (or --insecure-http if you really mean it)"
        )


def _url(scheme: str, host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}"


def local_host(host: str) -> str:
    """The address commands on this machine connect to."""
    ip = ipaddress.ip_address(host)
    if ip.is_unspecified:
        return "::1" if ip.version == 6 else LOOPBACK
    return host


def _public_host(host: str, cert: Certificate | None) -> str:
    """The address or name annotators type: the bound address when the certificate names it,
    else the certificate's first host name; for every interface, this machine's name."""
    unspecified = ipaddress.ip_address(host).is_unspecified
    if cert is None:
        return machine_names()[-1] if unspecified else host
    if not unspecified and (host in cert.ip_addresses or cert.generated):
        return host
    names = [n for n in cert.dns_names if "*" not in n and n != "localhost"]
    if names:
        return names[-1] if cert.generated else names[0]
    return host


@dataclass(frozen=True)
class Listening:
    """How the server is bound and reached."""

    host: str
    port: int
    cert: Certificate | None = None
    trusted_proxies: tuple[str, ...] = ()
    public_url_override: str | None = None

    @property
    def scheme(self) -> str:
        return "https" if self.cert else "http"

    @property
    def url(self) -> str:
        """What commands on the server machine use."""
        return _url(self.scheme, local_host(self.host), self.port)

    @property
    def public_url(self) -> str:
        """What annotators open."""
        if self.public_url_override:
            return self.public_url_override.rstrip("/")
        return _url(self.scheme, _public_host(self.host, self.cert), self.port)

    @property
    def plain_beyond_loopback(self) -> bool:
        return self.cert is None and not is_loopback(self.host)

    def client_verify(self):
        """What a client on this machine verifies the server with (httpx/urllib ``verify``)."""
        return client_context(self.cert.cert) if self.cert else True

    def state(self) -> dict[str, Any]:
        """The part of ``server.json`` that tells commands how to reach the server."""
        return {
            "url": self.url,
            "public_url": self.public_url,
            "host": self.host,
            "port": self.port,
            "tls_cert": str(self.cert.cert) if self.cert else None,
            "fingerprint": self.cert.fingerprint if self.cert else None,
        }

    def serve_options(self, data_dir: Path) -> list[str]:
        """``annotate serve`` options that listen this way again: what the hint names once
        the server has stopped (issue 47, item 9: it said plain ``annotate serve``, loopback
        only, to a team that was served on an address)."""
        args = [] if self.host == LOOPBACK else ["--host", self.host]
        args += [] if self.port == 6900 else ["--port", str(self.port)]
        if self.cert is not None and self.cert.cert.parent == data_dir / "tls":
            args.append("--tls")  # the generated certificate, kept in the data folder
        elif self.cert is not None:
            args += ["--tls-cert", str(self.cert.cert), "--tls-key", str(self.cert.key)]
        elif not is_loopback(self.host):
            args.append("--insecure-http")
        for proxy in self.trusted_proxies:
            args += ["--trusted-proxy", proxy]
        return args + (
            ["--public-url", self.public_url_override] if self.public_url_override else []
        )

    def launcher_args(self) -> list[str]:
        """The launcher's ``start`` options for this binding."""
        args = ["--host", self.host, "--port", str(self.port)]
        if self.cert:
            args += ["--ssl-certfile", str(self.cert.cert), "--ssl-keyfile", str(self.cert.key)]
        for proxy in self.trusted_proxies:
            args += ["--trusted-proxy", proxy]
        return args


@dataclass(frozen=True)
class Binding:
    """What the user asked for on ``annotate serve``'s command line, before any check."""

    host: str = LOOPBACK
    tls: bool = False  # a generated self-signed certificate
    tls_cert: Path | None = None
    tls_key: Path | None = None
    insecure_http: bool = False
    trusted_proxies: tuple[str, ...] = ()
    public_url: str | None = None

    def resolve(self, data_dir: Path, port: int) -> Listening:
        """Check the request (one line per problem, before anything starts) and make or load
        the certificate."""
        from biasforge.annotation.admin.tls import generated_certificate, user_certificate

        host = parse_host(self.host)
        if (self.tls_cert is None) != (self.tls_key is None):
            raise BiasforgeError("--tls-cert and --tls-key go together: give both files")
        wants_tls = self.tls or self.tls_cert is not None
        if wants_tls and self.insecure_http:
            raise BiasforgeError("--insecure-http contradicts --tls/--tls-cert: choose one")
        check_exposure(host, tls=wants_tls, insecure_http=self.insecure_http)
        proxies = tuple(_network(p) for p in self.trusted_proxies)
        public = _public_url(self.public_url) if self.public_url else None
        cert = None
        if self.tls_cert is not None:
            cert = user_certificate(self.tls_cert, self.tls_key)
        check_bindable(host)  # an address this machine lacks: before a certificate is written
        if cert is None and self.tls:
            cert = generated_certificate(data_dir, host)
        return Listening(host, port, cert, proxies, public)

    def argv(self) -> list[str]:
        """The same request as ``annotate serve`` options (for the detached server)."""
        args = ["--host", self.host]
        args += ["--tls"] if self.tls else []
        if self.tls_cert is not None:
            args += ["--tls-cert", str(self.tls_cert), "--tls-key", str(self.tls_key)]
        args += ["--insecure-http"] if self.insecure_http else []
        for proxy in self.trusted_proxies:
            args += ["--trusted-proxy", proxy]
        return args + (["--public-url", self.public_url] if self.public_url else [])


def _network(text: str) -> str:
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise BiasforgeError(
            f"--trusted-proxy {text!r}: give the proxy's address (e.g. 127.0.0.1) or network"
        ) from None
    if network.prefixlen == 0:
        raise BiasforgeError(
            f"--trusted-proxy {text!r} trusts every address's forwarded headers: any client "
            "could claim any address (and pass the sign-in throttle); give the proxy's address"
        )
    return str(network)


def _public_url(url: str) -> str:
    from urllib.parse import urlsplit

    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in url):
        raise BiasforgeError(
            f"--public-url {url.encode('unicode_escape').decode()!r}: it holds a control "
            "character (a newline?)"
        )
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        shown = parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]).geturl()
        raise BiasforgeError(
            f"--public-url: give it without a user name or password ({shown!r}); annotators "
            "sign in with their own accounts, and the address is shown and logged"
        )
    if (
        parts.scheme not in ("https", "http") or not parts.hostname or parts.path not in ("", "/")
        or parts.query or parts.fragment
    ):  # fmt: skip
        raise BiasforgeError(
            f"--public-url {url!r}: give the address annotators open, e.g. "
            "https://review.example.org (biasforge is served at the root of a host name)"
        )
    return url.rstrip("/")
