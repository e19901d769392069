"""Readiness: a database that does not answer is "down", and the log says why."""

from __future__ import annotations

import logging

import pytest

from service.api.ops import readiness
from service.store.cache import Cache
from service.store.db import create_pool
from service.support.settings import Settings


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_a_database_down_is_said_with_its_cause(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="shutbox.ops")
    assert settings.database_url is not None
    pool = await create_pool(settings.database_url)
    cache = Cache(None, "ready:")
    assert (await readiness(pool, cache))[0] == "up"
    assert not [r for r in caplog.records if r.name == "shutbox.ops"]
    await pool.close()  # a pool that cannot give a connection: the database is away
    database, redis = await readiness(pool, cache)
    assert (database, redis) == ("down", await cache.state())
    [said] = [r for r in caplog.records if r.name == "shutbox.ops"]
    assert said.levelno == logging.WARNING
    assert said.getMessage() == "readiness: the database is down"
    assert "InterfaceError" in said.__dict__["error"]  # asyncpg: the pool is closed


class BrokenPool:
    """A pool whose every use raises an error no database gives: a bug of ours."""

    def acquire(self, timeout: float) -> None:
        raise TypeError("a bug")


async def test_a_bug_in_the_check_is_down_and_an_error_with_its_trace(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="shutbox.ops")
    cache = Cache(None, "ready:")
    database, _redis = await readiness(BrokenPool(), cache)  # type: ignore[arg-type]
    assert database == "down"
    [said] = [r for r in caplog.records if r.name == "shutbox.ops"]
    assert said.levelno == logging.ERROR and said.exc_info is not None
    assert said.getMessage() == "readiness: the database check failed"
