"""How a request is read, the same whichever way it takes (before the framework,
``service.api.front.hot``, or the framework's own): its headers read once each, its
query string strictly, and its body within a time.

A header that says how to read the request or who sends it (``SINGLE_HEADERS``) given
twice is refused, 400, before anything reads it: which of the two counts is anybody's
guess (the first, the last, both joined), and a proxy in front may have read the
other one. So is a query parameter given twice (``?open=1&open=9``: the framework
would read the last one silently), or one the operation does not take (a misspelt name
would be ignored, its default answered as if asked for): an operation's parameters
are those its document lists (``QUERY_NAMES``), as bodies take only their fields. A
body that has not arrived whole within the body timeout of its headers is a 408, and
the connection is closed: a client trickling a byte every few seconds holds no
connection and no request for long. (The server's own timer,
``SHUTBOX_HEADER_TIMEOUT``, ends with the headers: granian has none for a body.) And an
answer sent before its request's body was read whole (a refusal from the headers
alone, say) says ``Connection: close``: the server closes such a connection rather than
read what is left of the body, and a client told nothing would send its next request
into a closed connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import parse_qsl

from litestar import Litestar
from litestar.openapi.spec import OpenAPIType, Parameter, Schema
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.api import problems
from service.support.i18n import _, language_middleware

SINGLE_HEADERS: Final = (b"content-type", b"content-length", b"authorization")
"""The headers a request may give once only (names as the server hands them: lower case)."""


def repeated_header(headers: Iterable[tuple[bytes, bytes]]) -> bytes | None:
    """The first of ``SINGLE_HEADERS`` the headers give more than once, or None."""
    seen: list[bytes] = []
    for name, _value in headers:
        if name in SINGLE_HEADERS:
            if name in seen:
                return name
            seen.append(name)
    return None


async def _refuse_repeated(scope: Scope, receive: Receive, send: Send) -> None:
    name = repeated_header(scope["headers"]) or b""
    problem = problems.INVALID_REQUEST(
        _(
            "The header {name} is given more than once; send it once.",
            name=name.decode("latin-1").title(),
        )
    )
    await problems.answer(problem, scope, receive, send)


QUERY_NAMES: Final = "query_names"
"""A route handler's ``opt``: the names of the query parameters it takes, each once at
most (``name_query_parameters`` sets it at start-up, from the operation's parameters in
the document). A handler with no operation in the document (the page, the docs' pages,
the metrics) has none: its query string is not read here."""
_NAME_SHOWN: Final = 40
"""Characters of a query parameter's name a problem repeats, at most."""


def name_query_parameters(app: Litestar) -> None:
    """Give each handler of an operation of the app's document the names of its query
    parameters (``QUERY_NAMES``). A parameter that takes a list is no query parameter of
    this service's: each is given once, a list as one value (tiles comma-separated)."""
    paths = app.openapi_schema.paths or {}
    for route in app.routes:
        item = paths.get(route.path_format or "/")
        for handler in getattr(route, "route_handlers", ()):
            if item is None or not getattr(handler, "include_in_schema", False):
                continue
            names: set[str] = set()
            for method in handler.http_methods:
                operation = getattr(item, method.lower(), None)
                for parameter in getattr(operation, "parameters", None) or ():
                    if not isinstance(parameter, Parameter) or parameter.param_in != "query":
                        continue
                    schema = parameter.schema
                    if isinstance(schema, Schema) and schema.type == OpenAPIType.ARRAY:
                        raise TypeError(f"{parameter.name}: a list in one query parameter")
                    names.add(parameter.name)
            handler.opt[QUERY_NAMES] = frozenset(names)


def strange_query_parameter(scope: Scope) -> tuple[str, bool] | None:
    """The first query parameter of a request its operation does not take (and False),
    or the first it gives twice (and True); None if there is none, or if its handler is
    no operation's (``QUERY_NAMES``). Read as the framework reads a query string: names
    percent-decoded, ``+`` a space, a parameter without ``=`` a name all the same."""
    names = scope["route_handler"].opt.get(QUERY_NAMES)
    if names is None:
        return None
    seen: set[str] = set()
    for name, _value in parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True):
        if name not in names:
            return name, False
        if name in seen:
            return name, True
        seen.add(name)
    return None


async def _refuse_strange_query(scope: Scope, receive: Receive, send: Send) -> None:
    name, repeated = strange_query_parameter(scope) or ("", False)
    names = sorted(scope["route_handler"].opt.get(QUERY_NAMES) or ())
    shown = name if len(name) <= _NAME_SHOWN else name[:_NAME_SHOWN] + "…"
    if repeated:
        detail = _("The query parameter {name} is given more than once; give it once.", name=shown)
    elif names:
        detail = _(
            "The query parameter {name} is not one of this operation's; it takes {names}.",
            name=shown,
            names=", ".join(names),
        )
    else:
        detail = _(
            "The query parameter {name} is not one of this operation's; it takes none.",
            name=shown,
        )
    await problems.answer(problems.INVALID_REQUEST(detail), scope, receive, send)


def one_reading_middleware(app: ASGIApp) -> ASGIApp:
    """Refuse a request that gives one of ``SINGLE_HEADERS`` twice, or a query parameter
    twice or one its operation does not take (400, in the request's language); let the
    others through. Of a request routed to its handler (``scope["route_handler"]``)."""
    refuse_header = language_middleware(_refuse_repeated)
    refuse_query = language_middleware(_refuse_strange_query)

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if repeated_header(scope["headers"]) is not None:
            await refuse_header(scope, receive, send)
        elif scope["query_string"] and strange_query_parameter(scope) is not None:
            await refuse_query(scope, receive, send)
        else:
            await app(scope, receive, send)

    return middleware


def body_in_time(
    scope: Scope, receive: Receive, send: Send, seconds: float
) -> tuple[Receive, Send]:
    """``receive`` and ``send`` for a request that has ``seconds`` from its first read
    to send its whole body: past the deadline, the read under way raises the 408 problem.
    Once the body is whole, the connection's own ``receive`` (which waits for a
    disconnect with no deadline). An answer that starts before a body (``has_body``) was
    read whole, the 408 among them, says ``Connection: close``: the server closes the
    connection once it is sent.

    One timer a request, set at its first read and cancelled once the body is whole
    (most often at that very read): an ``asyncio.timeout`` around each read cost
    twice as much, some 3.6 µs a request."""
    whole = late = False
    reading: asyncio.Task[Any] | None = None
    timer: asyncio.TimerHandle | None = None

    def too_late() -> None:
        nonlocal late
        late = True
        if reading is not None:
            reading.cancel()

    async def receive_in_time() -> Any:
        nonlocal whole, reading, timer
        if whole:
            return await receive()
        if timer is None:
            loop = asyncio.get_running_loop()
            timer = loop.call_at(loop.time() + seconds, too_late)
        if late:
            raise _too_late(seconds)
        reading = asyncio.current_task()
        try:
            message = await receive()
        except asyncio.CancelledError:
            if late and reading is not None and reading.uncancel() == 0:
                raise _too_late(seconds) from None
            raise
        finally:
            reading = None
        whole = message["type"] != "http.request" or not message.get("more_body", False)
        if whole:
            timer.cancel()
        return message

    async def send_closing_unread(message: Message) -> None:
        if message["type"] == "http.response.start" and not whole:
            message["headers"] = [*message.get("headers", ()), (b"connection", b"close")]
        await send(message)

    return receive_in_time, send_closing_unread if has_body(scope) else send


def has_body(scope: Scope) -> bool:
    """Whether a request has a body: a length above 0, or chunks."""
    for name, value in scope["headers"]:
        if (name == b"content-length" and value.strip(b" \t0")) or name == b"transfer-encoding":
            return True
    return False


def _too_late(seconds: float) -> Exception:
    return problems.REQUEST_TIMEOUT(
        _("The body did not arrive within {seconds} s of the headers.", seconds=f"{seconds:g}")
    )


def bearer_token(header: str | bytes) -> str | None:
    """The token of an Authorization header's bearer credentials, or None: the one
    reading of the header (the handlers', the fast path's, the rate limits')."""
    text = header.decode("latin-1") if isinstance(header, bytes) else header
    scheme, _space, token = text.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None
