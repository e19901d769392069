"""Ranks are the same with Redis, without it, after a flush and after a missed write."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import httpx
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.support.clock import FixedClock
from service.support.settings import Settings
from tests.conftest import REDIS_URL, UNREACHABLE_REDIS_URL
from tests.integration.api.helpers import auth, daily_dice, new_player
from tests.runs import run_with_score
from tests.system.test_server import clear_prefix

DAY = "2026-11-25"


@asynccontextmanager
async def app_with(settings: Settings, redis_url: str | None) -> AsyncIterator[httpx.AsyncClient]:
    clock = FixedClock(datetime(2026, 11, 25, 15, 0, tzinfo=UTC))
    app = create_app(msgspec.structs.replace(settings, redis_url=redis_url), clock)
    async with AsyncTestClient(app) as client:
        yield client


async def standings(client: httpx.AsyncClient, players: list[dict[str, str]]) -> list[Any]:
    seen = []
    for player in players:
        mine = await client.get(f"/v1/daily/{DAY}/runs/me", headers=auth(player))
        history = await client.get("/v1/players/me/history", headers=auth(player))
        seen.append((mine.json()["rank"], history.json()[0]["rank"]))
    board = await client.get(f"/v1/daily/{DAY}/leaderboard", headers=auth(players[0]))
    seen.append(board.json())
    return seen


async def test_ranks_agree_across_every_redis_state(settings: Settings, redis_prefix: str) -> None:
    async with app_with(settings, REDIS_URL) as client:
        dice = await daily_dice(client, DAY)
        by_score = run_with_score(dice, set(range(46)))
        scores = sorted(by_score)
        wanted = [scores[0], scores[0], scores[len(scores) // 2], scores[-1], scores[-1]]
        players = [await new_player(client, name=f"R{i}") for i in range(len(wanted))]
        for player, score in zip(players, wanted, strict=True):
            submitted = await client.post(
                f"/v1/daily/{DAY}/runs", json={"moves": by_score[score]}, headers=auth(player)
            )
            assert submitted.status_code == 201
        with_redis = await standings(client, players)
    ranks = [mine for mine, _ in with_redis[:-1]]
    assert ranks[0] == ranks[1] and ranks[3] == ranks[4]  # ties share position and percentile
    assert ranks[0]["position"] < ranks[2]["position"] < ranks[3]["position"]
    assert all(mine == listed for mine, listed in with_redis[:-1])  # history agrees

    clear_prefix(redis_prefix)
    async with app_with(settings, REDIS_URL) as client:
        assert await standings(client, players) == with_redis  # rebuilt after a flush
    async with app_with(settings, None) as client:
        assert await standings(client, players) == with_redis  # PostgreSQL alone
    async with app_with(settings, UNREACHABLE_REDIS_URL) as client:
        assert await standings(client, players) == with_redis  # Redis down

        # A run committed while Redis is down...
        late = await new_player(client, name="Late")
        middle = wanted[2]
        response = await client.post(
            f"/v1/daily/{DAY}/runs", json={"moves": by_score[middle]}, headers=auth(late)
        )
        assert response.status_code == 201
        without_redis = await standings(client, [*players, late])
    # ...counts at once once Redis is back: an open date's ranks are never mirrored.
    async with app_with(settings, REDIS_URL) as client:
        assert await standings(client, [*players, late]) == without_redis
    assert without_redis[-1]["players"] == with_redis[-1]["players"] + 1


@pytest.mark.parametrize("redis_mode", ["redis", "no-redis"], indirect=True)
async def test_a_run_stored_under_an_idempotency_key_counts_at_once(settings: Settings) -> None:
    day = "2026-11-24"  # a date of this test alone (open in UTC until 00:15 on the 25th)
    clock = FixedClock(datetime(2026, 11, 25, 0, 5, tzinfo=UTC))
    async with AsyncTestClient(create_app(settings, clock)) as client:
        dice = await daily_dice(client, day)
        runs = list(run_with_score(dice, set(range(46))).values())
        first, keyed = await new_player(client), await new_player(client)
        played = await client.post(
            f"/v1/daily/{day}/runs", json={"moves": runs[0]}, headers=auth(first)
        )
        assert played.status_code == 201, played.text
        before = (await client.get(f"/v1/daily/{day}/runs/me", headers=auth(first))).json()
        headers = {**auth(keyed), "Idempotency-Key": f"keyed-run-{keyed['id']}"}
        for _ in range(2):  # the key's answer again
            response = await client.post(
                f"/v1/daily/{day}/runs", json={"moves": runs[1]}, headers=headers
            )
            assert response.status_code == 201
        after = (await client.get(f"/v1/daily/{day}/runs/me", headers=auth(first))).json()
    # Stored in the key's transaction: counted once it committed.
    assert after["rank"]["players"] == before["rank"]["players"] + 1
