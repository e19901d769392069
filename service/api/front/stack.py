"""The service's own middleware, in its order: the same on both ways a request takes
(before the framework on a hot route, inside it on every other)."""

from __future__ import annotations

from litestar.types import ASGIApp

from service.api.front.hot import (
    answered_from_body,
    answered_from_headers,
    answered_from_path,
    in_framework,
)
from service.api.front.ratelimit import rate_limit_middleware
from service.api.front.reading import one_reading_middleware
from service.support.i18n import language_middleware


def framework_middleware(app: ASGIApp) -> ASGIApp:
    """The service's middleware as the framework runs it, on each route (after its
    router: the route's handler is known)."""
    return in_framework(service_middleware(app), app)


def service_middleware(app: ASGIApp) -> ASGIApp:
    """The service's own middleware around ``app``, outermost first, on a request routed
    to its handler (the log and metrics are the app's, ``App``, and so is the rate limit
    of a request no handler takes): the rate limits, as the handler says; one reading of
    the headers and the query string (a request on any path, the hot ones too); the hot
    routes answered from their paths (``ByPath``: no text, before the language; the
    Daily Dice feed, the hottest path of the service, answered from its encoded copy, no
    parameters parsed, no dependencies resolved); the language; the hot routes answered
    from their headers (``ByHeaders``: a player's reads) and from their bodies
    (``ByBody``). Each hot route is answered by its own handler's answerer, as its
    ``opt`` names it, and by no other."""
    from_body = answered_from_headers(answered_from_body(app))
    from_path = answered_from_path(language_middleware(from_body))
    return rate_limit_middleware(one_reading_middleware(from_path))
