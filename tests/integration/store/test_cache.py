"""The cache: an in-process tier in front of Redis, and Redis failures never surface."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from redis.asyncio import Redis, RedisCluster

from service.store.cache import Cache, RedisClient
from service.support.settings import Settings, SettingsError
from tests.conftest import UNREACHABLE_REDIS_URL

UNREACHABLE_CLUSTER_URL = "redis+cluster://127.0.0.1:1"  # nothing listens on port 1


async def test_a_copy_from_redis_expires_in_this_process_too(shared_redis_url: str) -> None:
    prefix = f"shutbox-test-cache-{secrets.token_hex(4)}:"
    writer = Cache.connect(shared_redis_url, prefix)
    reader = Cache.connect(shared_redis_url, prefix)
    try:
        assert await writer.state() == "up"
        await writer.set("dice", b"3,4", expires_in=60)
        assert await reader.get("dice") == b"3,4"  # from Redis...
        remaining = await reader.local.expires_in("dice")  # ...kept locally, not forever
        assert remaining is not None and 0 < remaining <= 60
        await writer.delete("dice")
        await reader.local.delete("dice")
        assert await reader.get("dice") is None  # gone from Redis too
        assert writer.usable and reader.usable  # no fallback on the way
    finally:
        await writer.close()
        await reader.close()


async def test_connections_redis_closed_are_replaced_not_read_as_redis_down(
    shared_redis_url: str,
) -> None:
    """A restart of Redis closes every pooled connection: the next command on each must
    find Redis up (readiness, the cache), not fail once and fall back."""
    cache = Cache.connect(shared_redis_url, f"shutbox-test-cache-{secrets.token_hex(4)}:")
    try:
        closed = await close_pooled_connections(cache)
        assert closed > 1  # several pooled connections
        assert [await cache.state() for _ in range(closed)] == ["up"] * closed
        if not cache.clustered:  # one Redis's client retries every command once
            await close_pooled_connections(cache)
            await cache.set("k", b"v")
            await cache.local.delete("k")
            assert await cache.get("k") == b"v" and cache.usable
    finally:
        await cache.close()


async def close_pooled_connections(cache: Cache) -> int:
    """Opens several connections to each of the cache's Redis nodes, then has each node
    close them, as a restart would; only these: the machine's Redis serves other tests."""
    redis = cache.redis
    assert redis is not None
    if isinstance(redis, RedisCluster):
        await redis.initialize()
    nodes: list[tuple[str, int, Any]] = (
        [(node.host, node.port, node) for node in redis.get_primaries()]
        if isinstance(redis, RedisCluster)
        else [(redis.connection_pool.connection_kwargs["host"],
               redis.connection_pool.connection_kwargs["port"], None)]
    )  # fmt: skip
    closed = 0
    for host, port, node in nodes:
        options = {"target_nodes": node} if node is not None else {}
        ids = await asyncio.gather(
            *(redis.execute_command("CLIENT ID", **options) for _ in range(4))
        )
        async with Redis(host=host, port=port) as killer:
            for connection in set(ids):
                closed += await killer.client_kill_filter(_id=connection)
    return closed


@pytest.mark.parametrize("url", [None, UNREACHABLE_REDIS_URL, UNREACHABLE_CLUSTER_URL])
async def test_without_redis_the_cache_still_answers(url: str | None) -> None:
    cache = Cache.connect(url, "t:")
    try:
        await cache.set("k", b"v")
        assert await cache.get("k") == b"v"
        assert await cache.get("missing") is None
        await cache.delete("k")
        assert await cache.get("k") is None
        assert await cache.state() == ("not configured" if url is None else "down")
    finally:
        await cache.close()


@pytest.mark.parametrize(
    ("url", "clustered"),
    [
        ("redis://127.0.0.1:6379/0", False),
        ("rediss://127.0.0.1:6380", False),
        ("redis+cluster://127.0.0.1:7000", True),
        ("rediss+cluster://127.0.0.1:7000", True),
    ],
)
async def test_a_redis_cluster_is_named_by_its_scheme(url: str, clustered: bool) -> None:
    cache = Cache.connect(url, "t:")  # clients connect on first use
    try:
        assert cache.clustered is clustered
    finally:
        await cache.close()


async def test_keys_of_one_tag_share_a_hash_slot_on_a_cluster(redis_cluster_url: str) -> None:
    prefix = f"shutbox-test-cache-{secrets.token_hex(4)}:"
    cache = Cache.connect(redis_cluster_url, prefix)
    board, epoch = cache.key("2026-07-01", "board"), cache.key("2026-07-01", "board", "epoch")
    assert board == prefix + "{2026-07-01}:board"
    assert cache.slot(board) == cache.slot(epoch)
    assert len({cache.slot(cache.key(f"2026-07-{day:02}", "board")) for day in (1, 2, 3)}) == 3
    # A tag that holds braces stays one tag.
    odd = [cache.key("}{x", part) for part in ("a", "b")]
    assert cache.slot(odd[0]) == cache.slot(odd[1])
    try:
        # One transaction over the keys of a tag: on a cluster, only keys of one slot may.
        async def both(redis: RedisClient) -> list[object]:
            async with redis.pipeline(transaction=True) as pipe:
                pipe.set(board, b"7", ex=60)
                pipe.set(epoch, b"1", ex=60)
                pipe.get(board)
                pipe.get(epoch)
                result: list[object] = await pipe.execute()
                return result

        assert await cache.call(both) == [True, True, b"7", b"1"]
    finally:
        await cache.close()


def test_a_redis_prefix_with_braces_stops_the_start() -> None:
    # A brace in the prefix would take the place of the keys' own hash tags.
    with pytest.raises(SettingsError, match="prefix"):
        Settings.from_env({"SHUTBOX_REDIS_PREFIX": "shutbox{1}:"})
