"""Throttle failed sign-ins: ASGI middleware around Argilla's application.

Argilla signs users in at ``POST /api/v1/token`` (the web UI's sign-in page and the SDK) and
answers 401 to a wrong password, as often as asked. Once the server is reachable from a
network, that is a password-guessing oracle. This middleware counts the 401 answers of that
route per username and per client address with the ``limits`` package (moving window), kept in
the server's own Redis so that the web processes share one count, and answers 429 with
``Retry-After`` while either count is full, without asking Argilla (or bcrypt) at all.

- The username limit (default 10 failures a minute) stops guessing one account's password;
  the address limit (default 30 a minute) stops one machine from trying many accounts. Other
  users and other addresses are unaffected. Both are ``limits`` strings, set through
  ``BIASFORGE_LOGIN_LIMIT_USER`` / ``BIASFORGE_LOGIN_LIMIT_ADDRESS`` (e.g. ``"10/minute"``).
- The client address is uvicorn's ``scope["client"]``: the peer, or the ``X-Forwarded-For``
  client when the peer is a proxy named with ``--trusted-proxy`` (uvicorn's own
  ``ProxyHeadersMiddleware`` runs before this one and ignores the header from anyone else).
- The log names the username and address of a refused or throttled sign-in, never the password.

A failure is counted when Argilla answers 401, before the answer is sent. Sign-ins in flight
together when the limit is reached may each be checked before any is counted: at most the
number of concurrent requests beyond the limit, which a guesser cannot turn into a useful rate.
"""

from __future__ import annotations

import logging
import math
import os
import time

LOGIN_PATH = "/api/v1/token"
USER_LIMIT = "10/minute"
ADDRESS_LIMIT = "30/minute"
MAX_BODY = 64 * 1024  # a sign-in form is tiny; anything bigger is not read into memory

log = logging.getLogger("biasforge.login")


def _logger() -> logging.Logger:
    if not log.handlers:  # uvicorn runs at level warning; throttle lines must reach server.log
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    return log


def _printable(text: str, limit: int = 64) -> str:
    """A username as it may appear in a log line: no control characters, bounded length."""
    return repr(text[:limit])


def _client(scope) -> str:
    """The client's address as uvicorn gives it (the forwarded one behind a trusted proxy)."""
    return (scope.get("client") or ("unknown", 0))[0]


class LoginThrottle:
    """ASGI middleware: 429 on ``POST /api/v1/token`` for a username or address with too many
    recent failures; counts each 401 answer of that route."""

    def __init__(self, app, redis_url: str | None = None) -> None:
        from limits import parse
        from limits.aio.storage import RedisStorage
        from limits.aio.strategies import MovingWindowRateLimiter

        self.app = app
        url = redis_url or os.environ["ARGILLA_REDIS_URL"]
        storage = RedisStorage(
            url.replace("redis://", "async+redis://", 1),
            implementation="redispy",
            key_prefix="biasforge-login",
        )
        self.limiter = MovingWindowRateLimiter(storage)
        self.per_user = parse(os.environ.get("BIASFORGE_LOGIN_LIMIT_USER") or USER_LIMIT)
        self.per_address = parse(os.environ.get("BIASFORGE_LOGIN_LIMIT_ADDRESS") or ADDRESS_LIMIT)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != LOGIN_PATH:
            await self.app(scope, receive, send)
            return
        body, more = await _read_body(receive)
        username = await _username(scope, body) if not more else ""
        address = _client(scope)
        checks = [(self.per_user, "user", username), (self.per_address, "address", address)]
        for limit, kind, key in checks:
            if not await self.limiter.test(limit, kind, key):
                await self._refuse(scope, receive, send, limit, kind, key, username)
                return
        await self._forward(scope, _replay(body, more, receive), send, checks, username, address)

    async def _forward(self, scope, receive, send, checks, username: str, address: str) -> None:
        """Run Argilla's app; a 401 is counted before the client sees it, so the client's next
        attempt (perhaps in another web process) already meets the new count."""

        async def watch(message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                for limit, kind, key in checks:
                    await self.limiter.hit(limit, kind, key)
                _logger().info("failed sign-in for %s from %s", _printable(username), address)
            await send(message)

        await self.app(scope, receive, watch)

    async def _refuse(self, scope, receive, send, limit, kind: str, key: str, username: str):
        from starlette.responses import JSONResponse

        stats = await self.limiter.get_window_stats(limit, kind, key)
        retry = max(1, math.ceil(stats.reset_time - time.time()))
        _logger().warning(
            "sign-in throttled for %s from %s: too many failed sign-ins per %s (%s); retry in %d s",
            _printable(username), _client(scope), kind, limit, retry,
        )  # fmt: skip
        detail = f"Too many failed sign-ins: try again in {retry} s."  # shown on the sign-in page
        response = JSONResponse(
            {"detail": detail}, status_code=429, headers={"Retry-After": str(retry)}
        )
        await response(scope, receive, send)


async def _read_body(receive) -> tuple[bytes, bool]:
    """The request body up to MAX_BODY; True as second value when more is left unread."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if not message.get("more_body", False):
            return b"".join(chunks), False
        if size > MAX_BODY:
            return b"".join(chunks), True


def _replay(body: bytes, more: bool, receive):
    """A ``receive`` that hands the app the body already read, then the rest of the stream."""
    sent = {"done": False}

    async def again():
        if not sent["done"]:
            sent["done"] = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return again


async def _username(scope, body: bytes) -> str:
    """The ``username`` field of the sign-in form, read by Starlette's own form parser
    (urlencoded, as the UI and the SDK send it, or multipart)."""
    from starlette.requests import Request

    async def once():
        return {"type": "http.request", "body": body, "more_body": False}

    try:
        value = (await Request(scope, once).form()).get("username")
    except Exception:  # a malformed form: Argilla answers it (422); counted by address only
        return ""
    return value if isinstance(value, str) else ""
