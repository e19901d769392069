"""Ranks of a date's official runs: PostgreSQL is the truth, a Redis sorted set per date
accelerates the counts.

The sorted set of a date is trusted only while its marker holds the date's current
epoch (a row in PostgreSQL, 0 by default). The marker is written after a full
rebuild from PostgreSQL; a process that commits a run but cannot add it to Redis
bumps the epoch, so every process rebuilds before trusting the set again. Set and
marker expire after ten minutes, so even a process that dies between its commit
and its Redis write leaves drift for ten minutes at most. Rebuilds only add, never
delete, so a rebuild racing a new run loses nothing. Without Redis the counts come
from PostgreSQL; the answers are the same either way.
"""

from __future__ import annotations

import uuid
from datetime import date
from typing import Final

import asyncpg
import msgspec
from redis.asyncio import Redis

from service.store.cache import Cache
from service.store.db import QUERIES, Connection, Database

TTL_SECONDS: Final = 600
_CHUNK: Final = 1000


class Rank(msgspec.Struct, frozen=True):
    """A player's position on a date (ties share it), out of how many players, and
    the share of the date's players with a worse score (percent)."""

    position: int
    players: int
    percentile: float


def rank_from(better: int, worse: int, players: int) -> Rank:
    return Rank(
        position=better + 1,
        players=players,
        percentile=round(100 * worse / players, 2) if players else 0.0,
    )


class Leaderboards:
    def __init__(self, pool: asyncpg.Pool, cache: Cache) -> None:
        self.pool = pool
        self.cache = cache

    def _keys(self, day: date) -> tuple[str, str]:
        base = f"{self.cache.prefix}leaderboard:{day.isoformat()}"
        return base, base + ":epoch"

    async def counts(
        self,
        day: date,
        score: int,
        connection: Connection | None = None,
        epoch: int | None = None,
    ) -> tuple[int, int, int]:
        """(better, worse, players) among the date's stored runs (``epoch``: the date's
        leaderboard epoch, when the caller has read it already)."""
        database: Database = connection or self.pool
        if self.cache.usable:
            if epoch is None:
                epoch = await database.fetchval(QUERIES.leaderboard_epoch, day)
            assert epoch is not None
            found = await self.cache.call(
                lambda redis: self._redis_counts(redis, database, day, score, epoch)
            )
            if found is not None:
                return found
        row = await database.fetchrow(QUERIES.rank_counts, day, score)
        assert row is not None
        return row["better"], row["worse"], row["players"]

    async def rank(self, day: date, score: int) -> Rank:
        """The rank of a stored run of ``day`` with this score, as it stands now."""
        return rank_from(*await self.counts(day, score))

    async def record(
        self, day: date, player_id: uuid.UUID, score: int, database: Database | None = None
    ) -> None:
        """Add a run just committed to PostgreSQL to the Redis set of its date; when
        that fails, bump the date's epoch so that no process trusts the set as it is."""
        if self.cache.redis is None:
            return
        board, _ = self._keys(day)
        added = await self.cache.call(lambda redis: redis.zadd(board, {str(player_id): score}))
        if added is None:
            await (database or self.pool).execute(QUERIES.bump_leaderboard_epoch, day)

    async def _redis_counts(
        self, redis: Redis, database: Database, day: date, score: int, epoch: int
    ) -> tuple[int, int, int]:
        # ``database`` is the caller's connection inside a transaction: taking a second
        # one from the pool there could wait forever on a pool its peers have drained.
        board, built_at = self._keys(day)
        async with redis.pipeline(transaction=False) as pipe:
            pipe.get(built_at)
            pipe.zcount(board, "-inf", f"({score}")
            pipe.zcount(board, f"({score}", "+inf")
            pipe.zcard(board)
            built, better, worse, players = await pipe.execute()
        if built is not None and int(built) == epoch:
            return better, worse, players
        rows = await database.fetch(QUERIES.day_scores, day)
        for start in range(0, len(rows), _CHUNK):
            chunk = rows[start : start + _CHUNK]
            await redis.zadd(board, {str(r["player_id"]): r["score"] for r in chunk})
        async with redis.pipeline(transaction=True) as pipe:
            pipe.expire(board, TTL_SECONDS + 60)
            pipe.set(built_at, str(epoch), ex=TTL_SECONDS)
            await pipe.execute()
        scores = [r["score"] for r in rows]
        return (
            sum(s < score for s in scores),
            sum(s > score for s in scores),
            len(scores),
        )
