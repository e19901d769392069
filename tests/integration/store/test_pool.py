"""The service's pool (``service.store.db.Pool``): a single statement runs on a connection
parked by an earlier one, up to half the pool; a connection in doubt goes back to
asyncpg's pool, which resets or replaces it."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import asyncpg
import pytest

from service.store import db
from service.store.db import create_pool

PID = "SELECT pg_backend_pid()"


async def test_half_the_pool_at_most_is_parked_and_counts_as_idle(database_url: str) -> None:
    pool = await create_pool(database_url, max_size=4)
    try:
        pids = {await pool.fetchval(PID) for _ in range(5)}
        assert len(pids) == 1  # one after another: the parked connection each time
        together = await asyncio.gather(
            *(pool.fetchrow("SELECT pg_sleep(0.05), pg_backend_pid() AS pid") for _ in range(8))
        )
        assert len({row["pid"] for row in together}) == 4  # the whole pool, then
        assert pool.get_idle_size() == pool.get_size() == 4
        # Two parked: a transaction still has the other two connections of the pool.
        held = [await pool.acquire() for _ in range(2)]
        assert await pool.fetchval("SELECT 1") == 1
        for connection in held:
            await pool.release(connection)
    finally:
        await asyncio.wait_for(pool.close(), 10)  # the parked connections handed back


async def test_a_cancelled_statement_hands_its_connection_back(database_url: str) -> None:
    pool = await create_pool(database_url, max_size=2)
    try:
        await pool.fetchval(PID)
        assert len(pool._parked) == 1
        sleeping = asyncio.create_task(pool.fetchval("SELECT pg_sleep(30)"))
        await asyncio.sleep(0.2)
        assert pool._parked == []  # taken by the statement
        sleeping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sleeping
        # The connection was in the middle of a statement: asyncpg's pool took it back
        # (and cancelled the statement); none is parked in doubt.
        assert pool._parked == []
        assert await asyncio.wait_for(pool.fetchval("SELECT 1"), 5) == 1
        async with pool.acquire() as connection, connection.transaction():
            assert await connection.fetchval("SELECT 2") == 2
    finally:
        await asyncio.wait_for(pool.close(), 10)


async def test_a_parked_connection_whose_server_went_away_is_replaced(database_url: str) -> None:
    pool = await create_pool(database_url, max_size=2)
    admin = await asyncpg.connect(database_url)
    try:
        parked = await pool.fetchval(PID)
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", parked)
        for _ in range(50):  # until the client has seen the connection close
            if not await admin.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", parked
            ):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        assert await pool.fetchval(PID) != parked  # a new connection, not an error
    finally:
        await admin.close()
        await asyncio.wait_for(pool.close(), 10)


async def test_a_connection_parked_too_long_goes_back_to_the_pool(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A network between the service and PostgreSQL may drop a connection idle for long
    without a word: one parked longer than ``PARKED_FOR`` is handed back to asyncpg's
    pool (which closes its own idle ones) instead of taking the next statement."""
    pool = await create_pool(database_url, max_size=2)
    released: list[object] = []
    release = db.Pool.release

    async def recorded(self: db.Pool, connection: Any, **options: Any) -> None:
        released.append(connection)
        await release(self, connection, **options)

    monkeypatch.setattr(db.Pool, "release", recorded)
    try:
        await pool.fetchval(PID)
        [(parked, _at)] = pool._parked
        assert await pool.fetchval("SELECT 1") == 1
        assert released == []  # parked a moment ago: taken, and parked again
        monkeypatch.setattr(db, "PARKED_FOR", -1.0)
        assert await pool.fetchval("SELECT 1") == 1
        assert released == [parked]  # too long: handed back, another taken
    finally:
        monkeypatch.undo()
        await asyncio.wait_for(pool.close(), 10)


async def test_work_of_several_statements_takes_and_parks_a_connection_as_one(
    database_url: str,
) -> None:
    """``using``: a batch's statements (a transaction among them) on the connection a
    single statement would take, parked again after; one that fails hands it back."""
    pool = await create_pool(database_url, max_size=2)
    try:
        parked = await pool.fetchval(PID)

        async def work(connection: Any) -> int:
            async with connection.transaction():
                await connection.execute("SELECT 1")
            pid: int = await connection.fetchval(PID)
            return pid

        assert await pool.using(work) == parked
        assert len(pool._parked) == 1

        async def failing(connection: Any) -> None:
            await connection.execute("SELECT 1/0")

        with contextlib.suppress(asyncpg.DivisionByZeroError):
            await pool.using(failing)
        assert pool._parked == []
    finally:
        await asyncio.wait_for(pool.close(), 10)
