"""The ``Idempotency-Key`` header of creating POSTs, for every handler that creates."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from litestar import Request, Response

from service.api.deps import Services
from service.api.problems import problem
from service.store import idempotency
from service.store.db import Database

HEADER: Final = "idempotency-key"
JSON: Final = "application/json"


async def respond_once(
    request: Request[Any, Any, Any],
    services: Services,
    scope: str,
    produce: Callable[[Database], Awaitable[tuple[int, bytes]]],
) -> Response[bytes]:
    """Run ``produce`` once per idempotency key, when the request has one: it is handed
    the connection holding the key (its work joins the key's transaction); without a
    key, the pool."""
    key = request.headers.get(HEADER)
    if key is None:
        status, body = await produce(services.pool)
        return Response(content=body, status_code=status, media_type=JSON)
    if not 1 <= len(key) <= 255 or not key.isprintable():
        raise problem(
            400, "invalid-idempotency-key", "Idempotency-Key: 1 to 255 printable characters"
        )
    digest = idempotency.request_digest(request.method, request.url.path, await request.body())
    try:
        status, body = await idempotency.once(
            services.pool, services.clock.now(), scope, key, digest, produce
        )
    except idempotency.KeyReused:
        raise problem(
            422, "idempotency-key-reused",
            "This Idempotency-Key was used with another request; use a new key for a new request.",
        ) from None  # fmt: skip
    return Response(content=body, status_code=status, media_type=JSON)
