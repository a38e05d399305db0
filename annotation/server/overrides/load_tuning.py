"""Serving many annotators at once: the ``load`` and ``sqlite`` groups of ``patches.PATCHES``
(applied by the launcher unless ``BIASFORGE_LOAD_TUNING=0``, which the annotator benchmark
uses as its baseline).

Found by reading the login and answer request paths, and measured with
``benchmarks/bench_annotators.py`` (20 annotators logging in, then answering one record at a
time; the numbers are in the README): costs that change no result.

1. **Login.** ``POST /api/v1/token`` checks the password with bcrypt at cost 12 *inside the
   event loop*: 1.6 s per check measured on this shared 2-core machine, during which the
   web process answers nobody else (20 simultaneous logins took up to 18 s in the baseline).
   The check now runs in a thread, and passwords are hashed at cost ``BCRYPT_ROUNDS``; a hash
   of another cost is re-hashed at that cost on the next successful login. Why a lower cost
   is no loss here: every password biasforge sets is generated (``secrets.token_urlsafe(12)``,
   96 random bits, out of reach of any guessing whatever the hash cost), and Argilla keeps
   each user's API key in clear in the same ``users`` table, so whoever reads the table has
   every account without cracking anything. Unknown usernames are checked against a dummy
   hash of the same cost, so the answer time still does not tell which usernames exist.
2. **Webhook events.** Every answer builds a full webhook event for the response and one or
   two for the record's status (each reloads the dataset with its fields, questions and
   metadata, then validates a large schema) before looking whether any webhook is enabled.
   As in ``speedups`` for bulk logging, the patch looks first; with a webhook enabled the
   events are built and sent exactly as before.
3. **SQLite.** The database runs in WAL mode with ``synchronous=NORMAL`` (readers no longer
   wait for a writer, a commit is one append to the log), so several uvicorn workers can
   share it; writers wait for each other up to the busy timeout instead of failing.
4. **One thread round trip per statement.** SQLAlchemy's aiosqlite adapter runs each
   statement as four calls to the connection's thread (open a cursor, execute, fetch all
   rows, close), and each call waits for its turn in the busy event loop on the way back: an
   answer makes about 16 statements, so about 60 such trips, and a write transaction keeps
   SQLite's database-wide write lock through every trip between its first write and its
   commit, while the other web process waits for it. ``_run_statement`` does the same four
   steps in one call to that thread, on the same connection, in the same order, and hands
   back the same description, rows, ``rowcount`` and ``lastrowid``; server-side cursors
   (rows fetched on demand) keep the stock path. Profiled with py-spy under the annotator
   benchmark, and counted with SQLAlchemy's cursor events: 13 statements in the answer's
   session, 3 more to update the record's status, 2 webhook lookups.
5. **The index's status copy** (``sql_index.update_status``, after every answer) writes only
   when the record's status changed; see its docstring.
6. **Writers queue** (``write_gate``): a transaction takes a file lock beside the database
   before its first write and gives it back at its commit or rollback, so writers of both web
   processes wait in the kernel's queue instead of polling SQLite's lock (up to 100 ms per
   retry, newcomers first), which made the p99 of an answer several seconds. Same
   statements, same transactions; SQLite's lock and busy timeout are still there behind it.
7. **The answer's transaction** (``answer_write``) runs its three writes (response, dataset
   activity, dataset-annotator row) on a synchronous session in a thread, so SQLite's write
   lock is held for the statements alone and not through event-loop turns; same models,
   same statements, same order, Argilla's checks before and its status update, search hook
   and webhook event after. Argilla's status update (a second session, three queries, a
   commit through event-loop turns, the search hook) runs only when a webhook is enabled;
   otherwise the thread applies the same overlap rule, writing only when the status changes:
   see ``answer_write``.
8. **The signed-in user, once per request.** Argilla's bearer-token check loads the user
   by name (with their workspaces), then ``get_current_user`` loads the same user again on
   the same database session. The second lookup now returns the object the first one put in
   that session, which is what the query would return (SQLAlchemy hands back the object its
   identity map holds, without overwriting what is loaded); a user deleted or renamed since
   is looked up again.
"""

from __future__ import annotations

import os

#: bcrypt cost of the passwords this server stores (see the module's docstring)
BCRYPT_ROUNDS = 8


def enabled() -> bool:
    return os.environ.get("BIASFORGE_LOAD_TUNING", "1") != "0"


def wal(set_sqlite_pragma) -> None:
    """Replace Argilla's SQLite ``connect`` listener (foreign keys on) by one that also turns
    on WAL mode with ``synchronous=NORMAL``."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    def set_pragmas(dbapi_connection, connection_record) -> None:
        set_sqlite_pragma(dbapi_connection, connection_record)
        from argilla_server.settings import settings

        if not settings.database_is_sqlite:
            return
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    event.remove(Engine, "connect", set_sqlite_pragma)
    event.listen(Engine, "connect", set_pragmas)


def _run_statement(connection, operation, parameters):
    """One statement, start to end, in the aiosqlite connection's own thread: execute, fetch
    every row, close the cursor (what SQLAlchemy's adapter does in four round trips)."""
    cursor = connection._conn.cursor()
    try:
        if parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        if cursor.description:
            return cursor.description, cursor.fetchall(), -1, -1
        return None, None, cursor.lastrowid, cursor.rowcount
    finally:
        cursor.close()


def one_trip_per_statement(stock_execute):
    """The aiosqlite cursor's ``execute`` as one call to the connection's thread."""
    from collections import deque

    def execute(self, operation, parameters=None):
        if self.server_side:  # rows fetched on demand: the stock path
            return stock_execute(self, operation, parameters)
        try:
            found = self.await_(
                self._connection._execute(_run_statement, self._connection, operation, parameters)
            )
        except Exception as error:
            self._adapt_connection._handle_exception(error)
        self.description, rows, self.lastrowid, self.rowcount = found
        if rows is not None:
            self._rows = deque(rows)

    return execute


def user_once_per_session(stock):
    """``get_user_by_username`` answering from the objects this session already loaded."""
    from sqlalchemy import inspect

    async def get_user_by_username(db, username: str):
        known = db.info.setdefault("biasforge_users_by_name", {})
        user = known.get(username)
        if user is not None and inspect(user).persistent and user.username == username:
            return user  # the object the same query would return from this session
        user = await stock(db, username)
        if user is not None:
            known[username] = user
        return user

    return get_user_by_username


def hash_password(_stock):
    """Argilla's bcrypt hash at cost ``BCRYPT_ROUNDS``."""
    import bcrypt

    def hash_password(password: str) -> str:
        salt = bcrypt.gensalt(rounds=BCRYPT_ROUNDS)
        return bcrypt.hashpw(password.encode("utf-8"), salt).decode("utf-8")

    return hash_password


def authenticate_user(_stock):
    """The password check in a thread, unknown names checked against a dummy hash, a hash of
    another cost re-hashed on the next successful login."""
    import anyio.to_thread
    import bcrypt
    from argilla_server.contexts import accounts

    dummy_secret = "dummy_secret"
    dummy_hash = accounts.hash_password(dummy_secret)  # the patched one (its row comes first)

    async def authenticate_user(db, username: str, password: str):
        user = await accounts.get_user_by_username(db, username)
        stored = user.password_hash if user else dummy_hash
        secret = password if user else dummy_secret
        ok = await anyio.to_thread.run_sync(accounts.verify_password, secret, stored)
        if user is None or not ok:
            return None
        if bcrypt.gensalt(BCRYPT_ROUNDS)[:7] != stored.encode()[:7]:  # "$2b$NN$": other cost
            new_hash = await anyio.to_thread.run_sync(accounts.hash_password, password)
            await user.update(db, password_hash=new_hash)
        return user

    return authenticate_user
