"""A team reaches the embedded server from other machines: HTTPS on an interface address,
invitations, throttled sign-ins, a trusted reverse proxy, Argilla's token lifetime.

The "other machine" is a network namespace: the server runs in one at 192.0.2.1, the
annotators' browser and clients in another at 192.0.2.2, joined by a veth pair
(``tests/netns.py``). One server serves every test of this module. CI runs as root; where
namespaces cannot be made these tests fail and say why (they are the proof that a team can
get in, so they are not skipped).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import signal
import ssl
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pandas as pd
import pytest

from biasforge.annotation.admin.serve import free_port
from tests.annotation.conftest import ROOT, subset_run
from tests.annotation.helpers import CHROMIUM, CHROMIUM_FLAGS, question, sign_in
from tests.netns import (
    CLIENT_ADDRESS,
    SERVER_ADDRESS,
    HostPair,
    NamespacesUnavailable,
    host_pair,
    run_in,
)

#: the test server's throttle window: the real limiter with a window short enough to wait out
WINDOW = 20
USER_LIMIT = 10
ADDRESS_LIMIT = 15
TOKEN = "/api/v1/token"


@pytest.fixture(scope="module")
def hosts():
    try:
        with host_pair("bft") as pair:
            yield pair
    except NamespacesUnavailable as exc:
        pytest.fail(
            f"the team-server tests need network namespaces (root and the `ip` command): {exc}"
        )


@dataclass
class TeamServer:
    """``annotate serve --host 192.0.2.1 --tls`` running in the server namespace."""

    hosts: HostPair
    data_dir: Path
    port: int
    proc: subprocess.Popen | None = None
    state: dict = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"https://{SERVER_ADDRESS}:{self.port}"

    @property
    def cert(self) -> Path:
        return self.data_dir / "tls" / "cert.pem"

    def cli(self, *args, check: bool = True) -> subprocess.CompletedProcess:
        """``biasforge annotate ARGS --data-dir …`` run on the server's host."""
        argv = [sys.executable, "-m", "biasforge.cli", "annotate", *map(str, args)]
        argv += ["--data-dir", str(self.data_dir)]
        done = subprocess.run(
            self.hosts.exec_argv(self.hosts.server, *argv),
            capture_output=True, text=True, cwd=ROOT, timeout=300,
        )  # fmt: skip
        assert not check or done.returncode == 0, done.stdout + done.stderr
        return done

    def client(self) -> httpx.Client:
        """An HTTPS client that trusts this server's certificate (standard host name check)."""
        context = ssl.create_default_context(cafile=str(self.cert))
        return httpx.Client(base_url=self.url, verify=context, timeout=60)

    def listening(self) -> set[tuple[str, int]]:
        """Every listening socket of the server's process tree, read from inside its network
        namespace (psutil reads /proc/net of the namespace it runs in)."""
        code = (
            "import json, sys; from tests.annotation.helpers import listening; "
            "print(json.dumps(listening([int(sys.argv[1])])))"
        )
        argv = [sys.executable, "-c", code, str(self.state["pid"])]
        found = subprocess.check_output(
            self.hosts.exec_argv(self.hosts.server, *argv), cwd=ROOT, text=True
        )
        return {tuple(pair) for pair in json.loads(found)}

    def log(self) -> str:
        return (self.data_dir / "logs" / "server.log").read_text(errors="replace")


@pytest.fixture(scope="module")
def team_server(hosts, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("team") / "argilla"
    server = TeamServer(hosts, data_dir, free_port())
    env = {
        **os.environ,
        "BIASFORGE_LOGIN_LIMIT_USER": f"{USER_LIMIT} per {WINDOW} seconds",
        "BIASFORGE_LOGIN_LIMIT_ADDRESS": f"{ADDRESS_LIMIT} per {WINDOW} seconds",
    }
    argv = [sys.executable, "-m", "biasforge.cli", "annotate", "serve", "--host", SERVER_ADDRESS]
    argv += ["--tls", "--trusted-proxy", SERVER_ADDRESS, "--port", str(server.port)]
    argv += ["--data-dir", str(data_dir), "--no-worker"]  # the job worker opens no socket
    log = open(data_dir.parent / "serve.log", "wb")  # noqa: SIM115
    server.proc = subprocess.Popen(
        hosts.exec_argv(hosts.server, *argv), stdout=log, stderr=subprocess.STDOUT, env=env
    )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not server.state:
            if server.proc.poll() is not None:
                pytest.fail(f"serve exited: {(data_dir.parent / 'serve.log').read_text()}")
            state_file = data_dir / "server.json"
            if state_file.is_file():
                state = json.loads(state_file.read_text())
                server.state = state if state.get("pid") == server.proc.pid else {}
            time.sleep(0.3)
        assert server.state, "the team server did not start within 300 s"
        yield server
    finally:
        server.proc.send_signal(signal.SIGTERM)
        try:
            server.proc.wait(60)
        except subprocess.TimeoutExpired:
            server.proc.kill()
        log.close()


def invitations(text: str) -> dict[str, dict[str, str]]:
    """username -> fields of the invitation blocks ``annotate users --invite`` wrote."""
    found: dict[str, dict[str, str]] = {}
    for block in text.split("biasforge review: invitation for ")[1:]:
        fields = dict(re.findall(r"^  ([A-Za-z0-9 -]+?):\s+(\S+)", block, flags=re.M))
        found[block.split("\n", 1)[0].strip()] = fields
    return found


def sha256_fingerprint(cert: Path) -> str:
    """The certificate's SHA-256 fingerprint, computed here from its DER bytes."""
    der = ssl.PEM_cert_to_DER_cert(cert.read_text())
    return hashlib.sha256(der).hexdigest().upper()


def spki_pin(cert: Path) -> str:
    """base64 SHA-256 of the certificate's public key: what chromium's
    --ignore-certificate-errors-spki-list trusts (that one key, nothing else)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    key = x509.load_pem_x509_certificate(cert.read_bytes()).public_key()
    der = key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def test_an_annotator_on_another_host_reviews_over_https_and_the_owner_pulls_it(
    team_server, hosts, becpro_run, browser, artifacts, tmp_path
):
    run = subset_run(becpro_run, tmp_path / "run", 2)
    pushed = team_server.cli("push", run, "--dataset", "team-review", "--min-submitted", "1")
    (dataset_id,) = re.findall(r"/dataset/([0-9a-f-]{36})/annotation-mode", pushed.stdout)
    invite = tmp_path / "invitation.txt"
    made = team_server.cli("users", "team-ann", "--invite", invite)
    assert stat.S_IMODE(invite.stat().st_mode) == 0o600
    card = invitations(invite.read_text())["team-ann"]
    assert card["open"] == team_server.url and len(card["password"]) >= 16
    assert card["password"] not in made.stdout + made.stderr
    assert card["certificate SHA-256 fingerprint"].replace(":", "") == sha256_fingerprint(
        team_server.cert
    )

    wrapper = tmp_path / "chromium-on-the-client-host"
    wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {hosts.client} {CHROMIUM} "$@"\n')
    wrapper.chmod(0o755)
    pin = f"--ignore-certificate-errors-spki-list={spki_pin(team_server.cert)}"
    remote = browser.browser_type.launch(executable_path=str(wrapper), args=[*CHROMIUM_FLAGS, pin])
    try:
        page = sign_in(remote, team_server.url, "team-ann", card["password"])
        page.goto(f"{team_server.url}/dataset/{dataset_id}/annotation-mode")
        question(page, "grammatical").wait_for(timeout=60_000)
        rows = pd.read_parquet(run / "candidates.parquet")
        shown = next(
            i
            for i, s in zip(rows["id"], rows["sentence"], strict=True)
            if page.get_by_text(s, exact=True).count()
        )
        question(page, "grammatical").get_by_text("Yes", exact=True).click()
        question(page, "agreement").get_by_text("Yes", exact=True).click()
        page.get_by_role("button", name="Submit").click()
        page.wait_for_function(
            "() => document.body.innerText.match(/Submitted\\s*1/)", timeout=30_000
        )
        page.screenshot(path=artifacts / "team-server-annotator-over-https.png", full_page=True)
    finally:
        remote.close()

    out = tmp_path / "reviewed"
    team_server.cli("pull", "--dataset", "team-review", "--out", out, "--policy", "majority")
    decisions = pd.read_parquet(out / "decisions.parquet").set_index("id")
    assert decisions.loc[shown, "decision"] == "accept" and decisions.loc[shown, "submitted"] == 1
    assert (decisions.drop(index=shown)["decision"] == "pending").all()

    sockets = team_server.listening()
    assert {s for s in sockets if s[0] != "127.0.0.1"} == {(SERVER_ADDRESS, team_server.port)}
    assert len(sockets) >= 2  # the web server and Redis (on loopback)
    logs = "".join(p.read_text(errors="replace") for p in (team_server.data_dir / "logs").iterdir())
    assert card["password"] not in logs


def test_ten_wrong_passwords_throttle_that_user_from_that_address_only(team_server, hosts):
    given = invitations(team_server.cli("users", "thr-a", "thr-b", "--invite", "-").stdout)
    right = {name: card["password"] for name, card in given.items()}

    def attempts():
        with team_server.client() as api:
            began = time.monotonic()
            wrong = [
                api.post(TOKEN, data={"username": "thr-a", "password": f"wrong-{i}-guess"})
                for i in range(USER_LIMIT)
            ]
            spent = time.monotonic() - began
            refused = api.post(TOKEN, data={"username": "thr-a", "password": right["thr-a"]})
            other_wrong = api.post(TOKEN, data={"username": "thr-b", "password": "wrong-b-guess"})
            other = api.post(TOKEN, data={"username": "thr-b", "password": right["thr-b"]})
            time.sleep(int(refused.headers.get("retry-after", WINDOW)) + 0.5)
            later = api.post(TOKEN, data={"username": "thr-a", "password": right["thr-a"]})
            return [r.status_code for r in wrong], spent, refused, other_wrong, other, later

    wrong, spent, refused, other_wrong, other, later = run_in(hosts.client, attempts)
    assert wrong == [401] * USER_LIMIT
    assert spent < WINDOW, f"{USER_LIMIT} sign-ins took {spent:.0f} s: the machine is too loaded"
    assert refused.status_code == 429, refused.text
    assert 0 < int(refused.headers["retry-after"]) <= WINDOW
    assert "try again in" in refused.json()["detail"]
    assert (other_wrong.status_code, other.status_code) == (401, 201)  # thr-b: not throttled
    assert later.status_code == 201, later.text  # after the window, the right password works
    log = team_server.log()
    assert f"sign-in throttled for 'thr-a' from {CLIENT_ADDRESS}" in log
    assert "wrong-" not in log and right["thr-a"] not in log and right["thr-b"] not in log


def test_forwarded_headers_count_only_from_the_trusted_proxy(team_server, hosts):
    """The server trusts 192.0.2.1 (a proxy on its own host): its X-Forwarded-For names the
    client the throttle counts, its X-Forwarded-Proto the scheme of redirects. The same headers
    from the annotators' host are ignored."""

    def sign_in_as(api, name: str, client: str) -> httpx.Response:
        forwarded = {"X-Forwarded-For": client}
        return api.post(TOKEN, data={"username": name, "password": "x" * 12}, headers=forwarded)

    def through_proxy():
        with team_server.client() as api:
            began = time.monotonic()
            codes = [sign_in_as(api, f"px-{i}", "198.51.100.7").status_code for i in range(15)]
            spent = time.monotonic() - began
            full = sign_in_as(api, "px-last", "198.51.100.7").status_code
            other = sign_in_as(api, "px-last", "198.51.100.8").status_code
            scheme = api.get("/api/v1/me/", headers={"X-Forwarded-Proto": "http"})
            return codes, spent, full, other, scheme.headers["location"]

    def from_client_host():
        with team_server.client() as api:
            ignored = sign_in_as(api, "px-direct", "198.51.100.7").status_code
            scheme = api.get("/api/v1/me/", headers={"X-Forwarded-Proto": "http"})
            return ignored, scheme.headers["location"]

    codes, spent, full, other, proxied_location = run_in(hosts.server, through_proxy)
    assert codes == [401] * ADDRESS_LIMIT
    assert spent < WINDOW, f"{ADDRESS_LIMIT} sign-ins took {spent:.0f} s: the machine is too loaded"
    assert full == 429  # that forwarded client's count is full: one address, many usernames
    assert other == 401  # another client behind the same proxy is not throttled
    assert proxied_location.startswith("http://")
    ignored, direct_location = run_in(hosts.client, from_client_host)
    assert ignored == 401 and direct_location.startswith("https://")
    log = team_server.log()
    assert "failed sign-in for 'px-0' from 198.51.100.7" in log
    assert f"failed sign-in for 'px-direct' from {CLIENT_ADDRESS}" in log


def test_plain_http_to_the_https_port_gets_a_400_naming_the_https_url(team_server, hosts):
    """Issue 47, item 7: ``http://`` to the HTTPS port got an empty reply (the TLS handshake
    failed and the connection was dropped), which reads as a server that is down."""

    def plain() -> tuple[int, str]:
        with httpx.Client(timeout=60) as api:
            reply = api.get(f"http://{SERVER_ADDRESS}:{team_server.port}/api/v1/version")
            return reply.status_code, reply.text

    assert run_in(hosts.client, plain) == (
        400, f"This server speaks HTTPS only: open {team_server.url}\n"
    )  # fmt: skip
    with team_server.client() as api:  # HTTPS on the same port is unchanged
        assert run_in(hosts.client, lambda: api.get("/api/v1/version").status_code) == 200


def test_plain_http_beyond_loopback_is_refused_before_anything_starts(tmp_path):
    from tests.conftest import one_error_line

    data_dir = tmp_path / "argilla"
    serve = [sys.executable, "-m", "biasforge.cli", "annotate", "serve"]
    serve += ["--data-dir", str(data_dir)]
    for extra in ([], ["--background"]):
        refused = subprocess.run(
            [*serve, "--host", SERVER_ADDRESS, "--port", "0", *extra],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
        )  # fmt: skip
        assert refused.stderr.count("\n") == 1
        assert "refusing to serve plain HTTP on 192.0.2.1" in one_error_line(refused)
        assert "--insecure-http" in refused.stderr
        assert not data_dir.exists()  # nothing started, nothing written


def test_session_tokens_last_as_long_as_argillas(server, tmp_path):
    """The embedded server signs tokens that expire when stock Argilla's do (its settings'
    default, read from argilla-server itself), not later."""
    from biasforge.annotation.admin.server_env import ensure_server_venv
    from biasforge.annotation.admin.users import add_users
    from biasforge.annotation.client.connection import find_server

    python = ensure_server_venv(quiet=True)
    (settings,) = python.parent.parent.glob(
        "lib/python*/site-packages/argilla_server/security/settings.py"
    )
    read = (
        "import importlib.util, sys; spec = importlib.util.spec_from_file_location('s', sys.argv[1]); "
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); "
        "print(m.Settings.model_fields['token_expiration'].default)"
    )
    argilla_default = int(
        subprocess.check_output([str(python), "-c", read, str(settings)], text=True)
    )
    (user,) = add_users(find_server(server.data_dir), [("token-ann", None)])
    before = time.time()
    token = httpx.post(
        f"{server.url}{TOKEN}", data={"username": "token-ann", "password": user.password}
    )
    assert token.status_code == 201
    payload = token.json()["access_token"].split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert argilla_default == 24 * 60 * 60  # what Argilla 2.8 documents: one day
    assert before + argilla_default - 5 <= claims["exp"] <= time.time() + argilla_default + 5


def test_an_invitation_file_is_never_overwritten_and_nothing_is_created_then(server, tmp_path):
    from tests.conftest import one_error_line

    existing = tmp_path / "team.txt"
    existing.write_text("earlier invitations\n")
    argv = [sys.executable, "-m", "biasforge.cli", "annotate", "users", "late-ann"]
    refused = subprocess.run(
        [*argv, "--invite", str(existing), "--data-dir", str(server.data_dir)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert f"--invite {existing}: the file exists" in one_error_line(refused)
    assert existing.read_text() == "earlier invitations\n"
    from biasforge.annotation.client.connection import find_server

    key = find_server(server.data_dir).api_key
    users = httpx.get(f"{server.url}/api/v1/users", headers={"X-Argilla-Api-Key": key})
    assert "late-ann" not in {u["username"] for u in users.json()["items"]}


def test_plain_http_beyond_loopback_when_insisted_on_warns_at_start(team_server, hosts, tmp_path):
    """--insecure-http is accepted, with a warning printed as the server starts (here the
    start then stops at once: the team server already holds that address and port)."""
    argv = [sys.executable, "-m", "biasforge.cli", "annotate", "serve", "--host", SERVER_ADDRESS]
    argv += ["--insecure-http", "--port", str(team_server.port), "--data-dir", str(tmp_path / "d")]
    done = subprocess.run(
        hosts.exec_argv(hosts.server, *argv), capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    warning, error = done.stderr.splitlines()
    assert warning.startswith(f"warning: serving plain HTTP on {SERVER_ADDRESS}")
    assert (
        error
        == f"error: port {team_server.port} on {SERVER_ADDRESS} is in use; choose another with --port"
    )
    assert done.returncode == 2
