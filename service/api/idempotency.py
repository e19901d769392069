"""The ``Idempotency-Key`` header of creating POSTs, for every handler that creates."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Final, NamedTuple

import msgspec
from litestar import Request, Response

from service.api import problems
from service.api.deps import Services
from service.store import idempotency
from service.store.db import Connection
from service.support.i18n import _, write_in, written_in

HEADER: Final = "idempotency-key"
JSON: Final = "application/json"
KEY_MOST: Final = 255
KEY_PATTERN: Final = r"^[\x20-\x7e\xa1-\xac\xae-\xff]+$"
"""A key's characters, as the OpenAPI document says them: printable characters of a
header (ISO 8859-1: no control character, no-break space or soft hyphen)."""
_KEY: Final = re.compile(KEY_PATTERN)


class Answer(NamedTuple):
    status: int
    body: bytes
    replayed: bool
    """The answer first given for the request's key, not produced now."""


def canonical(body: bytes) -> bytes:
    """The JSON value of a body, written one way (keys sorted, no spaces), so that the
    same value sent with its fields in another order or spacing is the same request."""
    try:
        return msgspec.json.encode(msgspec.json.decode(body), order="sorted")
    except msgspec.DecodeError:
        return body  # not JSON: the handler refuses it before it is ever stored


class Keyed(NamedTuple):
    """What of a request its idempotency key is checked against."""

    key: str | None
    method: str
    path: str
    body: bytes
    """The body as sent (read only when there is a key)."""


async def keyed(request: Request[Any, Any, Any]) -> Keyed:
    key = request.headers.get(HEADER)
    body = b"" if key is None else await request.body()
    return Keyed(key, request.method, request.url.path, body)


async def answer_once(
    request: Request[Any, Any, Any],
    services: Services,
    scope: str,
    produce: Callable[[Connection | None], Awaitable[tuple[int, bytes]]],
) -> Answer:
    """``answer_keyed`` for a request as the framework hands it."""
    return await answer_keyed(await keyed(request), services, scope, produce)


async def answer_keyed(
    request: Keyed,
    services: Services,
    scope: str,
    produce: Callable[[Connection | None], Awaitable[tuple[int, bytes]]],
    *,
    retry_safe: bool = False,
) -> Answer:
    """Run ``produce`` once per idempotency key in ``scope``, when the request has one:
    it is handed the connection holding the key (its work joins the key's transaction);
    without a key, None (its work goes where it would anyway).

    ``retry_safe``: ``produce`` stores at most once whatever runs it again for the same
    request, and answers a run again with what it stored (a player's official run of a
    date: one a date, the identical run again is the stored one; its ``scope`` must hold
    no other request, or ``keep`` would find another's answer after the work is stored:
    the player's and the date's). Then no lock is held
    across it and it is handed None (a daily run joins the batches in flight): its answer
    is kept unless one is kept for the key already (a retry, or a request with the same
    key that raced this one), which is the answer then; when ``produce`` raises, the
    answer kept for the key, if there is one (``KeyReused``: another request's). Two
    such requests racing each other both get the one kept; a crash between the work and
    keeping its answer leaves the work, which the retry finds. One round trip more than
    the work, against nine and a connection of its own (docs/performance.md)."""
    key = request.key
    if key is None:
        status, body = await produce(None)
        return Answer(status, body, replayed=False)
    if len(key) > KEY_MOST or not _KEY.fullmatch(key):
        raise problems.INVALID_IDEMPOTENCY_KEY(_("Idempotency-Key: 1 to 255 printable characters"))
    digest = idempotency.request_digest(request.method, request.path, canonical(request.body))

    async def kept(connection: Connection | None) -> idempotency.Kept:
        status, body = await produce(connection)
        return idempotency.Kept(status, body, written_in())

    pool, now = services.pool, services.clock.now()
    try:
        if not retry_safe:
            answer, replayed = await idempotency.once(pool, now, scope, key, digest, kept)
        else:
            try:
                produced = await kept(None)
            except Exception:
                first = await idempotency.kept_for(pool, now, scope, key, digest)
                if first is None:
                    raise
                answer, replayed = first, True
            else:
                answer, replayed = await idempotency.keep(pool, now, scope, key, digest, produced)
    except idempotency.KeyReused:
        raise problems.IDEMPOTENCY_KEY_REUSED(
            _(
                "This Idempotency-Key was used with another request; use a new key for a new "
                "request."
            ),
        ) from None
    if replayed and answer.language is not None:
        write_in(answer.language)  # the answer again says its language, as it did first
    return Answer(answer.status, answer.body, replayed)


async def respond_once(
    request: Request[Any, Any, Any],
    services: Services,
    scope: str,
    produce: Callable[[Connection | None], Awaitable[tuple[int, bytes]]],
) -> Response[bytes]:
    """``answer_once`` as the JSON response it is."""
    status, body, _replayed = await answer_once(request, services, scope, produce)
    return Response(content=body, status_code=status, media_type=JSON)
