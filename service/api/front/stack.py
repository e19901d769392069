"""The service's own middleware, in its order: the same on both ways a request takes
(before the framework on a hot route, inside it on every other)."""

from __future__ import annotations

from litestar.types import ASGIApp, Receive, Scope, Send

from service.api import problems
from service.api.daily import daily_feed, feed_answer
from service.api.front.answers import send_whole
from service.api.front.hot import hot_posts, in_framework, matched
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
    the headers and the query string (a request on any path, the feed's too); the Daily
    Dice feed (the hottest path, with no text: before the language); the language; the
    hot POSTs."""
    hot = hot_posts(app)
    feed = daily_feed_middleware(language_middleware(hot))
    return rate_limit_middleware(one_reading_middleware(feed))


def daily_feed_middleware(app: ASGIApp) -> ASGIApp:
    """``GET /v1/daily/{date}`` answered from its encoded copy before the handler (no
    parameters parsed, no dependencies resolved: the hottest path of the service).
    Any other request, and a date's problem, goes on to ``DailyController.daily``.
    (Litestar runs app middleware after routing: the route template is set already.)"""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        route, path = matched(scope) or (None, None)
        if route is not None and path is not None and route.answerer is None:
            try:
                feed = await daily_feed(scope["app"].state.services, path[1])
            except problems.ANSWERED:
                pass
            else:
                await send_whole(send, *feed_answer(feed, scope))
                return
        await app(scope, receive, send)

    return middleware
