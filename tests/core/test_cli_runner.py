"""``run_cli`` in the test process gives what the installed console script gives (return code,
stdout, stderr), and leaves the process as it found it (tests/cli_runner.py)."""

from __future__ import annotations

import logging
import os
import signal
import warnings

import pytest

from tests.cli_runner import run_cli


@pytest.mark.parametrize(
    "args",
    [
        ["families"],  # success, stdout
        ["families", "no-such-family"],  # our error: one line, exit 2
        ["curate", "becpro", "--lang", "xx", "--out", "{tmp}/r"],  # bad input
        ["curate", "becpro", "--no-such-option"],  # typer's usage error, exit 2
        ["score", "--help"],  # help, exit 0
        [],  # no arguments: help, exit 2
    ],
    ids=["families", "unknown-family", "bad-language", "usage-error", "help", "no-args"],
)
def test_in_process_gives_what_the_console_script_gives(args, tmp_path):
    args = [a.format(tmp=tmp_path) for a in args]
    here = run_cli(*args, check=False)
    there = run_cli(*args, check=False, process=True)  # the real console script
    assert (here.returncode, here.stdout, here.stderr) == (
        there.returncode,
        there.stdout,
        there.stderr,
    )


def test_an_uncaught_exception_is_a_traceback_and_exit_1(monkeypatch):
    """As Python ends a process on an exception nobody caught: a "no traceback" test must fail."""
    from biasforge import cli

    def broken(family):
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "describe_family", broken)
    result = run_cli("families", "becpro", check=False)
    assert result.returncode == 1
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert result.stderr.rstrip().endswith("RuntimeError: a bug")


def process_state() -> tuple:
    return (
        dict(os.environ),
        os.getcwd(),
        list(warnings.filters),
        logging.getLogger().level,
        signal.getsignal(signal.SIGTERM),
    )


def test_the_process_is_left_as_it_was(tmp_path):
    before = process_state()
    (tmp_path / "runs").mkdir()
    result = run_cli(
        "curate", "becpro", "--lang", "en", "--out", "runs/en",
        env={"BIASFORGE_TEST_MARK": "1"}, cwd=tmp_path,
    )  # fmt: skip
    assert "kept" in result.stdout
    assert (tmp_path / "runs" / "en" / "candidates.parquet").is_file()  # relative to cwd
    after = process_state()
    assert after == before
