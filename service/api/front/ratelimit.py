"""Rate limits per bearer token and per client address: token buckets, atomic across
processes in Redis, in-process when Redis is absent or down, most of them decided
without waiting for a round trip (the buckets: ``service.store.buckets``).

A limit ``N/m`` lets a client send N requests at once, then N a minute. Every bucket
belongs to a client address (a token's bucket too: a token's limit counts its
requests from each address), so that the buckets of one request share a hash slot
on a Redis Cluster and one script call takes them all or none. Creating a
player, claiming a transfer code and redeeming a friend code have limits per address of
their own, on top: accounts are cheap to make and codes must not be guessed. So does
storing: every operation that can make the database hold rows no other limit bounds
(boxes, series and their runs, official and practice runs, a box's target seen) counts
against one budget per address, ``stores``, which they share: what one address can
make the database hold in a day is bounded (docs/operations.md). The client
address is the connection's peer, or the first address in ``X-Forwarded-For`` not
added by a trusted proxy when the peer is one of ``SHUTBOX_TRUSTED_PROXIES``; its limits
count by network (``service.api.front.addresses``): an IPv4 address (an IPv4-mapped
IPv6 one too), an IPv6 /64 (``SHUTBOX_RATE_LIMIT_IPV6_PREFIX``), the host's own
addresses as one.

What a request counts against is the route the router chose, as its handler declares in
its ``opt`` (``OWN_LIMIT``, ``NOT_LIMITED``), never a path as written: every spelling
the router reads as a route (slashes doubled or added, letters percent-encoded) is
that route's request, and any other is a 404. Every request counts, whatever answers
it: one the router finds no handler for (404, a method it does not take: 405, a host
it refuses: 400) costs its token as well (``unrouted_rate_limit``). Only health,
readiness, the docs, the rules catalogue and the Daily Dice feed of a date (public,
immutable, cacheable) are not limited, each by its handler's word; the metrics are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Final, cast

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send

from service.api.front.addresses import TrustedProxies, limited_as
from service.api.front.answers import too_many_requests
from service.api.front.hot import header
from service.api.front.reading import bearer_token
from service.store.buckets.local import Buckets
from service.store.buckets.shared import TokenBuckets
from service.store.cache import Cache
from service.support.i18n import language_middleware
from service.support.settings import Limit

OWN_LIMIT: Final = "own_limit"
"""A route handler's ``opt``: the limit of its own per client address its requests
count against, on top of the general ones, by its name in ``Settings.operation_limits``
(``accounts``, ``claims``, ``friends``, ``stores``); or a test of the request's routed
scope giving that name, or None where the request stores nothing (``OwnLimit``). One
name, one bucket per address: the handlers that give the same name share it."""
OwnLimit = str | Callable[[Scope], str | None]
STORES: Final = "stores"
"""The own limit every operation that can make the database hold rows no other limit
bounds counts against, one budget per address (``SHUTBOX_RATE_LIMIT_STORES``)."""


def stores_for_a_player(scope: Scope) -> str | None:
    """The ``OWN_LIMIT`` of an operation that stores only for a player: ``STORES`` when
    the request has a bearer token (a practice run is kept), else None (answered, kept
    nowhere)."""
    return STORES if bearer_token(header(scope, b"authorization") or "") else None


NOT_LIMITED: Final = "not_limited"
"""A route handler's ``opt``: its requests are not limited at all: True, or a test of
the request's routed scope (the Daily Dice feed: a path that names a date; anything else
there is a 400 that costs a token). The handler's own: another method on the same path,
or a path under it no handler has, is limited as any request."""
LIMITED: Final = "shutbox.limited"
"""In a scope: the request has been counted (the limits run once a request, wherever
they meet it first)."""


class RateLimiter:
    """The limits of a request (``wait_for``), and of any client address a use case
    names (``take``: the solver's), in the token buckets of the address's network."""

    def __init__(
        self,
        cache: Cache,
        per_address: Limit | None,
        per_token: Limit | None,
        trusted_proxies: list[str],
        per_operation: dict[str, Limit | None] | None = None,
        ipv6_prefix: int = 64,
    ) -> None:
        self.cache = cache
        self.per_address = per_address
        self.per_token = per_token
        self.per_operation = per_operation or {}
        self.ipv6_prefix = ipv6_prefix
        self.proxies = TrustedProxies(trusted_proxies)
        self.buckets = TokenBuckets(cache)

    def client_address(self, scope: Scope) -> str:
        """The address the request comes from, as the connection or a trusted proxy
        gives it (its limits count by ``limited_as`` of it, in ``take``)."""
        return self.proxies.client_address(scope)

    async def wait_for(self, scope: Scope, own: str | None = None) -> float:
        """0 if the request may go on, else the seconds to wait (the longest of its
        limits): the address's, the token's, and ``own``, the limit of its route's own
        (``OWN_LIMIT``) if it has one."""
        buckets: Buckets = []
        if self.per_address is not None:
            buckets.append(("address", self.per_address))
        own_limit = self.per_operation.get(own) if own is not None else None
        if own is not None and own_limit is not None:
            buckets.append((own, own_limit))
        token = bearer_token(header(scope, b"authorization") or "")
        if token and self.per_token is not None:
            digest = hashlib.sha256(token.encode("latin-1")).hexdigest()[:32]
            buckets.append(("token:" + digest, self.per_token))
        return await self.take(self.client_address(scope), buckets)

    async def take(self, client: str, buckets: Buckets) -> float:
        """A token from each of the client address's buckets named here (all or nothing):
        0, or the seconds to wait. The buckets are those of the address's network
        (``limited_as``), whichever limit asks; their keys share a hash slot."""
        if not buckets:
            return 0.0
        base = self.cache.key(limited_as(client, self.ipv6_prefix), "ratelimit", "")
        return await self.buckets.take([(base + name, limit) for name, limit in buckets])

    async def reconciled(self) -> None:
        """Once the tokens of the requests let through so far are taken in Redis."""
        await self.buckets.reconciled()


def rate_limit_middleware(app: ASGIApp) -> ASGIApp:
    """Answer 429 (problem details, Retry-After, in the request's language) to clients
    over their limits, on a request routed to its handler (``scope["route_handler"]``:
    after the framework's router, or on a hot route before the framework), by what the
    handler declares (``OWN_LIMIT``, ``NOT_LIMITED``). Once a request: wherever it
    meets the request first, it marks it ``LIMITED``."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or LIMITED in scope:
            await app(scope, receive, send)
            return
        cast("dict[str, object]", scope)[LIMITED] = True
        opt = scope["route_handler"].opt
        exempt = opt.get(NOT_LIMITED)
        if exempt is not None and (exempt is True or exempt(scope)):
            await app(scope, receive, send)
            return
        own: OwnLimit | None = opt.get(OWN_LIMIT)
        if callable(own):
            own = own(scope)
        wait = await scope["app"].state.services.limiter.wait_for(scope, own)
        if wait <= 0:
            await app(scope, receive, send)
            return
        await language_middleware(too_many_requests(wait))(scope, receive, send)

    return middleware


def unrouted_rate_limit(router: ASGIApp) -> ASGIApp:
    """Around the framework's router: a request it finds no handler for (it raises: 404,
    405, a host it refuses) costs a token as any other, and is answered 429 instead when
    its client is over its limits. A request that reached its handler was counted there
    (``rate_limit_middleware``), whatever it raises."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await router(scope, receive, send)
        except Exception:
            if scope["type"] != ScopeType.HTTP or LIMITED in scope:
                raise
            cast("dict[str, object]", scope)[LIMITED] = True
            wait = await scope["app"].state.services.limiter.wait_for(scope)
            if wait <= 0:
                raise
            await language_middleware(too_many_requests(wait))(scope, receive, send)

    return middleware
