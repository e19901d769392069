"""The cache: an in-process tier in front of Redis, and Redis failures never surface."""

from __future__ import annotations

import secrets

import pytest

from service.store.cache import Cache
from tests.conftest import REDIS_URL, UNREACHABLE_REDIS_URL


async def test_a_copy_from_redis_expires_in_this_process_too() -> None:
    prefix = f"shutbox-test-cache-{secrets.token_hex(4)}:"
    writer, reader = Cache.connect(REDIS_URL, prefix), Cache.connect(REDIS_URL, prefix)
    try:
        await writer.set("dice", b"3,4", expires_in=60)
        assert await reader.get("dice") == b"3,4"  # from Redis...
        remaining = await reader.local.expires_in("dice")  # ...kept locally, not forever
        assert remaining is not None and 0 < remaining <= 60
    finally:
        assert writer.redis is not None
        await writer.redis.delete(f"{prefix.rstrip(':')}:dice")
        await writer.close()
        await reader.close()


@pytest.mark.parametrize("url", [None, UNREACHABLE_REDIS_URL])
async def test_without_redis_the_cache_still_answers(url: str | None) -> None:
    cache = Cache.connect(url, "t:")
    try:
        await cache.set("k", b"v")
        assert await cache.get("k") == b"v"
        assert await cache.get("missing") is None
        assert await cache.state() == ("not configured" if url is None else "down")
    finally:
        await cache.close()
