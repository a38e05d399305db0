"""The patched argilla-server application, as uvicorn imports it (``asgi:app``) in each web
process: the launcher's ``start`` names this module, so every worker process gets biasforge's
patches (a worker started by uvicorn does not run the launcher's ``main``).

A web process also asks the kernel for SIGTERM when its parent dies: with several workers,
uvicorn's supervisor is that parent, and if it is killed (kill -9) its workers would otherwise
keep the port and the database open with nobody left to stop them.

The application is wrapped in the sign-in throttle (``login_throttle``): ASGI middleware, not a
patch of Argilla's internals. Plain HTTP sent to an HTTPS port is answered by ``plain_http``
(the TLS handshake object, not Argilla). ``sign_in_page`` edits this process's copy of the web
app so that a throttled sign-in is shown in words.
"""

from __future__ import annotations

import parent_death

parent_death.sigterm_when_parent_dies()

import launcher  # noqa: E402
import plain_http  # noqa: E402

launcher.install_patches()
plain_http.install()  # plain HTTP to the HTTPS port gets a 400 naming the https URL

import sign_in_page  # noqa: E402
from argilla_server import app as argilla_app  # noqa: E402
from login_throttle import LoginThrottle  # noqa: E402

sign_in_page.install(argilla_app)  # a throttled sign-in reads as words, not "AxiosError … 429"

app = LoginThrottle(argilla_app)

__all__ = ["app"]
