"""The ``Idempotency-Key`` header of creating POSTs, for every handler that creates."""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Final, NamedTuple

import msgspec
from litestar import Request, Response
from litestar.plugins.problem_details import ProblemDetailsException

from service.api import problems
from service.api.deps import Services
from service.store import idempotency
from service.store.daily import RunKey
from service.store.db import Connection
from service.support.i18n import _, asked, write_in, written_in

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


def checked(key: str) -> str:
    """The key, if it is one a client may send (1 to 255 printable characters)."""
    if len(key) > KEY_MOST or not _KEY.fullmatch(key):
        raise problems.INVALID_IDEMPOTENCY_KEY(_("Idempotency-Key: 1 to 255 printable characters"))
    return key


def run_key(key: str | None) -> RunKey | None:
    """An official run's key as the run's row keeps it (``RunKey``): the run is one a
    player and date, so its row is the key's record, written with the run; None without
    a key."""
    if key is None:
        return None
    digest = hashlib.sha256(checked(key).encode()).digest()
    return RunKey(uuid.UUID(bytes=digest[:16]), asked())


async def answer_keyed(
    request: Keyed,
    services: Services,
    scope: str,
    produce: Callable[[Connection | None], Awaitable[tuple[int, bytes]]],
) -> Answer:
    """Run ``produce`` once per idempotency key in ``scope``, when the request has one:
    it is handed the connection holding the key (its work joins the key's transaction);
    without a key, None (its work goes where it would anyway)."""
    if request.key is None:
        status, body = await produce(None)
        return Answer(status, body, replayed=False)
    key = checked(request.key)
    digest = idempotency.request_digest(request.method, request.path, canonical(request.body))

    async def kept(connection: Connection | None) -> idempotency.Kept:
        status, body = await produce(connection)
        return idempotency.Kept(status, body, written_in())

    pool, now = services.pool, services.clock.now()
    try:
        answer, replayed = await idempotency.once(pool, now, scope, key, digest, kept)
    except idempotency.KeyReused:
        raise key_reused() from None
    if replayed and answer.language is not None:
        write_in(answer.language)  # the answer again says its language, as it did first
    return Answer(answer.status, answer.body, replayed)


def key_reused() -> ProblemDetailsException:
    return problems.IDEMPOTENCY_KEY_REUSED(
        _("This Idempotency-Key was used with another request; use a new key for a new request.")
    )


async def respond_once(
    request: Request[Any, Any, Any],
    services: Services,
    scope: str,
    produce: Callable[[Connection | None], Awaitable[tuple[int, bytes]]],
) -> Response[bytes]:
    """``answer_once`` as the JSON response it is."""
    status, body, _replayed = await answer_once(request, services, scope, produce)
    return Response(content=body, status_code=status, media_type=JSON)
