"""``--overwrite`` replaces only what biasforge wrote; anything else at ``--out`` is the user's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from functools import partial

import pytest

from biasforge.contract.exported import KIND as EXPORT
from biasforge.contract.exported import check_output, folder_problem, mark_output
from biasforge.contract.manifest import write_manifest
from biasforge.contract.reviewed import KIND as REVIEWED
from biasforge.errors import OutputExistsError
from biasforge.files import check_replaceable, clean_leftovers, staged_directory, swap_lock
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


def _write_folder(final, n: int, kind: str = "run", **fields) -> None:
    with staged_directory(final, overwrite=True, kind=kind, family=fields.get("family")) as stage:
        for part in range(20):
            (stage / f"part-{part}.md").write_text(f"written {n}\n" * 500)
        write_manifest(stage, kind, **fields)


def _write_file(final, n: int) -> None:
    with swap_lock(final):  # as export convert writes a file and its marker
        final.write_text(f"written {n}\n" * 5000)  # not atomic: the lock must cover it
        mark_output(final, "crows-csv", "crowspairs")


def _refusals(final, write, check, checks: int = 200) -> list[str]:
    """What ``check`` says of ``final`` ``checks`` times while a thread rewrites it."""
    write(final, 0)
    stop, refused = threading.Event(), []

    def writer() -> None:
        n = 1
        while not stop.is_set():
            write(final, n)
            n += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(checks):
            try:
                problem = check(final)
            except OutputExistsError as refusal:
                problem = str(refusal)
            if problem:
                refused.append(problem)
    finally:
        stop.set()
        thread.join()
    return refused


def test_the_check_before_the_work_never_reads_a_concurrent_swap_half_way(tmp_path):
    """The check an ``--overwrite`` command makes before its work read the old folder's
    manifest and then a file of the folder another writer had just swapped in, and refused a
    folder biasforge wrote as "changed since biasforge wrote it" (two concurrent overwriters,
    once in a full run). It reads under the writers' swap lock now."""
    check = partial(check_replaceable, overwrite=True, kind="run")
    assert _refusals(tmp_path / "run", _write_folder, check) == []


def test_an_export_folders_check_never_reads_a_concurrent_swap_half_way(tmp_path):
    """The same race in ``export convert --format lm-eval --overwrite``'s own check (the
    folder's format, read after the generic check)."""
    write = partial(_write_folder, kind=EXPORT, format="lm-eval", family="crowspairs")
    check = partial(folder_problem, format="lm-eval", family="crowspairs")
    assert _refusals(tmp_path / "tasks", write, check) == []


def test_a_reviewed_folders_check_never_reads_a_concurrent_swap_half_way(tmp_path):
    """The same race in ``annotate pull --overwrite``'s check (dataset and workspace read
    after the generic check): two pulls into one folder."""
    from annotation.review.pull import reviewed_folder_problem

    write = partial(_write_folder, kind=REVIEWED, family="crowspairs", dataset="d", workspace="w")
    check = partial(reviewed_folder_problem, dataset="d", workspace="w")
    assert _refusals(tmp_path / "reviewed", write, check) == []


def test_an_exported_files_check_never_reads_it_against_an_older_marker(tmp_path):
    """A single exported file and its marker change together for a concurrent check of
    ``export convert --overwrite``: never the new file against the old marker's sha256."""
    source = tmp_path / "release"
    source.mkdir()
    check = partial(check_output, format="crows-csv", source=source, overwrite=True,
                    family="crowspairs")  # fmt: skip
    assert _refusals(tmp_path / "pairs.csv", _write_file, check) == []


def test_a_check_under_the_writers_lock_does_not_wait_for_itself(tmp_path):
    """The swap checks the folder it replaces while it holds the lock, and the folder may be
    named through a link to its parent: one directory, one lock, taken again, no wait."""
    _write_folder(tmp_path / "run", 0)
    (tmp_path / "link").symlink_to(tmp_path)
    answers = []

    def nested() -> None:
        with swap_lock(tmp_path / "run"), swap_lock(tmp_path / "link" / "run"):
            answers.append(check_replaceable(tmp_path / "link" / "run", overwrite=True))

    thread = threading.Thread(target=nested, daemon=True)
    thread.start()
    thread.join(20)
    assert answers == [None]
