"""The service with ``REDIS_URL`` naming a Redis Cluster (``redis+cluster://``): readiness
and the ordinary flows of a player, with every Redis path taken on the cluster (none
falls back to this process). The cache, rate limits and solver budgets on a cluster
are tested beside their single-Redis cases (``on_redis_cluster_too``)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from redis.asyncio.cluster import RedisCluster

from service.rules.dice import daily_sequence_id
from service.store import sequences
from service.store.cache import Cache
from service.support.settings import Settings
from tests.conftest import NOW
from tests.integration.api.helpers import auth, daily_dice, new_player
from tests.runs import legal_run

pytestmark = pytest.mark.parametrize("redis_mode", ["redis-cluster"], indirect=True)

TODAY = NOW.date()


def cache_of(client: httpx.AsyncClient) -> Cache:
    cache: Cache = client.app.state.services.cache  # type: ignore[attr-defined]
    return cache


async def test_readiness_reports_the_cluster_up(client: httpx.AsyncClient) -> None:
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "database": "up", "redis": "up"}
    assert cache_of(client).clustered


async def test_a_player_plays_the_daily_dice_and_a_friend_box_on_a_cluster(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    player = await new_player(client, time_zone="UTC")
    assert (await client.get("/v1/players/me", headers=auth(player))).status_code == 200

    day = TODAY.isoformat()
    dice = await daily_dice(client, day)
    assert await daily_dice(client, day) == dice  # the second time from the cache
    moves = legal_run(dice)
    submitted = await client.post(
        f"/v1/daily/{day}/runs", json={"moves": moves}, headers=auth(player)
    )
    assert submitted.status_code == 201, submitted.text
    again = await client.post(f"/v1/daily/{day}/runs", json={"moves": moves}, headers=auth(player))
    assert again.status_code == 200
    mine = await client.get(f"/v1/daily/{day}/runs/me", headers=auth(player))
    assert mine.status_code == 200
    assert mine.json()["rank"]["players"] >= 1
    board = await client.get(f"/v1/daily/{day}/leaderboard", headers=auth(player))
    assert board.status_code == 200
    assert board.json()["players"] == mine.json()["rank"]["players"]

    box = (await client.post("/v1/boxes", json={}, headers=auth(player))).json()
    friend = await new_player(client, time_zone="UTC")
    seen = await client.get(f"/v1/boxes/{box['code']}")
    assert seen.status_code == 200
    box_dice = tuple((a, b) for a, b in seen.json()["dice"])
    box_moves: list[Any] = legal_run(box_dice)
    for someone in (player, friend):
        run = await client.post(
            f"/v1/boxes/{box['code']}/runs", json={"moves": box_moves}, headers=auth(someone)
        )
        assert run.status_code == 201, run.text
    results = await client.get(f"/v1/boxes/{box['code']}/results", headers=auth(player))
    assert [r["score"] for r in results.json()] == [run.json()["score"]] * 2

    cache = cache_of(client)
    assert cache.usable  # no Redis call failed on the way
    # The day's dice are in the cluster, for every process to share.
    assert settings.redis_url is not None
    cluster = RedisCluster.from_url(settings.redis_url.replace("redis+cluster", "redis", 1))
    try:
        prefix = settings.redis_prefix.rstrip(":")
        keys = [f"{prefix}:{sequences.cache_key(daily_sequence_id(TODAY))}"]
        assert await cluster.exists(keys[0]) == 1
        keys.append(f"{prefix}:{{{TODAY}}}:histogram")  # the date's rank mirror (2 s)
        # The keys of one date share a hash tag, so a slot.
        assert len({cluster.keyslot(key) for key in keys}) == 1
    finally:
        await cluster.aclose()
