"""The requests clients send most, answered before the framework when all goes well:
``POST /v1/analyze``, a player's official daily run, and the Daily Dice feed.

``App`` runs the service's own middleware (log and metrics, language, rate limits,
the feed and the answerers below) straight from the server for these routes
(``HOT_ROUTES``): the framework's exception layer, router and per-route layers took
some 5% of an analyze's instructions. Whatever the middleware does not answer goes on to
the framework, marked ``FRONT`` so that the same middleware inside it lets the request
through. Every other request takes the framework's way, middleware included.

The handlers' own functions do the work, without the framework's routing of the body,
dependencies and response objects. A route's answerer is handed the request's whole
JSON body and gives the status and encoded body to send, or None having stored nothing:
anything else (a problem to answer, a body too large or of unknown length) goes on to
the handler, with the body read here handed on, and is answered there as always. A
database that cannot answer is the exception: its 503 is answered here at once, rather
than the handler trying the database again, and so is the 408 of a body that did not
arrive in time (``service.api.reading``). The middleware runs after the log, the rate
limits and the language.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from litestar import Request
from litestar._asgi.utils import is_valid_host
from litestar.plugins.problem_details import ProblemDetailsException
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.api import problems
from service.api.bodies import is_json
from service.api.problems import database_problem, internal_error
from service.logs import ClientClosedRequest
from service.store.db import TIMED_OUT, UNAVAILABLE

DATABASE_DOWN: Final = (*TIMED_OUT, *UNAVAILABLE)
"""What an answerer lets through instead of None: the database cannot answer now."""
Answer = tuple[int, bytes]
"""The status and the encoded JSON body of a response."""
Answerer = Callable[[Scope, bytes, re.Match[str]], Awaitable[Answer | None]]
"""Answers a request (its scope, its body, its path matched), or None for the handler;
raises ``DATABASE_DOWN`` errors."""


FEED_PATH: Final = re.compile(r"/v1/daily/[0-9]{4}-[0-9]{2}-[0-9]{2}")
"""A date's Daily Dice (the path names a date in the shape of one)."""
ANALYZE_PATH: Final = re.compile(r"/v1/analyze")
RUNS_PATH: Final = re.compile(r"/v1/daily/([^/]+)/runs")
"""Official runs of a date (the group: the date as the path gives it)."""
FRONT: Final = "shutbox.front"
"""In a scope: the service's middleware ran before the framework (``App``)."""


class HotRoute(NamedTuple):
    method: str
    path: re.Pattern[str]
    template: str
    """The route's template as the framework's router gives it (the metrics' label)."""


def hot_template(routes: Sequence[HotRoute], scope: Scope, cors: bool) -> str | None:
    """The template of the hot route a request takes, or None for the framework's way:
    another route, a path under a root path (the router strips it), a host header the
    router refuses (400), or a browser's request to a service with CORS (the framework's
    CORS layer adds its headers)."""
    method, path = scope.get("method"), scope["path"]
    for route in routes:
        if route.method == method and route.path.fullmatch(path):
            break
    else:
        return None
    if scope.get("root_path"):
        return None
    for name, value in scope["headers"]:
        if (name == b"host" and not is_valid_host(value)) or (cors and name == b"origin"):
            return None
    return route.template


def in_framework(middleware: ASGIApp, app: ASGIApp) -> ASGIApp:
    """``middleware`` (wrapping ``app``) as the framework's middleware: let through a
    request it has run on already, before the framework (``FRONT``)."""

    async def once(scope: Scope, receive: Receive, send: Send) -> None:
        await (app if FRONT in scope else middleware)(scope, receive, send)

    return once


def last_resort(app: ASGIApp) -> ASGIApp:
    """Before the framework, what its exception layer does: an error raised before the
    answer began is logged and answered with the 500 problem."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def send_marked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await app(scope, receive, send_marked)
        except ClientClosedRequest:
            raise
        except Exception as error:
            if started:
                raise
            request: Request[Any, Any, Any] = Request(scope, receive)
            response = internal_error(request, error)
            await response.to_asgi_response(None, request)(scope, receive, send)

    return middleware


def hot_posts(routes: Mapping[re.Pattern[str], Answerer]) -> Callable[[ASGIApp], ASGIApp]:
    """A middleware answering the POSTs whose path one of ``routes`` matches in full."""

    def middleware_of(app: ASGIApp) -> ASGIApp:
        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            route = _route(routes, scope) if scope.get("method") == "POST" else None
            if route is None:
                await app(scope, receive, send)
                return
            path, answerer = route
            try:
                body = await _whole_body(scope, receive)
            except ProblemDetailsException as late:  # the body did not arrive in time
                await problems.answer(late, scope, receive, send)
                return
            if body is None:
                await app(scope, receive, send)
                return
            try:
                answer = await answerer(scope, body, path)
            except DATABASE_DOWN as error:
                await problems.answer(database_problem(error), scope, receive, send)
                return
            if answer is None:
                await app(scope, _replaying(body, receive), send)
                return
            status, content = answer
            headers = [(b"content-type", b"application/json"), content_length(content)]
            await send_whole(send, status, headers, content)

        return middleware

    return middleware_of


def content_length(body: bytes) -> tuple[bytes, bytes]:
    return b"content-length", str(len(body)).encode()


async def send_whole(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    """A whole response in two messages, its headers as given (encoded already)."""
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _route(
    routes: Mapping[re.Pattern[str], Answerer], scope: Scope
) -> tuple[re.Match[str], Answerer] | None:
    for pattern, answerer in routes.items():
        path = pattern.fullmatch(scope["path"])
        if path is not None:
            return path, answerer
    return None


def header(scope: Scope, name: bytes) -> str | None:
    """A request header's first value (as the framework decodes it), or None."""
    for key, value in scope["headers"]:
        if key == name:
            text: str = value.decode("latin-1")
            return text
    return None


async def _whole_body(scope: Scope, receive: Receive) -> bytes | None:
    """The body of a JSON request that says its length, within the limit; else None,
    having read nothing."""
    length = media_type = None
    for name, value in scope["headers"]:
        if name == b"content-length":
            length = value
        elif name == b"content-type":
            media_type = value
    if length is None or not length.isdigit() or media_type is None:
        return None
    if not is_json(media_type.decode("latin-1").partition(";")[0].strip().lower()):
        return None
    if int(length) > scope["app"].state.services.settings.max_body_bytes:
        return None
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ClientClosedRequest
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A receive that hands on the body already read, then the connection's own."""
    sent = False

    async def replay() -> Any:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
