"""Ranks of a date's official runs: PostgreSQL is the truth, a Redis sorted set per date
accelerates the counts.

The sorted set of a date is trusted only while its marker holds the date's current
epoch (a row in PostgreSQL, 0 by default). A process that commits a run but cannot
add it to Redis bumps the epoch, so no process trusts the set as it is. Set and
marker expire after ten minutes, so even a process that dies between its commit and
its Redis write leaves drift for ten minutes at most.

A missing or stale marker is checked before the set is rebuilt: members are only
ever added, and only after their run is committed, so a set holds every run of the
date exactly when it has as many members as PostgreSQL has runs, counted after the
set (runs committed meanwhile only make PostgreSQL's count larger). Then the marker
is written again; otherwise the set is rebuilt from PostgreSQL. Rebuilds only add,
never delete, so a rebuild racing a new run loses nothing. Without Redis the counts
come from PostgreSQL; the answers are the same either way.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Collection
from datetime import date
from typing import Final

import asyncpg
import msgspec
from redis.asyncio import Redis

from service.store.cache import Cache
from service.store.db import QUERIES, Connection, Database

log = logging.getLogger("shutbox.ranks")

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


Counts = tuple[int, int, int]
"""(better, worse, players): runs of a date below and above a score, and all of them."""


class DayCounts:
    """The counts of a date's stored runs around some scores, and of the runs a batch
    adds on top of them, in order."""

    def __init__(self, stored: dict[int, Counts]) -> None:
        self._stored = stored
        self._added: list[int] = []

    def of(self, score: int) -> Counts:
        """Among the stored runs."""
        return self._stored[score]

    def before_adding(self, score: int) -> Counts:
        """Among the stored runs and those added so far; then this one is added."""
        better, worse, players = self._stored[score]
        better += sum(added < score for added in self._added)
        worse += sum(added > score for added in self._added)
        players += len(self._added)
        self._added.append(score)
        return better, worse, players


def _from_histogram(histogram: dict[int, int], scores: Collection[int]) -> dict[int, Counts]:
    players = sum(histogram.values())
    counts = {}
    for score in scores:
        better = sum(n for s, n in histogram.items() if s < score)
        worse = sum(n for s, n in histogram.items() if s > score)
        counts[score] = (better, worse, players)
    return counts


class Leaderboards:
    def __init__(self, pool: asyncpg.Pool, cache: Cache) -> None:
        self.pool = pool
        self.cache = cache

    def _keys(self, day: date) -> tuple[str, str]:
        base = f"{self.cache.prefix}leaderboard:{day.isoformat()}"
        return base, base + ":epoch"

    async def counts_of(
        self, day: date, scores: Collection[int], connection: Connection | None = None
    ) -> DayCounts:
        """The counts around each of ``scores`` among the date's stored runs."""
        database: Database = connection or self.pool
        if self.cache.usable:
            found = await self._redis_counts(database, day, scores)
            if found is not None:
                return DayCounts(found)
        rows = await database.fetch(QUERIES.day_histogram, day)
        return DayCounts(_from_histogram({r["score"]: r["players"] for r in rows}, scores))

    async def rank(self, day: date, score: int) -> Rank:
        """The rank of a stored run of ``day`` with this score, as it stands now."""
        return rank_from(*(await self.counts_of(day, (score,))).of(score))

    async def record_all(self, runs: list[tuple[date, uuid.UUID, int]]) -> None:
        """Add runs just committed to PostgreSQL, (date, player, score) each, to the Redis
        sets of their dates (never before the commit: a member whose run was rolled
        back would hide a missing one from the check above); when that fails, bump
        those dates' epochs so that no process trusts their sets as they are."""
        if self.cache.redis is None or not runs:
            return
        by_day: dict[date, dict[str, int]] = {}
        for day, player_id, score in runs:
            by_day.setdefault(day, {})[str(player_id)] = score

        async def add(redis: Redis) -> bool:
            async with redis.pipeline(transaction=False) as pipe:
                for day, scores in by_day.items():
                    pipe.zadd(self._keys(day)[0], scores)
                await pipe.execute()
            return True

        if await self.cache.call(add) is None:
            try:
                # In date order: two processes bumping the same dates never deadlock.
                await self.pool.execute(QUERIES.bump_leaderboard_epochs, sorted(by_day))
            except Exception:
                # The runs are stored; the check finds the sets short when their
                # markers expire, and rebuilds them then.
                log.warning("could not bump leaderboard epochs", exc_info=True)

    async def _mark_built(self, redis: Redis, day: date, epoch: int) -> None:
        """The set of ``day`` holds every run as of ``epoch``: trust it for a while."""
        board, built_at = self._keys(day)
        async with redis.pipeline(transaction=True) as pipe:
            pipe.expire(board, TTL_SECONDS + 60)
            pipe.set(built_at, str(epoch), ex=TTL_SECONDS)
            await pipe.execute()

    async def _redis_counts(
        self, database: Database, day: date, scores: Collection[int]
    ) -> dict[int, Counts] | None:
        """The counts from the date's Redis set, checked against PostgreSQL (and the set
        rebuilt from it when short); None when Redis fails. Only the Redis steps run in
        ``cache.call``: an error of the database is the database's (a 503), and never
        marks Redis down; an error of Redis is Redis's, and never fails the request."""
        # ``database`` is the caller's connection inside a transaction: taking a second
        # one from the pool there could wait forever on a pool its peers have drained.
        epoch = await database.fetchval(QUERIES.leaderboard_epoch, day)
        ordered = list(scores)
        read = await self.cache.call(lambda redis: self._read_counts(redis, day, ordered))
        if read is None:
            return None
        built, players, counts = read
        if built == epoch:
            return counts
        # Counted after the set was read: equal means the set misses no run.
        if players == await database.fetchval(QUERIES.day_run_count, day):
            await self.cache.call(lambda redis: self._mark_built(redis, day, epoch))
            return counts
        rows = await database.fetch(QUERIES.day_scores, day)
        await self.cache.call(lambda redis: self._rebuild(redis, day, epoch, rows))
        histogram: dict[int, int] = {}
        for row in rows:
            histogram[row["score"]] = histogram.get(row["score"], 0) + 1
        return _from_histogram(histogram, scores)

    async def _read_counts(
        self, redis: Redis, day: date, scores: list[int]
    ) -> tuple[int | None, int, dict[int, Counts]]:
        """The epoch the set of ``day`` was built at (None: unknown), its size, and the
        counts around each score, at one moment."""
        board, built_at = self._keys(day)
        async with redis.pipeline(transaction=True) as pipe:
            pipe.get(built_at)
            pipe.zcard(board)
            for score in scores:
                pipe.zcount(board, "-inf", f"({score}")
                pipe.zcount(board, f"({score}", "+inf")
            built, players, *around = await pipe.execute()
        counts = {
            score: (around[2 * i], around[2 * i + 1], players) for i, score in enumerate(scores)
        }
        return (None if built is None else int(built)), players, counts

    async def _rebuild(
        self, redis: Redis, day: date, epoch: int, rows: list[asyncpg.Record]
    ) -> None:
        """Add every run of ``day`` (rows of ``day_scores``) to its set, then trust it."""
        board, _ = self._keys(day)
        for start in range(0, len(rows), _CHUNK):
            chunk = rows[start : start + _CHUNK]
            await redis.zadd(board, {str(r["player_id"]): r["score"] for r in chunk})
        await self._mark_built(redis, day, epoch)
