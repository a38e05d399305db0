"""Thin HTTP helpers over Argilla's REST API (v1) for what the SDK does slowly or not at all.

The SDK logs records one settings-validation at a time and cannot list the external ids of a
dataset cheaply; annotators cannot use it to answer (403 on ``records.log``). These helpers
call the documented endpoints directly, with the same API key the SDK uses.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from biasforge.annotation.client.connection import Connection
from biasforge.errors import BiasforgeError


def http(
    connection: Connection, *, api_key: str | None = None, timeout: float = 120
) -> httpx.Client:
    return httpx.Client(
        base_url=connection.url,
        headers={"X-Argilla-Api-Key": api_key or connection.api_key},
        timeout=timeout,
        verify=connection.verify(),
    )


def refusal(response: httpx.Response) -> str:
    """The server's reason for refusing a request, in one short line: the first line of its
    ``detail`` (Argilla's error body), never a dump of the body, its ids list or SQL."""
    try:
        detail = response.json().get("detail", response.text)
    except (ValueError, AttributeError):
        detail = response.text
    if isinstance(detail, dict):
        detail = detail.get("message") or detail.get("code") or json.dumps(detail)
    elif isinstance(detail, list):  # pydantic's list of errors
        detail = "; ".join(str(d.get("msg", d)) if isinstance(d, dict) else str(d) for d in detail)
    text = str(detail).strip().splitlines()[0] if str(detail).strip() else "no reason given"
    text = text.split("[SQL:")[0].strip()
    return text if len(text) <= 200 else text[:200] + "…"


def check(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        raise BiasforgeError(
            f"Argilla answered {response.status_code} to {response.request.method} "
            f"{response.request.url.path}: {refusal(response)}"
        )
    return response.json() if response.content else None


def iter_records(
    client: httpx.Client, dataset_id: str, *, include: str | None = None, page: int = 1000
) -> Iterator[dict[str, Any]]:
    """Every record of a dataset, in insertion order (no search engine involved)."""
    offset = 0
    while True:
        params: dict[str, Any] = {"offset": offset, "limit": page}
        if include:
            params["include"] = include
        items = check(client.get(f"/api/v1/datasets/{dataset_id}/records", params=params))["items"]
        yield from items
        if len(items) < page:
            return
        offset += len(items)


def questions(client: httpx.Client, dataset_id: str) -> list[dict[str, Any]]:
    return check(client.get(f"/api/v1/datasets/{dataset_id}/questions"))["items"]


def users(client: httpx.Client) -> list[dict[str, Any]]:
    return check(client.get("/api/v1/users"))["items"]
