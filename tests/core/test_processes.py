"""biasforge.processes: what a process starts dies with it, by the kernel's rules.

Each test runs a small Python script in a session of its own that starts children the way
biasforge does, prints their pids, and is then SIGKILLed (or leaves normally); the children
must be gone within 5 s. Each mechanism is also shown to matter: the same script without it
leaves its child alive."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.helpers import alive

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

REPO = Path(__file__).parents[2]


def gone_within(processes: list[psutil.Process], seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in processes):
            return True
        time.sleep(0.1)
    return False


def start(script: str, pids: int = 1) -> tuple[subprocess.Popen, list[psutil.Process]]:
    """Run ``script`` in a session of its own; return it and the processes whose pids it
    prints (one per line, ``pids`` of them)."""
    command = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=REPO,
    )
    try:
        found = [psutil.Process(int(command.stdout.readline())) for _ in range(pids)]
    except BaseException:
        command.kill()
        command.wait()
        raise
    return command, found


def kill_and_check(script: str, pids: int = 1) -> bool:
    """SIGKILL the script once its children run; whether they were all gone 5 s later."""
    command, children = start(script, pids)
    try:
        os.kill(command.pid, signal.SIGKILL)
        command.wait()
        return gone_within(children)
    finally:
        for child in children:
            if alive(child):
                child.kill()


SPAWNED = """
import time
from biasforge.processes import spawn
proc = spawn(["sleep", "300"])
print(proc.pid, flush=True)
time.sleep(300)
"""


STOPPED = """
import subprocess, sys
from biasforge.processes import spawn, stop
proc = spawn(["sh", "-c", "sleep 300 & echo $!; wait"], stdout=subprocess.PIPE, text=True)
grandchild = proc.stdout.readline().strip()
print(proc.pid, flush=True)
print(grandchild, flush=True)
sys.stdin.readline()
stop([proc], timeout=5)
print("stopped", flush=True)
"""


def test_stop_ends_a_spawned_child_and_what_it_started():
    command = subprocess.Popen(
        [sys.executable, "-c", STOPPED],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    child = psutil.Process(int(command.stdout.readline()))
    grandchild = psutil.Process(int(command.stdout.readline()))
    try:
        assert alive(child) and alive(grandchild)
        command.stdin.write("\n")
        command.stdin.flush()
        assert command.stdout.readline() == "stopped\n"
        assert gone_within([child, grandchild], 1)
    finally:
        command.kill()
        command.wait()
        for process in (child, grandchild):
            if alive(process):
                process.kill()


FORKED = """
import multiprocessing, time
from biasforge.processes import forks_die_with_parent
with forks_die_with_parent():
    child = multiprocessing.get_context("fork").Process(target=time.sleep, args=(300,))
    child.start()
print(child.pid, flush=True)
time.sleep(300)
"""

# each script, and the edit that takes its mechanism away
WITHOUT = {
    "spawn": (SPAWNED, "spawn(", "spawn(on_parent_death=0, argv="),  # no parent-death signal
    "fork": (FORKED, "with forks_die_with_parent():", "if True:"),  # a fork outside the context
}


@pytest.mark.parametrize("mechanism", WITHOUT)
def test_a_child_started_with_the_mechanism_dies_with_its_parent(mechanism):
    script, _, _ = WITHOUT[mechanism]
    assert kill_and_check(script)


@pytest.mark.parametrize("mechanism", WITHOUT)
def test_without_the_mechanism_the_child_outlives_its_parent(mechanism):
    """The probe for the test above: the same child without the mechanism lives."""
    script, mechanism_line, replacement = WITHOUT[mechanism]
    assert mechanism_line in script
    assert not kill_and_check(script.replace(mechanism_line, replacement))


# A library's fork+exec child (preexec_fn, as Ray starts its GCS server and raylet) that
# starts a process and exits, leaving it re-parented out of our tree (as a raylet killed
# with us leaves its agents)
GROUPED = """
import os, subprocess, time
from biasforge.processes import group_dies_with_parent
with group_dies_with_parent() as group:
    out = subprocess.run(["sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $!"], check=True,
                         capture_output=True, text=True, preexec_fn=lambda: None).stdout
    direct = subprocess.Popen(["sleep", "300"], preexec_fn=lambda: None)
    assert os.getpgid(0) != group  # we stay where we were: Ctrl-C still comes here
    print(out.strip(), flush=True)
    print(direct.pid, flush=True)
    LEAVE
time.sleep(300)
"""


def test_a_group_started_inside_the_context_dies_with_its_parent():
    orphan_and_child = GROUPED.replace("LEAVE", "time.sleep(300)")
    assert kill_and_check(orphan_and_child, pids=2)


def test_leaving_the_context_ends_the_group():
    command, children = start(GROUPED.replace("LEAVE", "pass"), pids=2)
    try:
        assert gone_within(children)
        assert command.poll() is None  # the parent lives on
    finally:
        command.kill()
        command.wait()


def test_an_orphan_started_outside_the_group_outlives_its_parent():
    """The probe: the same orphan, started without the group, lives on."""
    script = GROUPED.replace("with group_dies_with_parent() as group:", "if True:")
    script = script.replace("assert os.getpgid(0) != group", "pass").replace("LEAVE", "")
    command, children = start(script, pids=2)
    orphan = children[0]
    try:
        os.kill(command.pid, signal.SIGKILL)
        command.wait()
        assert not gone_within([orphan], 2)
    finally:
        for child in children:
            if alive(child):
                child.kill()


REMOVER = """
import tempfile, time
from pathlib import Path
from biasforge.processes import group_dies_with_parent
folder = Path(tempfile.mkdtemp(prefix="biasforge-test-"))
(folder / "socket-like").write_text("x")
with group_dies_with_parent(remove=[folder]):
    print(folder, flush=True)
    time.sleep(300)
"""


def test_the_keeper_removes_its_folders_when_the_parent_is_killed():
    command = subprocess.Popen(
        [sys.executable, "-c", REMOVER], stdout=subprocess.PIPE, text=True, cwd=REPO,
        start_new_session=True,
    )  # fmt: skip
    folder = Path(command.stdout.readline().strip())
    try:
        assert folder.is_dir()
        os.kill(command.pid, signal.SIGKILL)
        command.wait()
        deadline = time.monotonic() + 5
        while folder.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not folder.exists()
    finally:
        if folder.exists():
            import shutil

            shutil.rmtree(folder)
