"""Friends in the store: codes drawn again on a clash, friendships both ways or not at
all, the limit held under concurrent requests, and the board read by key."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import date

import asyncpg
import pytest

from service.store import daily, friends
from service.store.db import QUERIES
from service.support.codes import new_code
from service.usecases import friends as use_cases
from tests.integration.store.test_daily_batch import NOW, new_players

MOST = use_cases.FRIENDS_MOST


async def test_a_taken_friend_code_is_drawn_again(
    pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, other = await new_players(pool, 2)
    taken = await use_cases.new_friend_code(pool, one, NOW)
    fresh = new_code()
    drawn: Iterator[str] = iter([taken, taken, fresh])
    monkeypatch.setattr(use_cases.codes, "new_code", lambda: next(drawn))
    assert await use_cases.new_friend_code(pool, other, NOW) == fresh
    owner = await friends.code_owner(pool, taken)
    assert owner is not None and owner.id == one  # untouched
    owner = await friends.code_owner(pool, fresh)
    assert owner is not None and owner.id == other


async def test_a_friendship_one_way_only_is_refused_by_the_database(pool: asyncpg.Pool) -> None:
    one, other = await new_players(pool, 2)
    with pytest.raises(asyncpg.ForeignKeyViolationError):
        async with pool.acquire() as connection, connection.transaction():
            await connection.execute(
                "INSERT INTO friendships (player_id, friend_id, since) VALUES ($1, $2, $3)",
                one,
                other,
                NOW,
            )
    with pytest.raises(asyncpg.CheckViolationError):
        await pool.execute(QUERIES.insert_friendship, one, one, NOW)
    assert await friends.friends(pool, one) == []


async def test_concurrent_requests_never_pass_the_limit_nor_fail(pool: asyncpg.Pool) -> None:
    """Players one friend short of the limit, each redeemed by several at once (each on a
    connection of its own): one gets in, the others are refused; and pairs befriending
    each other at once make one friendship each."""
    crowd: Counter[str] = Counter()
    for _ in range(3):
        (popular,) = await new_players(pool, 1)
        for fan in await new_players(pool, MOST - 1):
            assert await friends.befriend(pool, fan, popular, NOW, MOST) == "created"
        late = await new_players(pool, 4)
        crowd.update(
            await asyncio.gather(*(friends.befriend(pool, fan, popular, NOW, MOST) for fan in late))
        )
        assert len(await friends.friends(pool, popular)) == MOST
    assert crowd == {"created": 3, "theirs_full": 9}

    for _ in range(10):
        one, other = await new_players(pool, 2)
        both = await asyncio.gather(
            friends.befriend(pool, one, other, NOW, MOST),
            friends.befriend(pool, other, one, NOW, MOST),
        )
        assert sorted(both) == ["already", "created"]
        assert [f.id for f in await friends.friends(pool, one)] == [other]
        assert [f.id for f in await friends.friends(pool, other)] == [one]


@pytest.mark.parametrize("plan", ["force_generic_plan", "force_custom_plan"])
async def test_the_board_reads_its_players_runs_by_key(pool: asyncpg.Pool, plan: str) -> None:
    """The plan of the board looks each player's run up by the key of daily runs (player,
    date), not through the date's runs: its cost is its players', whatever the date's.
    Either plan a prepared statement may keep."""
    day = date(2026, 11, 29)
    await daily.make_partitions(pool, day, day)
    async with pool.acquire() as connection:
        await connection.execute(f"SET plan_cache_mode = {plan}")
        try:
            await connection.execute(f"PREPARE board (uuid, date) AS {QUERIES.friends_board}")
            rows = await connection.fetch(f"EXPLAIN EXECUTE board ('{uuid.uuid4()}', '{day}')")
            await connection.execute("DEALLOCATE board")
        finally:
            await connection.execute("RESET plan_cache_mode")
    shown = "\n".join(row[0] for row in rows)
    assert "Seq Scan" not in shown, shown
    assert "_pkey" in shown and "by_day_score" not in shown, shown
