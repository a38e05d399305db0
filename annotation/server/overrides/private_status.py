"""``GET /api/v1/status`` answers only to a signed-in user (a row of ``patches.PATCHES``).

Argilla 2.8 serves its status (version, search engine, the server's memory figures) to anyone
who can reach the port (issue 27). The route is rebuilt with the same authentication every
other route uses; ``GET /api/v1/version`` stays public and is what biasforge's readiness
check polls.

``import argilla_server`` builds the application at once, so the route is replaced on the
built v1 API (routes are looked up per request, so the change applies to every request).
"""

from __future__ import annotations


def require_login(get_status) -> None:
    """Serve ``get_status`` at ``/api/v1/status`` to signed-in users only."""
    from argilla_server.api.routes import api_v1
    from argilla_server.api.schemas.v1.info import Status
    from argilla_server.security import auth
    from fastapi import Security

    router = api_v1.router
    router.routes[:] = [r for r in router.routes if getattr(r, "path", None) != "/status"]
    api_v1.add_api_route(
        "/status",
        get_status,
        methods=["GET"],
        response_model=Status,
        tags=["info"],
        dependencies=[Security(auth.get_current_user)],
    )
