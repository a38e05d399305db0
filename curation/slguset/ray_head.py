"""The Ray side of ``curate slguset --executor ray``: join a cluster, or run a local head.

* **Local head** (no ``--ray-address``): started by ``ray.init(address="local")`` inside
  :func:`biasforge.processes.group_dies_with_parent`, so the GCS server, the raylet and what
  the raylet starts (dashboard and runtime-env agents, workers — kept in the raylet's process
  group by Ray's ``process_group_cleanup_enabled=False``) die with this process, even when it
  is SIGKILLed; Ray's own fate-sharing (``PR_SET_PDEATHSIG`` on GCS and raylet) reaches only
  those two, and the agents then wait a minute for a dead GCS. Everything listens on
  127.0.0.1 only: Ray treats the node as a local-only one (:data:`LOCAL_ONLY`, Ray's switch
  for macOS and Windows), which makes the node address, and with it every gRPC server and
  agent, the loopback one (``_node_ip_address="127.0.0.1"`` alone is turned back into the
  machine's address); no dashboard.
* **A cluster** (``--ray-address HOST:PORT`` or ``ray://HOST:PORT``): its address must
  accept a TCP connection within :data:`CONNECT_TIMEOUT` s and its GCS must answer
  (:func:`check_reachable`) — ``ray.init`` itself retries an unreachable address for ever,
  printing a warning a second.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from biasforge.errors import BiasforgeError
from biasforge.processes import group_dies_with_parent

#: Ray's switch for clusters of several nodes: off, its node address is the loopback one
LOCAL_ONLY = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
CONNECT_TIMEOUT = 10.0  # seconds to wait for a --ray-address to accept a connection
#: raylet settings for a local head: workers stay in the raylet's (our) process group
HEAD_SYSTEM_CONFIG = {"process_group_cleanup_enabled": False}


@contextmanager
def _local_only() -> Iterator[None]:
    """Ray's local-only mode while the context is active: its switch in the environment (for
    the processes the head starts) and in its constants module (for this process, which may
    have imported ``ray`` before; :func:`ray._private.services.get_node_ip_address` reads it
    at each call)."""
    from ray._private import ray_constants

    before_env = {key: os.environ.get(key) for key in LOCAL_ONLY}
    before = ray_constants.ENABLE_RAY_CLUSTER
    os.environ.update(LOCAL_ONLY)
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = before
        for key, value in before_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def split_address(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of ``HOST:PORT`` or ``ray://HOST:PORT``; None for what Ray resolves
    itself (``auto``, ``local``)."""
    if address in ("auto", "local"):
        return None
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BiasforgeError(f"--ray-address {address!r}: expected HOST:PORT or ray://HOST:PORT")
    return host.strip("[]"), int(port)


# Asks the GCS at argv[1] for its cluster id, giving up after argv[2] ms: run in a child
# process, whose warnings are kept off the console and whose wait a timeout bounds.
GCS_PROBE = (
    "import sys; from ray._raylet import InnerGcsClient; "
    "InnerGcsClient.standalone(sys.argv[1], None, int(sys.argv[2]))"
)


def _refuse(address: str, why: str) -> BiasforgeError:
    return BiasforgeError(f"--ray-address {address}: no Ray cluster answers there ({why})")


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Refuse a ``--ray-address`` where no Ray cluster answers within about ``timeout`` s: it
    must accept a TCP connection, and (``HOST:PORT``) its GCS must give its cluster id."""
    target = split_address(address)
    if target is None:
        return
    try:
        with socket.create_connection(target, timeout=timeout):
            pass
    except OSError as exc:
        why = "no answer" if isinstance(exc, TimeoutError) else exc.strerror or str(exc)
        raise _refuse(address, f"{why}, waited up to {timeout:.0f} s") from None
    if address.startswith("ray://"):
        return  # a Ray Client server: ray.init's own handshake, which is bounded
    try:
        probe = subprocess.run(
            [sys.executable, "-c", GCS_PROBE, address, str(int(timeout * 1000))],
            capture_output=True,
            text=True,
            timeout=timeout + 10,
        )
    except subprocess.TimeoutExpired:
        raise _refuse(address, f"no GCS reply within {timeout:.0f} s") from None
    if probe.returncode != 0:
        said = [line for line in probe.stderr.splitlines() if line and line[0] not in "[ "]
        raise _refuse(address, said[-1] if said else f"probe exit code {probe.returncode}")


@contextmanager
def ray_cluster(num_cpus: int, address: str | None = None, verbose: bool = False) -> Iterator[None]:
    """Join the Ray cluster at ``address``, or start a local head with ``num_cpus`` CPUs;
    leave (and stop a local head) afterwards. A session already initialised by the caller is
    used as it is."""
    import ray

    if address:
        check_reachable(address)
    if ray.is_initialized():
        yield
        return
    settings: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": verbose,
        "logging_level": logging.INFO if verbose else logging.WARNING,
    }
    if address:
        ray.init(address=address, **settings)
        try:
            yield
        finally:
            ray.shutdown()
        return
    # a fresh local head even if RAY_ADDRESS or a `ray start` elsewhere names another cluster
    with group_dies_with_parent(), _local_only():
        ray.init(
            address="local",
            num_cpus=num_cpus,
            _node_ip_address="127.0.0.1",
            _system_config=HEAD_SYSTEM_CONFIG,
            **settings,
        )
        try:
            yield
        finally:
            ray.shutdown()
