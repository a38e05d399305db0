"""Run the ``biasforge`` command line for a test: in the test process by default, or as the
installed console script in a subprocess.

A subprocess costs the interpreter's start-up and every import again (torch and transformers
alone are 1-4 s of CPU per scoring command), and the suite runs a few hundred commands. In
this process the command is the same entry point the console script calls
(:func:`biasforge.cli.main`, typer's standalone mode), given ``sys.argv`` as the script would
be, its ``stdout`` and ``stderr`` captured apart by click's test runner (``CliRunner``'s
isolation, stdin empty). What the console script's process would do at its end is done here:
``SystemExit`` gives the return code, an uncaught exception is printed by ``sys.excepthook``
(a Python traceback on stderr) with return code 1, the output is decoded with universal
newlines as ``subprocess.run(text=True)`` would.

Process-wide state the command may change is put back afterwards (see :func:`_restored`): the
environment, the working directory, ``sys.argv``, ``sys.modules["__main__"]``,
``sys.excepthook`` (typer installs its own), logging (levels, handlers, ``logging.disable``),
the warnings filters (a command starts with the interpreter's defaults, not pytest's),
signal handlers and the umask. Threads a command leaves running are joined.

What needs a process of its own (kills and signals, hangs and timeouts, Ray, servers, named
pipes on stdin, the console script or interpreter start-up itself, families installed by the
test as packages) passes ``process=True``, saying why. ``BIASFORGE_TEST_CLI=process`` makes
every call a subprocess again, to check that both give the same outcomes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import traceback
import types
import warnings
from collections.abc import Iterator
from pathlib import Path

MODE = "BIASFORGE_TEST_CLI"  # "process": every run_cli is a subprocess of the console script
EXE = Path(sys.executable).with_name("biasforge")
TIMEOUT = 600  # seconds a subprocess may run
JOIN = 30  # seconds to wait for a thread a command left running

#: variables libraries read once, when first imported (huggingface_hub's endpoint and offline
#: switch, datasets' and transformers' caches): a command given other values than this process
#: has needs a process of its own, or it would quietly use this process's (or leave its own).
READ_AT_IMPORT = ("HF_", "HUGGINGFACE_", "TRANSFORMERS_", "DATASETS_", "TOKENIZERS_")

#: a fresh interpreter's warnings filters (release build, no -W or PYTHONWARNINGS):
#: https://docs.python.org/3/library/warnings.html#default-warning-filter
FRESH_WARNINGS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)


def run_cli(
    *args: object,
    check: bool = True,
    env: dict[str, str | None] | None = None,
    cwd: Path | None = None,
    process: bool = False,
) -> subprocess.CompletedProcess:
    """``biasforge ARGS`` with ``env`` added to the environment (a None value unsets the
    variable), from ``cwd`` (relative paths in ``args`` are relative to it); in this process unless ``process`` (or
    ``BIASFORGE_TEST_CLI=process``). ``check``: a non-zero exit fails the test, showing both
    streams."""
    argv = [str(arg) for arg in args]
    if process or os.environ.get(MODE) == "process":
        result = run_process(argv, env, cwd)
    else:
        result = run_in_process(argv, env, cwd)
    if check and result.returncode != 0:
        raise AssertionError(
            f"biasforge {' '.join(argv)} exited {result.returncode}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
    return result


def whole(env: dict[str, str]) -> dict[str, str | None]:
    """``env`` as the command's whole environment: what it lacks of ours is unset."""
    return {**dict.fromkeys(os.environ), **env}


def run_process(
    argv: list[str], env: dict[str, str | None] | None, cwd: Path | None
) -> subprocess.CompletedProcess:
    """The installed console script in a subprocess, as a user runs it."""
    return subprocess.run(
        [str(EXE), *argv],
        capture_output=True,
        text=True,
        env={k: v for k, v in {**os.environ, **(env or {})}.items() if v is not None},
        cwd=cwd,
        timeout=TIMEOUT,
    )


def run_in_process(
    argv: list[str], env: dict[str, str | None] | None, cwd: Path | None
) -> subprocess.CompletedProcess:
    """:func:`biasforge.cli.main` in this process, as the console script calls it."""
    from click.testing import CliRunner

    from biasforge import cli

    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("run_cli in the test process runs from the main thread only")
    fixed = [
        k for k, v in (env or {}).items() if k.startswith(READ_AT_IMPORT) and os.environ.get(k) != v
    ]
    if fixed:
        raise RuntimeError(f"{', '.join(fixed)}: read by libraries at import; use process=True")
    with _restored(), CliRunner().isolation(env=env) as (out, err, _):
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = [str(EXE), *argv]
        sys.modules["__main__"] = types.ModuleType("__main__")  # a script's: no __package__
        warnings.filters[:] = []
        for action, category, module in FRESH_WARNINGS:
            warnings.filterwarnings(action, category=category, module=module, append=True)
        warnings.showwarning = _show_on_stderr  # not into pytest's record of warnings
        _fresh_loguru()
        try:
            cli.main()
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc.code)
        except Exception:  # what Python does with an uncaught exception
            sys.excepthook(*sys.exc_info())
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        _detach_handlers((sys.stdout, sys.stderr))
        _fresh_loguru()
        stdout, stderr = _text(out.getvalue()), _text(err.getvalue())
    return subprocess.CompletedProcess([str(EXE), *argv], code, stdout, stderr)


def _exit_code(code: object) -> int:
    """The process's exit status for ``sys.exit(code)``: None is 0, an int itself, anything
    else is printed on stderr and is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _text(data: bytes) -> str:
    """Bytes written to a stream as ``subprocess.run(text=True)`` reads them (universal
    newlines: a progress bar's ``\\r`` is a line break there too)."""
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def _show_on_stderr(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning printed on the command's stderr, as a fresh interpreter prints it."""
    text = warnings.formatwarning(message, category, filename, lineno, line)
    (file or sys.stderr).write(text)


class _CurrentStream:
    """A logging stream that is whatever ``sys.<name>`` is when a record is written."""

    def __init__(self, name: str) -> None:
        self.name = name

    def write(self, text: str) -> int:
        return getattr(sys, self.name).write(text)

    def flush(self) -> None:
        getattr(sys, self.name).flush()

    def isatty(self) -> bool:
        return False  # a pipe, as the stream of a command run by a test


def _fresh_loguru() -> None:
    """loguru as a fresh process has it: one sink, stderr, no module switched off. datatrove
    (``curate slguset``) removes and adds sinks bound to the ``sys.stderr`` of the moment and
    switches its own messages off (its tasks run in this process when there is one)."""
    if "loguru" not in sys.modules:
        return  # imported by the command, if at all: its sink is made then, on its stderr
    from loguru import logger

    logger.remove()
    logger.add(_CurrentStream("stderr"))
    logger.enable("")


def _detach_handlers(captured: tuple) -> None:
    """Logging handlers made during the command (a library's, at its first import) write to
    the streams of that command; they write to the current ``sys.stderr``/``sys.stdout``
    from now on, as they would in a fresh process of the next command."""
    loggers = [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
    for logger in loggers:
        for handler in getattr(logger, "handlers", ()):
            stream = vars(handler).get("stream")  # not logging.lastResort's, read each time
            if isinstance(handler, logging.StreamHandler) and stream in captured:
                handler.setStream(_CurrentStream("stdout" if stream is captured[0] else "stderr"))


@contextlib.contextmanager
def _restored() -> Iterator[None]:
    """Put back the process-wide state a command may change; join threads it left running."""
    environ = dict(os.environ)
    cwd = os.getcwd()
    argv, main, hook = sys.argv, sys.modules["__main__"], sys.excepthook
    handlers = {sig: signal.getsignal(sig) for sig in signal.valid_signals()}
    umask = os.umask(0o022)
    os.umask(umask)
    logs = _logging_state()
    threads = set(threading.enumerate())
    try:
        with warnings.catch_warnings():
            yield
    finally:
        _join_new_threads(threads)
        _set_logging_state(logs)
        os.umask(umask)
        for sig, handler in handlers.items():
            if handler is not None and signal.getsignal(sig) is not handler:
                signal.signal(sig, handler)
        sys.argv, sys.modules["__main__"], sys.excepthook = argv, main, hook
        os.chdir(cwd)
        for key in set(os.environ) - set(environ):
            del os.environ[key]
        os.environ.update({k: v for k, v in environ.items() if os.environ.get(k) != v})


def _logging_state() -> tuple:
    loggers = [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
    return logging.root.manager.disable, [
        (lg, lg.level, list(lg.handlers), lg.propagate, lg.disabled)
        for lg in loggers
        if isinstance(lg, logging.Logger)
    ]


def _set_logging_state(state: tuple) -> None:
    disable, loggers = state
    logging.disable(disable)
    for logger, level, handlers, propagate, disabled in loggers:
        logger.setLevel(level)
        logger.handlers[:] = handlers
        logger.propagate, logger.disabled = propagate, disabled


def _join_new_threads(before: set[threading.Thread]) -> None:
    """A thread the command started and left running (a progress bar's, an executor's) would
    outlive it, unlike in its own process: wait for non-daemon ones, fail if one hangs."""
    for thread in set(threading.enumerate()) - before:
        if thread.daemon:
            continue
        thread.join(JOIN)
        if thread.is_alive():
            stack = "".join(traceback.format_stack(sys._current_frames()[thread.ident]))
            raise AssertionError(f"the command left thread {thread.name} running:\n{stack}")
