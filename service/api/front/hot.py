"""The requests clients send most, answered before the framework:
``POST /v1/analyze``, a player's official daily run, the Daily Dice feed, and what a
player reads after a run (the streak, the friends' board, the share text, the
leaderboard).

``App`` runs the service's own middleware (log and metrics, language, rate limits,
the answerers below) straight from the server for the routes whose handlers say so in
their ``opt``: ``BEFORE_FRAMEWORK``, the handler's own answerer, typed by what it reads
(``ByPath``: the Daily Dice feed's; ``ByHeaders``: the hot GETs' of a player;
``ByBody``: the hot POSTs'). ``hot_routes``
reads them from the router; a route is answered by its own handler's answerer, or by
the framework. Whatever the middleware does not answer goes on to the framework, marked
``FRONT`` so that the same middleware inside it lets the request through. Every other
request takes the framework's way, middleware included. What it saves:
docs/performance.md.

A route's answerer is the handler's own function, handed the request's path matched
(and, from a body, its whole JSON body): it gives the answer to send, or None having
stored nothing when it meets a problem (``problems.ANSWERED``): the request goes on to
the handler, with the body read here handed on, which answers it from the start; so
does a body too large or of unknown length. Any other exception is a bug, answered as
the 500 problem (``last_resort``). A database that cannot answer is the exception: its
503 is answered here at once, rather than the handler trying the database again, and so
is the 408 of a body that did not arrive in time (``service.api.front.reading``).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Final, NamedTuple, Protocol, TypeVar, cast

from litestar import Request
from litestar.handlers import HTTPRouteHandler
from litestar.plugins.problem_details import ProblemDetailsException
from litestar.routes import BaseRoute
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.api import problems
from service.api.bodies import is_json
from service.api.front.answers import content_length, send_whole
from service.api.front.litestar import is_valid_host
from service.api.problems import database_problem, internal_error
from service.store.db import TIMED_OUT, UNAVAILABLE
from service.support.logs import ClientClosedRequest

DATABASE_DOWN: Final = (*TIMED_OUT, *UNAVAILABLE)
"""What an answerer lets through instead of None: the database cannot answer now."""
Answer = tuple[int, bytes]
"""The status and the encoded JSON body of a response."""
Answerer = Callable[[Scope, bytes, re.Match[str]], Awaitable[Answer | None]]
"""Answers a request (its scope, its body, its path matched), or None for the handler;
raises ``DATABASE_DOWN`` errors."""
Headers = list[tuple[bytes, bytes]]
Reply = tuple[int, Headers, bytes]
"""The status, the headers (encoded, the reply's own list) and the body of a response."""
PathAnswerer = Callable[[Scope, re.Match[str]], Awaitable[Reply | None]]
"""Answers a request from its scope and its path matched, or None for the handler;
raises ``DATABASE_DOWN`` errors."""
HeadersAnswerer = Callable[[Scope, re.Match[str]], Awaitable[Answer | None]]
"""Answers a request from its scope (its headers: the bearer token) and its path
matched, or None for the handler; raises ``DATABASE_DOWN`` errors."""


class ByBody(NamedTuple):
    """``BEFORE_FRAMEWORK`` of a route answered from its whole JSON body (a POST's),
    after the language: the answer may have text."""

    answer: Answerer


class ByPath(NamedTuple):
    """``BEFORE_FRAMEWORK`` of a route answered from its path and headers alone, no body
    read, before the language: an answer with no text (the Daily Dice feed's)."""

    answer: PathAnswerer


class ByHeaders(NamedTuple):
    """``BEFORE_FRAMEWORK`` of a GET answered from its path and headers (the player of
    its bearer token), no body read, after the language: the answer may have text. A
    request with a query string goes on to the handler, which reads its parameters."""

    answer: HeadersAnswerer


Way = TypeVar("Way", ByBody, ByPath, ByHeaders)


FastPath = ByBody | ByPath | ByHeaders


FRONT: Final = "shutbox.front"
"""In a scope: the service's middleware ran before the framework (``App``)."""
BEFORE_FRAMEWORK: Final = "before_framework"
"""A route handler's ``opt`` naming how its requests are answered before the framework:
its own answerer, ``ByBody`` or ``ByPath``; anything else is refused at start-up
(``hot_routes``). A handler that does not say so is answered by the framework."""


class HotRoute(NamedTuple):
    method: str
    path: re.Pattern[str]
    """The route's path exactly as written (no slash doubled or added: those spellings
    take the framework's way, whose router reads them), its parameters each a group
    named as the route names it."""
    template: str
    """The route's template as the framework's router gives it (the metrics' label)."""
    answerer: FastPath
    """The handler's own answerer, as its ``opt`` gives it."""
    handler: HTTPRouteHandler
    """The route's handler, as the router would hand it on: what its ``opt`` says
    (the rate limits, the query parameters) holds before the framework as inside it."""


def hot_routes(routes: Iterable[BaseRoute]) -> tuple[HotRoute, ...]:
    """The routes whose handlers are answered before the framework (``BEFORE_FRAMEWORK``
    in their ``opt``), as the router has them."""
    found = []
    for route in routes:
        for handler in getattr(route, "route_handlers", ()):
            how = handler.opt.get(BEFORE_FRAMEWORK)
            if how is None:
                continue
            if not isinstance(how, FastPath):
                raise TypeError(
                    f"{handler}: {BEFORE_FRAMEWORK} is ByBody, ByPath or ByHeaders, not {how!r}"
                )
            # Static text, a parameter's name, static text, ... (``{name}`` or ``{name:type}``).
            parts = re.split(r"\{([^}:]+)[^}]*\}", route.path_format)
            static, names = parts[0::2], parts[1::2]
            path = re.compile(
                re.escape(static[0])
                + "".join(f"(?P<{n}>[^/]+){re.escape(s)}" for n, s in zip(names, static[1:]))
            )
            found += [
                HotRoute(m, path, route.path_format, how, handler) for m in handler.http_methods
            ]
    return tuple(found)


def hot_route(
    routes: Sequence[HotRoute], scope: Scope, cors: bool
) -> tuple[HotRoute, re.Match[str]] | None:
    """The hot route a request takes and its path matched, or None for the framework's
    way: another route (or another spelling of a hot one: the router reads it), a path
    under a root path (the router strips it), a host header the router refuses (400), or
    a browser's request to a service with CORS (the framework's CORS layer adds its
    headers)."""
    method, path = scope.get("method"), scope["path"]
    for route in routes:
        if route.method == method:
            found = route.path.fullmatch(path)
            if found is not None:
                break
    else:
        return None
    if scope.get("root_path"):
        return None
    for name, value in scope["headers"]:
        if (name == b"host" and not is_valid_host(value)) or (cors and name == b"origin"):
            return None
    return route, found


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


class Front(Protocol):
    """The app, as the service's middleware sees it: its hot routes."""

    hot_routes: Sequence[HotRoute]


def answered_from_path(app: ASGIApp) -> ASGIApp:
    """A middleware answering the requests of the app's hot routes that say ``ByPath``
    with their answerers; the rest, and a problem, go on to ``app``."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        how, path = answerer_of(scope, ByPath)
        try:
            reply = None if how is None or path is None else await how.answer(scope, path)
        except DATABASE_DOWN as error:
            await problems.answer(database_problem(error), scope, receive, send)
        else:
            await (app(scope, receive, send) if reply is None else send_whole(send, *reply))

    return middleware


def answered_from_body(app: ASGIApp) -> ASGIApp:
    """A middleware answering the requests of the app's hot routes that say ``ByBody``
    with their answerers, the body read whole; the rest, a body of unknown length or too
    large, and a problem, go on to ``app``."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        how, path = answerer_of(scope, ByBody)
        if how is None or path is None:
            await app(scope, receive, send)
            return
        try:
            body = await _whole_body(scope, receive)
        except ProblemDetailsException as late:  # the body did not arrive in time
            await problems.answer(late, scope, receive, send)
            return
        if body is None:
            await app(scope, receive, send)
            return
        try:
            answer = await how.answer(scope, body, path)
        except DATABASE_DOWN as error:
            await problems.answer(database_problem(error), scope, receive, send)
            return
        if answer is None:
            await app(scope, _replaying(body, receive), send)
            return
        await _send_answer(send, answer)

    return middleware


def answered_from_headers(app: ASGIApp) -> ASGIApp:
    """A middleware answering the requests of the app's hot routes that say
    ``ByHeaders`` with their answerers; the rest, a request with a query string, and a
    problem, go on to ``app``."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        how, path = answerer_of(scope, ByHeaders)
        if how is None or path is None or scope.get("query_string"):
            await app(scope, receive, send)
            return
        try:
            answer = await how.answer(scope, path)
        except DATABASE_DOWN as error:
            await problems.answer(database_problem(error), scope, receive, send)
            return
        await (app(scope, receive, send) if answer is None else _send_answer(send, answer))

    return middleware


async def _send_answer(send: Send, answer: Answer) -> None:
    status, content = answer
    headers = [(b"content-type", b"application/json"), content_length(content)]
    await send_whole(send, status, headers, content)


def answerer_of(scope: Scope, kind: type[Way]) -> tuple[Way | None, re.Match[str] | None]:
    """The answerer of the hot route a request takes, if it is of ``kind``, and the path
    matched; (None, None) otherwise."""
    route, path = matched(scope) or (None, None)
    how = route.answerer if route is not None else None
    return (how, path) if isinstance(how, kind) else (None, None)


MATCHED: Final = "shutbox.hot_route"
"""In a scope: ``matched``'s answer, found once a request (``App.route`` sets it for a
request it sends before the framework): each answering middleware asks."""


def matched(scope: Scope) -> tuple[HotRoute, re.Match[str]] | None:
    """The app's hot route a request takes and its path matched (its parameters the
    groups), or None: found once a request, kept in its scope (``MATCHED``)."""
    if MATCHED in scope:
        kept: tuple[HotRoute, re.Match[str]] | None = scope[MATCHED]  # type: ignore[typeddict-item]
        return kept
    method, path = scope.get("method"), scope["path"]
    found: tuple[HotRoute, re.Match[str]] | None = None
    for route in cast("Front", scope["app"]).hot_routes:
        if route.method == method:
            match = route.path.fullmatch(path)
            if match is not None:
                found = route, match
                break
    cast("dict[str, object]", scope)[MATCHED] = found
    return found


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
