"""The patched argilla-server application, as uvicorn imports it (``asgi:app``) in each web
process: the launcher's ``start`` names this module, so every worker process gets biasforge's
patches (a worker started by uvicorn does not run the launcher's ``main``)."""

from __future__ import annotations

import launcher

launcher.install_patches()

from argilla_server import app  # noqa: E402

__all__ = ["app"]
