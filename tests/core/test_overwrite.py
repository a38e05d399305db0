"""``--overwrite`` replaces only what biasforge wrote; anything else at ``--out`` is the user's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from biasforge.contract.manifest import write_manifest
from biasforge.errors import OutputExistsError
from biasforge.files import check_replaceable, clean_leftovers, staged_directory
from tests.conftest import curate_becpro_en, one_error_line, run_cli


def test_a_folder_with_the_users_own_file_is_not_replaced(tmp_path):
    out = tmp_path / "d"
    out.mkdir()
    (out / "thesis.txt").write_text("thesis")
    line = one_error_line(curate_becpro_en(out, "--overwrite"))
    assert "biasforge did not write" in line or "not a folder biasforge wrote" in line
    assert (out / "thesis.txt").read_text() == "thesis"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_a_plain_file_at_out_is_not_replaced(tmp_path):
    out = tmp_path / "notes"
    out.write_text("mine")
    line = one_error_line(curate_becpro_en(out, "--overwrite"))
    assert "is a file or a link" in line
    assert out.read_text() == "mine"


def test_a_run_with_a_file_added_or_edited_is_not_replaced(tmp_path):
    out = tmp_path / "run"
    curate_becpro_en(out).check_returncode()
    (out / "my-notes.md").write_text("notes")
    assert "my-notes.md, which biasforge did not write" in one_error_line(
        curate_becpro_en(out, "--overwrite")
    )
    (out / "my-notes.md").unlink()
    (out / "report.md").write_text("edited by hand")
    assert "report.md changed since biasforge wrote it" in one_error_line(
        curate_becpro_en(out, "--overwrite")
    )
    assert (out / "report.md").read_text() == "edited by hand"


def test_a_run_file_replaced_by_a_link_to_the_same_bytes_is_not_replaced(tmp_path):
    """A user's symlink inside a run is theirs, even when it points at identical bytes."""
    out = tmp_path / "run"
    curate_becpro_en(out).check_returncode()
    kept = tmp_path / "my-report.md"
    kept.write_bytes((out / "report.md").read_bytes())
    (out / "report.md").unlink()
    (out / "report.md").symlink_to(kept)
    assert "report.md changed since biasforge wrote it" in one_error_line(
        curate_becpro_en(out, "--overwrite")
    )
    assert (out / "report.md").is_symlink() and kept.is_file()


def test_a_biasforge_folder_of_another_kind_is_not_replaced(tmp_path):
    release = tmp_path / "rel"
    run = tmp_path / "run"
    curate_becpro_en(run).check_returncode()
    run_cli("export", "release", run, "--name", "b", "--version", "1.0.0", "--unreviewed",
            "--out", release)  # fmt: skip
    line = one_error_line(curate_becpro_en(release / "b" / "1.0.0", "--overwrite"))
    assert "holds a biasforge release, not a run" in line


def test_an_unchanged_run_is_replaced(tmp_path):
    out = tmp_path / "run"
    curate_becpro_en(out).check_returncode()
    before = json.loads((out / "manifest.json").read_text())["created_at"]
    time.sleep(1.1)
    curate_becpro_en(out, "--overwrite").check_returncode()
    assert json.loads((out / "manifest.json").read_text())["created_at"] != before


def test_leftovers_of_a_killed_writer_are_cleaned_but_a_live_writers_are_kept(tmp_path):
    final = tmp_path / "run"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead_pid = int(dead.stdout)
    (tmp_path / f".run.partial-{dead_pid}-abc").mkdir()
    (tmp_path / f".run.old-{dead_pid}-def").mkdir()
    (tmp_path / f".run.partial-{os.getpid()}-ghi").mkdir()  # a writer still alive
    removed = clean_leftovers(final)
    assert sorted(p.name for p in removed) == [
        f".run.old-{dead_pid}-def",
        f".run.partial-{dead_pid}-abc",
    ]
    assert (tmp_path / f".run.partial-{os.getpid()}-ghi").is_dir()


def test_a_folder_appearing_during_a_write_is_kept(tmp_path):
    final = tmp_path / "out"
    with pytest.raises(OutputExistsError, match="appeared while"), staged_directory(final) as stage:
        (stage / "a.txt").write_text("new")
        final.mkdir()
        (final / "theirs.txt").write_text("theirs")
    assert (final / "theirs.txt").read_text() == "theirs"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.partial")] == []


def test_two_concurrent_overwriters_both_finish_and_leave_one_complete_run(tmp_path):
    out = tmp_path / "run"
    curate_becpro_en(out).check_returncode()
    exe = os.path.join(os.path.dirname(sys.executable), "biasforge")
    args = [exe, "curate", "becpro", "--lang", "en", "--out", str(out), "--overwrite"]
    procs = [subprocess.Popen(args, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(120), p.stderr.read()) for p in procs]
    assert [code for code, _ in results] == [0, 0], results
    run_cli("export", "release", out, "--name", "c", "--version", "1.0.0", "--unreviewed",
            "--out", tmp_path / "rel")  # fmt: skip  # verifies the run against its manifest
    leftovers = [p.name for p in tmp_path.iterdir() if ".partial-" in p.name or ".old-" in p.name]
    assert leftovers == []


def test_the_check_before_the_work_never_reads_a_concurrent_swap_half_way(tmp_path):
    """The check an ``--overwrite`` command makes before its work read the old folder's
    manifest and then a file of the folder another writer had just swapped in, and refused a
    folder biasforge wrote as "changed since biasforge wrote it" (two concurrent overwriters,
    once in a full run). It reads under the writers' swap lock now."""
    final = tmp_path / "run"

    def write(n: int) -> None:
        with staged_directory(final, overwrite=True, kind="run") as stage:
            for part in range(20):
                (stage / f"part-{part}.md").write_text(f"written {n}\n" * 500)
            write_manifest(stage, "run")

    write(0)
    stop, refused = threading.Event(), []

    def writer() -> None:
        n = 1
        while not stop.is_set():
            write(n)
            n += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(200):
            try:
                check_replaceable(final, overwrite=True, kind="run")
            except OutputExistsError as refusal:
                refused.append(str(refusal))
    finally:
        stop.set()
        thread.join()
    assert refused == []
