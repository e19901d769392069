"""The cache: an in-process tier always, Redis behind it when configured.

Redis is an accelerator, never the truth: every Redis error marks it down for a
moment and the caller falls back (to the in-process tier, then PostgreSQL), so
losing Redis loses speed, never data or correctness.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Final, Literal, TypeVar

from litestar.stores.memory import MemoryStore
from litestar.stores.redis import RedisStore
from redis.asyncio import Redis
from redis.exceptions import RedisError

log = logging.getLogger("shutbox.cache")

RETRY_AFTER_SECONDS: Final = 2.0
LOCAL_COPY_SECONDS: Final = 3600
T = TypeVar("T")
RedisState = Literal["up", "down", "not configured"]


class Cache:
    def __init__(self, redis: Redis | None, prefix: str) -> None:
        self.redis = redis
        self.prefix = prefix
        self.local = MemoryStore()
        self.remote = RedisStore(redis, namespace=prefix.rstrip(":")) if redis is not None else None
        self._down_until = 0.0

    @classmethod
    def connect(cls, url: str | None, prefix: str) -> Cache:
        if not url:
            return cls(None, prefix)
        client = Redis.from_url(
            url, socket_timeout=0.5, socket_connect_timeout=0.5, health_check_interval=10
        )
        return cls(client, prefix)

    @property
    def usable(self) -> bool:
        return self.redis is not None and time.monotonic() >= self._down_until

    async def call(self, operation: Callable[[Redis], Awaitable[T]]) -> T | None:
        """Run a Redis operation; None when Redis is absent, down or failing. Any error
        raised inside is taken for Redis's: keep PostgreSQL out of ``operation``."""
        if self.redis is None or not self.usable:
            return None
        try:
            return await operation(self.redis)
        except (RedisError, OSError) as error:
            if time.monotonic() >= self._down_until:
                log.warning("redis unavailable, falling back", extra={"error": repr(error)})
            self._down_until = time.monotonic() + RETRY_AFTER_SECONDS
            return None

    async def get(self, key: str) -> bytes | None:
        value = await self.local.get(key)
        if value is not None or self.remote is None:
            return value
        remote = self.remote
        value = await self.call(lambda _: remote.get(key))
        if value is not None:
            # A copy from Redis lives in this process no longer than it would in Redis.
            ttl = await self.call(lambda _: remote.expires_in(key))
            await self.local.set(
                key, value, expires_in=ttl if ttl and ttl > 0 else LOCAL_COPY_SECONDS
            )
        return value

    async def set(self, key: str, value: bytes, expires_in: int | None = None) -> None:
        await self.local.set(key, value, expires_in=expires_in)
        if self.remote is not None:
            remote = self.remote
            await self.call(lambda _: remote.set(key, value, expires_in=expires_in))

    async def state(self) -> RedisState:
        """Redis as it answers now (a ping), for readiness checks."""
        if self.redis is None:
            return "not configured"
        try:
            await self.redis.ping()
        except (RedisError, OSError):
            self._down_until = time.monotonic() + RETRY_AFTER_SECONDS
            return "down"
        self._down_until = 0.0
        return "up"

    async def close(self) -> None:
        if self.redis is not None:
            await self.redis.aclose()
