"""An error is put down to the dependency it came from: a PostgreSQL error never marks
Redis down, a Redis error never fails a request, and a statement the database timed out
is a 503 of its own."""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, date, datetime
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.store.cache import Cache
from service.store.db import MIGRATION_LOCK, QUERIES, create_pool, migrate
from service.store.ranks import Histograms
from service.support.clock import FixedClock, SystemClock
from service.support.settings import Settings
from tests.conftest import REDIS_URL, UNREACHABLE_REDIS_URL

DAY = date(2026, 10, 1)


class BrokenSocket:
    """A connection whose socket breaks on one query (as a PostgreSQL restart does)."""

    def __init__(self, connection: Any, broken_query: str) -> None:
        self.connection = connection
        self.broken_query = broken_query

    async def fetchval(self, query: str, *args: Any) -> Any:
        if query == self.broken_query:
            raise ConnectionResetError(104, "Connection reset by peer")
        return await self.connection.fetchval(query, *args)

    async def fetch(self, query: str, *args: Any) -> Any:
        if query == self.broken_query:
            raise ConnectionResetError(104, "Connection reset by peer")
        return await self.connection.fetch(query, *args)


async def test_errors_in_a_rank_count_stay_with_their_dependency(pool: asyncpg.Pool) -> None:
    # PostgreSQL's socket breaks while the date's histogram is read (none mirrored yet):
    # the request sees the database's error; Redis is not marked down.
    cache = Cache.connect(REDIS_URL, f"shutbox-test-ranks-{secrets.token_hex(4)}:")
    try:
        async with pool.acquire() as connection:
            broken = BrokenSocket(connection, QUERIES.day_histograms)
            histograms = Histograms(broken, cache, SystemClock())  # type: ignore[arg-type]
            with pytest.raises(ConnectionResetError):
                await histograms.rank(DAY, 5)
        assert cache.usable, "a PostgreSQL error marked Redis down"
        assert await cache.state() == "up"
    finally:
        await cache.close()

    # Redis fails instead: the counts come from PostgreSQL, and only Redis is marked down.
    cache = Cache.connect(UNREACHABLE_REDIS_URL, "t:")
    try:
        histograms = Histograms(pool, cache, SystemClock())
        assert cache.usable  # not known to be down yet
        assert (await histograms.rank(DAY, 5)).players == 0
        assert not cache.usable
    finally:
        await cache.close()


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_a_statement_timeout_is_a_503_of_its_own(
    settings: Settings, database_url: str
) -> None:
    app = create_app(
        msgspec.structs.replace(settings, statement_timeout=0.2),
        FixedClock(datetime(2026, 11, 29, 12, 0, tzinfo=UTC)),
    )
    async with AsyncTestClient(app) as client:
        locker = await asyncpg.connect(database_url)
        try:
            async with locker.transaction():
                # Every statement on players waits: the pool's timeout cancels it.
                await locker.execute("LOCK TABLE players IN ACCESS EXCLUSIVE MODE")
                response = await asyncio.wait_for(
                    client.post("/v1/players", json={"name": "Patient"}), timeout=30
                )
        finally:
            await locker.close()
    assert response.status_code == 503, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"] == "/problems/database-timeout"
    assert int(response.headers["retry-after"]) > 0


async def test_the_pool_has_a_statement_timeout_unless_the_database_has_one(
    database_url: str,
) -> None:
    for url, timeout, shown in [
        (database_url, 0.2, "200ms"),
        (database_url, 0, "0"),  # none asked for
        (database_url + "?statement_timeout=7000", 0.2, "7s"),  # the URL's own is kept
    ]:
        pool = await create_pool(url, statement_timeout=timeout)
        try:
            assert await pool.fetchval("SHOW statement_timeout") == shown
        finally:
            await pool.close()


async def test_migrations_outlast_the_statement_timeout(database_url: str) -> None:
    pool = await create_pool(database_url, statement_timeout=0.2)
    other = await asyncpg.connect(database_url)  # another process, migrating
    try:
        await other.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
        async with pool.acquire() as connection:
            waiting = asyncio.create_task(migrate(connection))
            await asyncio.sleep(0.6)  # three timeouts' worth of waiting for the lock
            await other.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
            await asyncio.wait_for(waiting, timeout=30)
            assert await connection.fetchval("SHOW statement_timeout") == "200ms"
    finally:
        await other.close()
        await pool.close()
