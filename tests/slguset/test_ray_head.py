"""``curate slguset --executor ray`` and the network (issue 27, items 1 and 6): a local Ray head
listens on the loopback interface only — every socket of every process of a running mining run
(driver, GCS server, raylet, agents, workers) — and an unreachable ``--ray-address`` is refused
within a bounded wait, with one line and exit 2 instead of a warning a second."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import psutil
import pytest

from tests.conftest import run_cli
from tests.slguset.test_kill import alive, start_ray_run

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def is_loopback(ip: str) -> bool:
    """127.0.0.0/8 or ::1, also as an IPv4-mapped IPv6 address (``::ffff:127.0.0.1``)."""
    address = ipaddress.ip_address(ip.split("%")[0])
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def listening(processes: list[psutil.Process]) -> list[tuple[str, str, int]]:
    """(process name, address, port) of every listening TCP socket of ``processes``."""
    found = []
    for process in processes:
        with contextlib.suppress(psutil.Error):
            name = process.name()
            found += [
                (name, c.laddr.ip, c.laddr.port)
                for c in process.net_connections(kind="inet")
                if c.status == psutil.CONN_LISTEN
            ]
    return found


def ray_workers(driver: psutil.Process) -> list[psutil.Process]:
    """The Ray worker processes below ``driver`` that have taken a task (``ray::`` titles
    other than an idle worker's)."""
    found = []
    for process in driver.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            title = " ".join(process.cmdline())
            if title.startswith("ray::") and not title.startswith("ray::IDLE"):
                found.append(process)
    return found


def test_the_loopback_rule_itself():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("::ffff:127.0.0.1")
    assert not any(is_loopback(ip) for ip in ("0.0.0.0", "::", "192.0.2.2", "::ffff:10.0.0.1"))


def test_a_local_ray_mining_run_listens_on_loopback_only(tmp_path):
    command = start_ray_run(tmp_path)
    driver = psutil.Process(command.pid)
    processes: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 180
        # until two Ray workers run tasks (the second-stage name check writes its rows in
        # batches, often only at a task's end, so written rows alone come too late to watch)
        while time.monotonic() < deadline:
            assert command.poll() is None, "the run ended before its sockets were listed"
            rows = [p for p in tmp_path.glob(".r.work-*/parts/kept/*.rows") if p.stat().st_size]
            if len(rows) == 2 or len(ray_workers(driver)) >= 2:
                break
            time.sleep(0.2)
        else:
            pytest.fail("the Ray workers never started writing")
        sockets: set[tuple[str, str, int]] = set()
        listed_until = time.monotonic() + 15
        while time.monotonic() < listed_until and command.poll() is None:
            processes = [driver, *driver.children(recursive=True)]
            sockets |= set(listening(processes))  # every socket seen while the run lives
            if {"gcs_server", "raylet"} <= {name for name, _, _ in sockets}:
                break
            time.sleep(0.2)
        names = {name for name, _, _ in sockets}
        assert {"gcs_server", "raylet"} <= names  # the head's servers were seen listening
        assert [s for s in sockets if not is_loopback(s[1])] == []
    finally:
        os.kill(command.pid, signal.SIGKILL)
        command.wait()
        time.sleep(1)
        for process in processes:
            if alive(process):
                process.kill()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens once the socket is closed


@pytest.fixture
def not_ray():
    """A TCP server that is not a Ray cluster (plain HTTP): it accepts the connection."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_error(404)

        do_POST = do_GET

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("where", ["closed port", "not ray"])
def test_an_unreachable_ray_address_is_refused_in_one_line(where, request, tmp_path):
    address = (
        f"127.0.0.1:{closed_port()}"
        if where == "closed port"
        else request.getfixturevalue("not_ray")
    )
    corpus = tmp_path / "c.txt"
    corpus.write_text("他每天骑车上班。\n", encoding="utf-8")
    started = time.monotonic()
    result = run_cli("curate", "slguset", "--corpus", corpus, "--out", tmp_path / "r",
                     "--executor", "ray", "--ray-address", address, check=False,
                     process=True)  # fmt: skip  # Ray's client keeps process-wide state
    assert time.monotonic() - started < 30
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --ray-address {address}: ")
    assert not (tmp_path / "r").exists() and list(tmp_path.glob(".r.work-*")) == []


def test_a_live_ray_head_passes_the_check():
    """The probe for the test above: a real GCS is accepted (the check refuses no cluster)."""
    import ray

    from biasforge.curation.slguset.ray_head import check_reachable, ray_cluster

    with ray_cluster(1):
        address = ray.get_runtime_context().gcs_address
        assert is_loopback(address.rpartition(":")[0])
        check_reachable(address)
