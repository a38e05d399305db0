"""SIGKILL of ``biasforge curate slguset --num-proc 2`` in the middle of mining (issues 12, 15,
24 and 27): 5 s later no process it started is alive (pool workers, multiprocess manager; with
``--executor ray`` the whole local Ray head), nothing was written after the kill, nothing
visible is left beside ``--out``, the multiprocess manager's temporary folder (``/tmp/pymp-*``) is
gone, and the next run to any ``--out`` in that folder
removes the work folder. The real command in a subprocess, on a corpus big enough to be
mid-run. The kernel mechanisms themselves are tested in ``tests/core/test_processes.py``."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from biasforge.curation.slguset.sample import BUNDLED_SAMPLE
from tests.conftest import run_cli
from tests.helpers import alive

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

COPIES = 20  # ≈ 2.8 MB, ≈ 20 s of mining with 2 processes here; killed after a few seconds


def start_ray_run(tmp_path: Path) -> subprocess.Popen:
    """``biasforge curate slguset --executor ray --num-proc 2`` on a big corpus, started in
    a session of its own (output ``tmp_path/r``)."""
    corpus = big_corpus(tmp_path / "corpus.txt")
    biasforge = str(Path(sys.executable).with_name("biasforge"))
    return subprocess.Popen(
        [biasforge, "curate", "slguset", "--corpus", str(corpus), "--out", str(tmp_path / "r"),
         "--executor", "ray", "--num-proc", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip


def big_corpus(path: Path) -> Path:
    """The bundled sample repeated, each copy's sentences made distinct (no duplicates)."""
    lines = BUNDLED_SAMPLE.read_text(encoding="utf-8").splitlines()
    with path.open("w", encoding="utf-8") as handle:
        for copy in range(COPIES):
            handle.writelines(line.replace("。", f"{copy}。") + "\n" for line in lines)
    return path


def files_under(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file below ``folder``: (size, mtime in ns)."""
    out = {}
    for path in folder.rglob("*"):
        if path.is_file():
            info = path.stat()
            out[str(path.relative_to(folder))] = (info.st_size, info.st_mtime_ns)
    return out


def wait_until_mining(command: subprocess.Popen, runs: Path, timeout: float = 180):
    """Wait until both workers write rows; return (work folder, every process below the
    command) at that moment."""
    parent = psutil.Process(command.pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert command.poll() is None, "the run ended before it could be killed"
        works = list(runs.glob(".run.work-*"))
        written = [p for w in works for p in w.glob("parts/kept/*.rows") if p.stat().st_size]
        if len(written) == 2:
            return works[0], parent.children(recursive=True)
        time.sleep(0.05)
    pytest.fail("the workers never started writing")


def temp_folders_of(processes: list[psutil.Process]) -> set[Path]:
    """The ``pymp-*`` folders holding the Unix sockets these processes listen on."""
    folders = set()
    for process in processes:
        with contextlib.suppress(psutil.Error):
            for connection in process.net_connections(kind="unix"):
                folder = Path(connection.laddr).parent if connection.laddr else None
                if folder and folder.name.startswith("pymp-"):
                    folders.add(folder)
    return folders


def test_sigkill_of_the_parent_leaves_no_process_and_no_visible_folder(tmp_path):
    corpus = big_corpus(tmp_path / "corpus.txt")
    runs = tmp_path / "runs"
    runs.mkdir()
    out = runs / "run"
    biasforge = str(Path(sys.executable).with_name("biasforge"))  # the console script
    command = subprocess.Popen(
        [
            biasforge,
            "curate",
            "slguset",
            "--corpus",
            str(corpus),
            "--out",
            str(out),
            "--num-proc",
            "2",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    children: list[psutil.Process] = []
    try:
        work, children = wait_until_mining(command, runs)
        assert len(children) >= 3  # two pool workers and the multiprocess manager
        manager_folders = temp_folders_of(children)
        assert manager_folders  # the manager's socket is in a temporary folder
        os.kill(command.pid, signal.SIGKILL)
        command.wait()
        at_kill = files_under(work)
        time.sleep(5)
        survivors = [f"{p.pid} {p.cmdline()}" for p in children if alive(p)]
        assert survivors == []
        assert files_under(work) == at_kill  # nothing written after the kill
        assert [f for f in manager_folders if f.exists()] == []
        assert not out.exists()
        assert [p.name for p in runs.iterdir() if not p.name.startswith(".")] == []
    finally:
        for process in children:
            if alive(process):
                process.kill()

    # the next run to another --out in the same folder removes the killed run's work folder
    small = tmp_path / "small.txt"
    small.write_text("他每天骑车上班。\n", encoding="utf-8")
    run_cli("curate", "slguset", "--corpus", small, "--out", runs / "other")
    assert sorted(p.name for p in runs.iterdir()) == ["other"]


def test_only_unlocked_work_folders_of_biasforge_are_removed_as_stale(tmp_path):
    from biasforge.curation.slguset.lifecycle import MARKER, remove_stale, work_folder

    out = tmp_path / "run"
    stale = tmp_path / ".run.work-left"  # a killed run's: marked, nobody holds its lock
    (stale / "parts").mkdir(parents=True)
    (stale / MARKER).touch()
    other = tmp_path / ".other.work-left"  # a killed run's to another --out: also stale
    other.mkdir()
    (other / MARKER).touch()
    foreign = tmp_path / ".notes.work-2024"  # not biasforge's (no marker): never touched
    foreign.mkdir()
    with work_folder(out) as work:
        assert work.name.startswith(".run.work-") and work.is_dir()
        assert not stale.exists() and not other.exists() and foreign.is_dir()
        assert remove_stale(tmp_path / "another") == []  # the live one is locked
        assert work.is_dir()
    assert not work.exists()
    assert foreign.is_dir()


def test_sigkill_of_a_ray_run_leaves_no_ray_process(tmp_path):
    """``--executor ray`` starts a local Ray head (GCS server, raylet, and the raylet's agents
    and workers, started by fork+exec): after SIGKILL of the run its process group is killed
    (``biasforge.processes.group_dies_with_parent``); 5 s later none of them is alive — the
    agents included, which Ray's own fate-sharing leaves waiting a minute for a dead GCS."""
    command = start_ray_run(tmp_path)
    parent = psutil.Process(command.pid)
    seen: dict[int, psutil.Process] = {}
    titles: dict[int, str] = {}  # read while each process lives: Ray retitles its workers
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:  # until the Ray workers run the tasks
            assert command.poll() is None, "the run ended before it could be killed"
            for child in parent.children(recursive=True):
                seen.setdefault(child.pid, child)
                titles[child.pid] = f"{titles.get(child.pid, '')} {_cmd(child)}"[-2000:]
            rows = [p for p in tmp_path.glob(".r.work-*/parts/kept/*.rows") if p.stat().st_size]
            if len(rows) == 2:  # both tasks are writing, in Ray workers
                break
            time.sleep(0.2)
        else:
            pytest.fail("the Ray workers never started writing")
        names = " ".join(titles.values())
        assert "gcs_server" in names and "raylet" in names, sorted(
            {t.split()[0] for t in titles.values() if t.strip()}
        )
        os.kill(command.pid, signal.SIGKILL)
        command.wait()
        time.sleep(5)
        survivors = [f"{p.pid} {_cmd(p)[:80]}" for p in seen.values() if alive(p)]
        assert survivors == []
    finally:
        for process in seen.values():
            if alive(process):
                process.kill()


def _cmd(process: psutil.Process) -> str:
    try:
        return f"{process.name()} {' '.join(process.cmdline())}"
    except psutil.Error:
        return ""
