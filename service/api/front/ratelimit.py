"""Rate limits per bearer token and per client address: token buckets, atomic across
processes in Redis (one Lua script), in-process when Redis is absent or down. A
process takes tokens of a large bucket a few at a time and spends them on the client's
next requests (``TakenAhead``), and lets the first request of a large bucket it has not
seen lately through at once, its token taken in Redis after it (``first_sight``): most
requests are decided without waiting for a round trip.

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
count by network (``limited_as``): an IPv4 address (an IPv4-mapped IPv6 one too), an
IPv6 /64 (``SHUTBOX_RATE_LIMIT_IPV6_PREFIX``), the host's own addresses as one.

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

import asyncio
import hashlib
import ipaddress
import math
import time
from collections.abc import Callable
from typing import Final, cast

import msgspec
from litestar.enums import ScopeType
from litestar.types import ASGIApp, HTTPResponseStartEvent, Receive, Scope, Send

from service.api.front.hot import header
from service.api.front.reading import bearer_token
from service.api.problems import RATE_LIMITED, encoded
from service.caching import LRU, cached
from service.store.batch import Batcher
from service.store.cache import Cache
from service.support.i18n import LANGUAGES, Language, _, current, language_middleware, speaking
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
_LOCAL_KEYS: Final = 100_000
"""Buckets a process keeps of each kind (its own, tokens taken ahead, seen lately): some
100 bytes each, for clients by the hundred thousand."""

# Several requests at once, in order (the requests of one process that arrived together,
# whose keys share a hash slot on a cluster).
# ARGV[1]: one JSON array (one argument to encode, not six a request: redis-py's
# encoding of arguments cost more than the script): how many requests; then for each,
# its number of buckets n and n triples
# (capacity, refill per second, tokens wanted: 1, or more to keep ahead in the process);
# KEYS: the buckets of every request, in the same order. All or nothing per request:
# when every bucket has a token, each gives what is wanted of it, as far as it has;
# when one is empty, none gives anything. Returns for each request the milliseconds
# to wait (0: allowed), then the tokens each of its buckets gave.
_TOKEN_BUCKETS: Final = """
local A = cjson.decode(ARGV[1])
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) + tonumber(now_parts[2]) / 1000000
local answers = {}
local key_at = 1
local arg_at = 2
for r = 1, tonumber(A[1]) do
  local n = tonumber(A[arg_at])
  arg_at = arg_at + 1
  local levels = {}
  local wait_ms = 0
  for i = 0, n - 1 do
    local capacity = tonumber(A[arg_at + 3 * i])
    local rate = tonumber(A[arg_at + 3 * i + 1])
    local state = redis.call('HMGET', KEYS[key_at + i], 'tokens', 'at')
    local tokens = tonumber(state[1]) or capacity
    local at = tonumber(state[2]) or now
    tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
    levels[i] = tokens
    if tokens < 1 then
      wait_ms = math.max(wait_ms, math.ceil((1 - tokens) / rate * 1000))
    end
  end
  local given = {}
  for i = 0, n - 1 do
    local capacity = tonumber(A[arg_at + 3 * i])
    local rate = tonumber(A[arg_at + 3 * i + 1])
    local wanted = tonumber(A[arg_at + 3 * i + 2])
    local tokens = levels[i]
    given[i] = 0
    if wait_ms == 0 then
      given[i] = math.max(1, math.min(wanted, math.floor(tokens)))
      tokens = tokens - given[i]
    end
    redis.call('HSET', KEYS[key_at + i], 'tokens', tokens, 'at', now)
    redis.call('PEXPIRE', KEYS[key_at + i], math.ceil(capacity / rate * 1000) + 1000)
  end
  answers[#answers + 1] = wait_ms
  for i = 0, n - 1 do
    answers[#answers + 1] = given[i]
  end
  key_at = key_at + n
  arg_at = arg_at + 3 * n
end
return answers
"""

_json: Final = msgspec.json.Encoder()

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
ADDRESS_KEPT: Final = 64
"""Characters kept of a client address that is no IP address (a key of its buckets)."""
LOOPBACK: Final = "127.0.0.1"
"""The client the host's own addresses count as (127.0.0.0/8 and ::1: one host)."""


def ip_of(address: str) -> IPAddress | None:
    """An address as the service reads it, or None if it is no IP address. An
    IPv4-mapped IPv6 address (``::ffff:192.0.2.1``: an IPv4 peer of a dual-stack socket)
    is that IPv4 address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def limited_as(address: str, ipv6_prefix: int) -> str:
    """The client whose per-address limits a request from ``address`` counts against:
    an IPv4 address as it is; an IPv6 address by its network of ``ipv6_prefix`` bits (a
    home or a host is given a /64: 2^64 addresses, one client); any address of the host
    itself as ``LOOPBACK``; anything else (no IP: a unix socket, a test client) as given,
    cut to ``ADDRESS_KEPT``."""
    if ":" not in address:  # IPv4, or no IP: read without a parse, as most requests
        return LOOPBACK if address.startswith("127.") else address[:ADDRESS_KEPT]
    ip = ip_of(address)
    if ip is None:
        return address[:ADDRESS_KEPT]
    if ip.is_loopback:
        return LOOPBACK
    if ip.version == 4:
        return str(ip)
    host_bits = 128 - ipv6_prefix
    network = ipaddress.IPv6Address(int(ip) >> host_bits << host_bits)
    return f"{network}/{ipv6_prefix}"


Buckets = list[tuple[str, Limit]]
"""The buckets of one request: (key, limit) each; of one client, in ``RateLimiter.take``
by name (``address``, ``token:<digest>``, ...)."""


class LocalBuckets:
    """The same token buckets in this process only (Redis absent or down)."""

    def __init__(self) -> None:
        # key → (tokens, at): past the bound the least recently used leave (full again).
        self._buckets: LRU[str, tuple[float, float]] = LRU("rate_limit_local_buckets", _LOCAL_KEYS)

    def take(self, buckets: Buckets) -> float:
        """All or nothing, as the Redis script: 0 if allowed, else the seconds to wait."""
        now = time.monotonic()
        levels = []
        wait = 0.0
        for key, limit in buckets:
            found = self._buckets.pop(key)
            tokens, at = found if found is not None else (float(limit.requests), now)
            tokens = min(limit.requests, tokens + (now - at) * limit.rate)
            levels.append(tokens)
            if tokens < 1:
                wait = max(wait, (1 - tokens) / limit.rate)
        for (key, _limit), tokens in zip(buckets, levels):
            self._buckets.put(key, (tokens - (1 if wait == 0 else 0), now))
        return wait


RECONCILE_SECONDS: Final = 0.02
"""How long the tokens of a request let through at first sight may wait to be taken in
Redis, with those of the others let through meanwhile (one script call)."""
AHEAD_SHARE: Final = 64
AHEAD_MOST: Final = 64
AHEAD_SECONDS: Final = 1.0


def ahead(limit: Limit) -> int:
    """Tokens a process asks of a shared bucket at once: one for the request, the rest
    kept for the client's next requests to this process (``TakenAhead``). A 64th of the
    bucket, at most 64: none ahead for a limit under 128 (exact to the request), 18 for
    1200/m. Tokens kept ahead are taken from everyone else: a client can only get fewer
    requests than its limit this way (those another process holds when it is refused,
    for at most ``AHEAD_SECONDS``), never more."""
    return max(1, min(AHEAD_MOST, limit.requests // AHEAD_SHARE))


def seen_for(limit: Limit) -> float:
    """How long a process remembers a bucket it took tokens of (``TakenAhead``): as long
    as Redis keeps it, the time it takes to fill up again (its key's expiry)."""
    return limit.requests / limit.rate + 1.0


class TakenAhead:
    """Tokens this process took from shared buckets ahead of its requests, each key's
    usable until a second after it was taken: most requests of a busy client are
    decided here, without a round trip to Redis. And the buckets it asked Redis about
    lately (``first_sight``)."""

    def __init__(self) -> None:
        # key → (tokens, usable until); past the bound the least recently used go:
        # tokens dropped only refuse early (Redis decides), never late.
        self._held: LRU[str, tuple[int, float]] = LRU("rate_limit_tokens_ahead", _LOCAL_KEYS)
        # key → remembered until, in the order of expiry, roughly; never past the bound
        # (``_room`` forgets only the expired: one unexpired forgotten lets a request by).
        self._seen: LRU[str, float] = LRU("rate_limit_buckets_seen", _LOCAL_KEYS)

    def first_sight(self, buckets: Buckets, now: float) -> Buckets | None:
        """Whether a request may go on before Redis answers: when each of its buckets
        is either held here (``take``) or large (tokens taken ahead) and not seen by
        this process lately. Then its held tokens are spent, and the unseen buckets
        returned, now seen: their tokens are to be taken in Redis after the request.
        Else None, nothing spent: Redis decides first.

        A bucket Redis emptied lets one request more through each process that has
        not seen it for ``seen_for(limit)``: a client's first request to a process is
        not kept waiting for a round trip, and what that costs is bounded."""
        held, seen = self._held, self._seen
        spent: list[str] = []
        unseen: Buckets = []
        for key, limit in buckets:
            found = held.get(key)
            if found is not None and found[1] >= now:
                spent.append(key)
            elif ahead(limit) == 1 or (seen.peek(key) or 0.0) >= now or not self._room(now):
                return None
            else:
                unseen.append((key, limit))
        for key in spent:
            self._spend(key)
        for key, limit in unseen:
            self.seen(key, limit, now)
        return unseen

    def _room(self, now: float) -> bool:
        """Whether one more bucket may be remembered, forgetting the oldest expired."""
        seen = self._seen
        while len(seen) >= seen.bound:
            oldest = seen.oldest()
            if oldest is None:
                break
            if oldest[1] >= now:
                return False  # buckets by the hundred thousand lately: Redis first
            seen.pop(oldest[0])
        return True

    def seen(self, key: str, limit: Limit, now: float) -> None:
        """A bucket asked of Redis now (not a first sight for a while)."""
        if key in self._seen or self._room(now):
            self._seen.put(key, now + seen_for(limit))  # the most recent: expires last

    def _spend(self, key: str) -> None:
        found = self._held.peek(key)
        if found is None:
            return
        tokens, until = found
        if tokens > 1:
            self._held.put(key, (tokens - 1, until))
        else:
            self._held.pop(key)

    def take(self, buckets: Buckets, now: float) -> bool:
        """A token from each bucket if this process holds one of each (all or nothing)."""
        held = self._held
        for key, _limit in buckets:
            found = held.get(key)
            if found is None or found[1] < now:
                return False
        for key, _limit in buckets:
            self._spend(key)
        return True

    def holds(self, key: str, now: float) -> bool:
        found = self._held.peek(key)
        return found is not None and found[1] >= now

    def keep(self, key: str, tokens: int, now: float) -> None:
        if tokens < 1:
            return
        found = self._held.peek(key)
        if found is not None and found[1] >= now:
            tokens += found[0]
        self._held.put(key, (tokens, now + AHEAD_SECONDS))


class RateLimiter:
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
        self.trusted = [ipaddress.ip_network(p, strict=False) for p in trusted_proxies]
        self.local = LocalBuckets()
        self.taken_ahead = TakenAhead()
        self._script = cache.redis.register_script(_TOKEN_BUCKETS) if cache.redis else None
        # The requests of this process that arrive together share one script call per
        # hash slot (one in all on a single Redis).
        self._shared: Batcher[Buckets, float] = Batcher(self._take_shared)

    def client_address(self, scope: Scope) -> str:
        """The address the request comes from, as the connection or a trusted proxy
        gives it (its limits count by ``limited_as`` of it, in ``take``)."""
        peer = (scope.get("client") or ("unknown", 0))[0]
        if not self.trusted or not self._is_trusted(peer):
            return str(peer)
        forwarded = [
            part.strip()
            for name, value in scope["headers"]
            if name == b"x-forwarded-for"
            for part in value.decode("latin-1").split(",")
        ]
        # The nearest address a trusted proxy did not add is the client's.
        for address in reversed(forwarded):
            if not self._is_trusted(address):
                return address
        return str(peer)

    def _is_trusted(self, address: str) -> bool:
        ip = ip_of(address)
        return ip is not None and any(ip in network for network in self.trusted)

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
        0, or the seconds to wait. In Redis while it answers (the same buckets for every
        process), else here. The buckets are those of the address's network
        (``limited_as``), whichever limit asks."""
        if not buckets:
            return 0.0
        base = self.cache.key(limited_as(client, self.ipv6_prefix), "ratelimit", "")
        keyed = [(base + name, limit) for name, limit in buckets]
        if self._script is not None and self.cache.usable:
            unseen = self.taken_ahead.first_sight(keyed, time.monotonic())
            if unseen is None:
                return await self._shared(keyed)
            if unseen:
                # Their tokens, taken after the request, with the others of a moment.
                self._shared.send(unseen, within=RECONCILE_SECONDS)
            return 0.0
        return self.local.take(keyed)

    async def reconciled(self) -> None:
        """Once the tokens of the requests let through so far are taken in Redis."""
        await self._shared.handled()

    async def _take_shared(self, requests: list[Buckets]) -> list[float | Exception]:
        """The Redis buckets of several requests: one script call per hash slot (the
        buckets of a request share one), the calls at once; this process's own buckets
        when Redis fails (the calls that went through keep their tokens taken). A
        bucket this process holds no tokens of is asked for some ahead (``ahead``),
        once in the batch; a request that waited for this batch while the tokens of
        the one before were on their way may find its tokens here by now."""
        script = self._script
        assert script is not None
        now = time.monotonic()
        waits: list[float | Exception] = [0.0] * len(requests)
        by_slot: dict[int, list[int]] = {}
        for at, buckets in enumerate(requests):
            if not self.taken_ahead.take(buckets, now):
                by_slot.setdefault(self.cache.slot(buckets[0][0]), []).append(at)
        if not by_slot:
            return waits
        asked: set[str] = set()

        def wanted(key: str, limit: Limit) -> int:
            if key in asked or self.taken_ahead.holds(key, now):
                return 1
            asked.add(key)
            self.taken_ahead.seen(key, limit, now)
            return ahead(limit)

        async def call(together: list[Buckets]) -> list[int]:
            keys: list[str] = []
            args: list[float] = [len(together)]
            for buckets in together:
                args.append(len(buckets))
                for key, limit in buckets:
                    keys.append(key)
                    args += [limit.requests, limit.rate, wanted(key, limit)]
            answers: list[int] = await script(keys=keys, args=[_json.encode(args)])
            return answers

        groups = [[requests[at] for at in group] for group in by_slot.values()]
        replies = await self.cache.call(lambda _: asyncio.gather(*map(call, groups)))
        if replies is None:
            for group in by_slot.values():
                for at in group:
                    waits[at] = self.local.take(requests[at])
            return waits
        for group, reply in zip(by_slot.values(), replies):
            position = 0
            for at in group:
                waits[at] = int(reply[position]) / 1000
                for key, _limit in requests[at]:
                    position += 1
                    self.taken_ahead.keep(key, int(reply[position]) - 1, now)
                position += 1
        return waits


@cached("too_many_requests", len(LANGUAGES))
def _too_many(language: Language) -> bytes:
    """The 429 problem, in a language."""
    with speaking(language):
        return encoded(
            RATE_LIMITED(
                _("Too many requests from this client; wait as Retry-After says, then retry.")
            )
        )


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
        await language_middleware(_too_many_requests(wait))(scope, receive, send)

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
            await language_middleware(_too_many_requests(wait))(scope, receive, send)

    return middleware


def _too_many_requests(wait: float) -> ASGIApp:
    async def answer(scope: Scope, receive: Receive, send: Send) -> None:
        body = _too_many(current())
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"retry-after", str(max(1, math.ceil(wait))).encode()),
                (b"content-length", str(len(body)).encode()),
            ],
        }
        await send(start)
        await send({"type": "http.response.body", "body": body, "more_body": False})

    return answer
