"""The sign-in page says in words that sign-in is throttled, instead of a raw error.

Argilla's sign-in page shows its ``formattedError``: its own "Wrong username or password" for an
error whose text holds "401", and the raw error object otherwise. So a sign-in refused by
``login_throttle`` (429 with ``Retry-After``) read "AxiosError: Request failed with status code
429". Argilla copies its web app into a folder of each web process at start, to write its base
URL into it; this module edits that copy, never the installed package: the one expression of
the page's chunk that formats the error also shows a 429's ``detail`` (the throttle's sentence,
which names the wait). If the expression is not found (another argilla-server build), start-up
fails, as it does for a patch whose target changed.
"""

from __future__ import annotations

from pathlib import Path

ORIGINAL = (
    "formattedError:function formattedError(){if(this.error)return this.error.toString()"
    '.includes("401")?this.$t("login.error"):this.error}'
)
REPLACED = (
    "formattedError:function formattedError(){if(this.error){var r=this.error.response;"
    'if(r&&r.status===429)return r.data&&r.data.detail||"Too many failed sign-ins: try again '
    'later.";return this.error.toString().includes("401")?this.$t("login.error"):this.error}}'
)


def static_folder(app) -> Path:
    """The folder Argilla serves its web app from in this process (its mount named static)."""
    for route in app.routes:
        if getattr(route, "name", None) == "static":
            return Path(route.app.directory)
    raise RuntimeError("argilla-server serves no web app (no mount named 'static')")


def install(app) -> Path:
    """Edit the served copy of the sign-in page's chunk; returns the chunk edited."""
    chunks = [
        path
        for path in sorted((static_folder(app) / "_nuxt").glob("*.js"))
        if ORIGINAL in path.read_text(encoding="utf-8", errors="replace")
    ]
    if len(chunks) != 1:
        raise RuntimeError(
            f"the sign-in page's error expression is in {len(chunks)} chunks of the web app, "
            "not one: this argilla-server build is not the one biasforge was written against"
        )
    (chunk,) = chunks
    chunk.write_text(chunk.read_text(encoding="utf-8").replace(ORIGINAL, REPLACED), "utf-8")
    return chunk
