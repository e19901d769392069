"""The cache: an in-process tier always, Redis behind it when configured.

Redis is an accelerator, never the truth: every Redis error marks it down for a
moment and the caller falls back (to the in-process tier, then PostgreSQL), so
losing Redis loses speed, never data or correctness.

``REDIS_URL`` names one Redis (``redis://``, ``rediss://``) or a Redis Cluster
(``redis+cluster://``, ``rediss+cluster://``: any of its nodes; the client finds the
others). On a cluster a command, script or transaction may only touch keys of one
hash slot: keys that must go together are made with ``Cache.key`` under one tag.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Final, Literal, TypeAlias, TypeVar

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException, RedisError

from service.caching import LRU

log = logging.getLogger("shutbox.cache")

RETRY_AFTER_SECONDS: Final = 2.0
LOCAL_COPY_SECONDS: Final = 3600
LOCAL_COPIES_KEPT: Final = 10_000
"""Values the in-process tier keeps (an issued sequence, a closed date's histogram: some
hundreds of bytes each): the sequences and dates played within their hour, and more."""
T = TypeVar("T")
RedisState = Literal["up", "down", "not configured"]
RedisClient: TypeAlias = Redis | RedisCluster
# A cluster client raises RedisClusterException (not a RedisError) when no node answers.
REDIS_FAILURES: Final = (RedisError, RedisClusterException, OSError)
CLUSTER_SCHEMES: Final = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def connect_redis(url: str) -> RedisClient:
    """A client of the Redis, or of the Redis Cluster (``redis+cluster://``), at ``url``."""
    scheme, _, rest = url.partition("://")
    if scheme.lower() in CLUSTER_SCHEMES:
        return RedisCluster.from_url(
            f"{CLUSTER_SCHEMES[scheme.lower()]}://{rest}",
            socket_timeout=0.5,
            socket_connect_timeout=0.5,
            health_check_interval=10,
            # No bound per node, as a single Redis's pool: a request past the cluster
            # client's default 100 would fail, and read as Redis being down.
            max_connections=2**31,
            # Fail fast, as with one Redis: retries (each rereading the cluster's layout)
            # would hold a request for seconds on a node that hangs; the cache falls back
            # and tries Redis again a moment later, the layout reread then.
            retry=Retry(NoBackoff(), retries=0),
        )
    return Redis.from_url(
        url,
        socket_timeout=0.5,
        socket_connect_timeout=0.5,
        health_check_interval=10,
        # A pooled connection that Redis closed (a restart, a killed client) fails on its
        # next command: try that command once more, at once, on a new connection, rather
        # than read Redis as down. A timeout is not retried: it already cost 0.5 s.
        retry=Retry(NoBackoff(), retries=1, supported_errors=(RedisConnectionError,)),
    )


class LocalCopies:
    """The in-process tier: the values set or read lately, each until it expires (as
    long as Redis keeps it), the ``LOCAL_COPIES_KEPT`` most recently used."""

    def __init__(self) -> None:
        # key → (value, expires at on the monotonic clock; None: never)
        self._copies: LRU[str, tuple[bytes, float | None]] = LRU(
            "cache_local_copies", LOCAL_COPIES_KEPT
        )

    async def get(self, key: str) -> bytes | None:
        found = self._copies.get(key)
        if found is None:
            return None
        value, until = found
        if until is not None and until <= time.monotonic():
            self._copies.pop(key)
            return None
        return value

    async def set(self, key: str, value: bytes, expires_in: int | None = None) -> None:
        until = None if expires_in is None else time.monotonic() + expires_in
        self._copies.put(key, (value, until))

    async def delete(self, key: str) -> None:
        self._copies.pop(key)

    async def expires_in(self, key: str) -> int | None:
        """The whole seconds ``key``'s copy has left (None: no copy, or one for good)."""
        found = self._copies.peek(key)
        if found is None or found[1] is None:
            return None
        left = found[1] - time.monotonic()
        return math.ceil(left) if left > 0 else None

    async def delete_expired(self) -> None:
        """Forget the expired copies (housekeeping: each is forgotten when read, too)."""
        now = time.monotonic()
        for key in self._copies:
            found = self._copies.peek(key)
            if found is not None and found[1] is not None and found[1] <= now:
                self._copies.pop(key)


class Cache:
    def __init__(self, redis: RedisClient | None, prefix: str) -> None:
        self.redis = redis
        self.prefix = prefix
        self.local = LocalCopies()
        self._down_until = 0.0
        # Asked of every rate-limited request; the cluster client's class answers
        # ``isinstance`` slowly (its bases are protocols).
        self.clustered = isinstance(redis, RedisCluster)

    @classmethod
    def connect(cls, url: str | None, prefix: str) -> Cache:
        return cls(connect_redis(url) if url else None, prefix)

    def key(self, tag: str, *parts: str) -> str:
        """The Redis key ``<prefix>{<tag>}:<parts>``: keys of one tag share a hash slot,
        so that one script or transaction may touch them all on a Redis Cluster (a
        date's keys: the ISO date; a client's rate limits: its address). A whole key,
        for commands sent through ``call``; ``get``, ``set`` and ``delete`` take keys
        below the prefix."""
        # Redis hashes the text between the first "{" and the next "}" (the prefix has
        # no braces: see Settings), so the tag may hold none and may not be empty.
        tag = tag.replace("{", "(").replace("}", ")") or "-"
        return f"{self.prefix}{{{tag}}}:" + ":".join(parts)

    def slot(self, key: str) -> int:
        """The hash slot of a whole key on a cluster; 0 on one Redis (one place for all)."""
        return key_slot(key.encode()) if self.clustered else 0

    def _remote_key(self, key: str) -> str:
        return f"{self.prefix.rstrip(':')}:{key}"

    @property
    def usable(self) -> bool:
        return self.redis is not None and time.monotonic() >= self._down_until

    async def call(self, operation: Callable[[RedisClient], Awaitable[T]]) -> T | None:
        """Run a Redis operation; None when Redis is absent, down or failing. Any error
        raised inside is taken for Redis's: keep PostgreSQL out of ``operation``."""
        if self.redis is None or not self.usable:
            return None
        try:
            await _find_nodes(self.redis)
            return await operation(self.redis)
        except REDIS_FAILURES as error:
            if time.monotonic() >= self._down_until:
                log.warning("redis unavailable, falling back", extra={"error": repr(error)})
            self._down_until = time.monotonic() + RETRY_AFTER_SECONDS
            return None

    async def get(self, key: str) -> bytes | None:
        value = await self.local.get(key)
        if value is not None or self.redis is None:
            return value
        found = await self.call(lambda redis: _get_with_ttl(redis, self._remote_key(key)))
        if found is None:
            return None
        value, ttl = found
        if value is not None:
            # A copy from Redis lives in this process no longer than it would in Redis.
            await self.local.set(key, value, expires_in=ttl if ttl > 0 else LOCAL_COPY_SECONDS)
        return value

    async def set(self, key: str, value: bytes, expires_in: int | None = None) -> None:
        await self.local.set(key, value, expires_in=expires_in)
        if self.redis is not None:
            await self.call(lambda redis: redis.set(self._remote_key(key), value, ex=expires_in))

    async def delete(self, key: str) -> None:
        await self.local.delete(key)
        if self.redis is not None:
            await self.call(lambda redis: redis.delete(self._remote_key(key)))

    async def state(self) -> RedisState:
        """Redis as it answers now (a ping), for readiness checks."""
        if self.redis is None:
            return "not configured"
        try:
            try:
                await self._ping(self.redis)
            except RedisConnectionError:
                # A connection Redis closed (a node restarted): the cluster's client does
                # not retry (see connect_redis), so ask once more, on a new connection.
                await self._ping(self.redis)
        except REDIS_FAILURES:
            self._down_until = time.monotonic() + RETRY_AFTER_SECONDS
            return "down"
        self._down_until = 0.0
        return "up"

    @staticmethod
    async def _ping(redis: RedisClient) -> None:
        await _find_nodes(redis)
        if isinstance(redis, RedisCluster):  # up: every primary answers
            await redis.ping(target_nodes=RedisCluster.PRIMARIES)
        else:
            await redis.ping()

    async def close(self) -> None:
        if self.redis is not None:
            await self.redis.aclose()


async def _find_nodes(redis: RedisClient) -> None:
    """A cluster client's map of the nodes and slots, read now if it has none (first use,
    or after a failure): commands that read it for themselves, several at once, break
    each other's connections (redis-py 8.1)."""
    if isinstance(redis, RedisCluster):
        await redis.initialize()


async def _get_with_ttl(redis: RedisClient, key: str) -> tuple[bytes | None, int]:
    """A value and its seconds to live (negative: none), in one round trip."""
    async with redis.pipeline(transaction=False) as pipe:
        pipe.get(key)
        pipe.ttl(key)
        value, ttl = await pipe.execute()
    return value, int(ttl)
