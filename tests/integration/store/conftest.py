"""Fixtures of the store tests: a pool on the session's database, migrated."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from service.store.db import create_pool, migrate


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(database_url)
    async with pool.acquire() as connection:
        await migrate(connection)
    yield pool
    await pool.close()
