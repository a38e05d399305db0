"""Two hosts on one machine: network namespaces joined by a veth pair (TEST-NET-1 addresses).

The server side gets 192.0.2.1, the client side 192.0.2.2, each with its own loopback; nothing
else is routed, so no traffic leaves the pair. Names carry a per-process suffix so parallel
runs (other checkouts on a shared machine) never collide. Used by the team-server tests and by
``benchmarks/bench_annotators.py --netns``; needs root (CI runs as root).

Code enters a namespace with ``setns(2)``: a thread (``run_in``) or a freshly forked process
(``enter``) then opens its sockets there, and the children it starts inherit the namespace.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SERVER_ADDRESS = "192.0.2.1"
CLIENT_ADDRESS = "192.0.2.2"
CLONE_NEWNET = 0x40000000


class NamespacesUnavailable(RuntimeError):
    """The machine cannot make network namespaces here (not root, no CAP_NET_ADMIN, no ip)."""


@dataclass(frozen=True)
class HostPair:
    server: str  # namespace names
    client: str

    def exec_argv(self, namespace: str, *argv: str) -> list[str]:
        """``argv`` run inside ``namespace`` (ip netns exec; the process image is argv's)."""
        return ["ip", "netns", "exec", namespace, *argv]


def _ip(*args: str) -> None:
    try:
        done = subprocess.run(["ip", *args], capture_output=True, text=True)
    except FileNotFoundError as exc:
        raise NamespacesUnavailable(f"the `ip` command is missing ({exc})") from exc
    if done.returncode != 0:
        raise NamespacesUnavailable(f"`ip {' '.join(args)}` failed: {done.stderr.strip()}")


@contextlib.contextmanager
def host_pair(label: str = "bf") -> Iterator[HostPair]:
    """Make the two namespaces and the veth pair; remove them afterwards, even on failure."""
    suffix = f"{os.getpid() % 100000}{secrets.token_hex(2)}"
    pair = HostPair(f"{label}-srv-{suffix}", f"{label}-cli-{suffix}")
    server_if, client_if = f"vs{suffix}", f"vc{suffix}"  # interface names: 15 characters at most
    made: list[str] = []
    try:
        for namespace in (pair.server, pair.client):
            _ip("netns", "add", namespace)
            made.append(namespace)
        _ip("link", "add", server_if, "type", "veth", "peer", "name", client_if)
        for namespace, interface, address in (
            (pair.server, server_if, SERVER_ADDRESS),
            (pair.client, client_if, CLIENT_ADDRESS),
        ):
            _ip("link", "set", interface, "netns", namespace)
            _ip("-n", namespace, "addr", "add", f"{address}/24", "dev", interface)
            _ip("-n", namespace, "link", "set", interface, "up")
            _ip("-n", namespace, "link", "set", "lo", "up")
        yield pair
    finally:
        subprocess.run(["ip", "link", "del", server_if], capture_output=True)
        for namespace in made:  # deleting a namespace also deletes the veth end inside it
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)


def enter(namespace: str) -> None:
    """Move the calling thread (in a single-threaded process: the process) into ``namespace``."""
    fd = os.open(Path("/run/netns") / namespace, os.O_RDONLY)
    try:
        if ctypes.CDLL(None, use_errno=True).setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {namespace} failed")
    finally:
        os.close(fd)


def run_in(namespace: str, function: Callable[[], Any]) -> Any:
    """``function()`` run on a thread of its own inside ``namespace``; its result or error."""
    outcome: dict[str, Any] = {}

    def body() -> None:
        try:
            enter(namespace)
            outcome["value"] = function()
        except BaseException as exc:  # handed to the caller
            outcome["error"] = exc

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
