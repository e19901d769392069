"""What clients can make PostgreSQL hold of solved tables is bounded: of the newer
variants the rules sheets do not name, only the ``kept`` used most recently stay; those
the sheets name stay for good; a variant let go is solved again when asked for."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import timedelta

import asyncpg
import pytest
from msgspec import to_builtins

from service.rules import solver
from service.rules.ruleset import Rules
from service.rules.solver import Tables
from service.store import tables as stored_tables
from service.store.db import create_pool, migrate
from service.store.solving import Solver
from tests.conftest import own_database
from tests.integration.store.test_tables import assert_same_tables

# Newer variants no sheet names, cheap to solve: "2 to go" on 3 tiles, from each start.
UNNAMED = [
    Rules(tiles=3, first_must_close=2, start=start)
    for start in ((2,), (1, 2), (2, 3), (1, 2, 3), None)
] + [Rules(tiles=2, stop_on_total=total) for total in (3, 4)]


@pytest.fixture
def fresh_database() -> Iterator[str]:
    with own_database("shutbox_stored") as url:
        yield url


@pytest.fixture
async def pool(fresh_database: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a database of this test's own: eviction sees every row of the table."""
    pool = await create_pool(fresh_database)
    async with pool.acquire() as connection:
        await migrate(connection)
    yield pool
    await pool.close()


async def store(pool: asyncpg.Pool, rules: Rules, kept: int) -> None:
    await stored_tables.store(
        pool, rules, stored_tables.solve_packed(to_builtins(rules)), kept=kept
    )


async def keys(pool: asyncpg.Pool) -> set[str]:
    rows = await pool.fetch("SELECT rules FROM solver_tables_of_rules")
    return {row["rules"] for row in rows}


def key(rules: Rules) -> str:
    found = stored_tables.rules_key(rules)
    assert found is not None
    return found


def test_every_variant_the_sheets_name_is_a_newer_one_of_its_own() -> None:
    assert len(set(stored_tables.SHEETS_KEYS)) == len(stored_tables.SHEETS)
    assert not {key(rules) for rules in UNNAMED} & set(stored_tables.SHEETS_KEYS)


async def test_the_unnamed_variants_stored_stay_within_the_setting(pool: asyncpg.Pool) -> None:
    for rules in stored_tables.SHEETS:
        await store(pool, rules, kept=3)
    for rules in UNNAMED:
        await store(pool, rules, kept=3)
    # The three stored last stay, beside every variant the sheets name.
    assert await keys(pool) == {*stored_tables.SHEETS_KEYS, *map(key, UNNAMED[-3:])}
    # An earlier variant is no newer one: its own table, kept for good.
    await store(pool, Rules(tiles=4, one_die="high_closed"), kept=3)
    assert await stored_tables.stored(pool, Rules(tiles=4, one_die="high_closed")) is not None
    assert len(await keys(pool)) == len(stored_tables.SHEETS) + 3


async def test_the_variants_the_sheets_name_are_never_let_go(pool: asyncpg.Pool) -> None:
    for rules in stored_tables.SHEETS:
        await store(pool, rules, kept=1)
    await pool.execute("UPDATE solver_tables_of_rules SET used_at = now() - interval '1 year'")
    for rules in UNNAMED:
        await store(pool, rules, kept=1)
    assert await keys(pool) == {*stored_tables.SHEETS_KEYS, key(UNNAMED[-1])}
    for rules in stored_tables.SHEETS:
        packed = await stored_tables.stored(pool, rules)
        assert packed is not None
        assert_same_tables(stored_tables.unpack(rules, packed), Tables(rules))


async def test_the_least_recently_used_goes_first(pool: asyncpg.Pool) -> None:
    first, second, third, fourth = UNNAMED[:4]
    for rules in (first, second, third):
        await store(pool, rules, kept=3)
    age = "UPDATE solver_tables_of_rules SET used_at = now() - $2::interval WHERE rules = $1"
    await pool.execute(age, key(first), timedelta(hours=3))
    await pool.execute(age, key(second), timedelta(hours=2))
    await pool.execute(age, key(third), timedelta(minutes=30))
    # A read marks a row used when it was last used over an hour ago ...
    assert await stored_tables.stored(pool, first) is not None
    # ... and leaves one used within the hour as it is: no write for every read.
    assert await stored_tables.stored(pool, third) is not None
    used = (
        "SELECT used_at > now() - interval '1 minute' FROM solver_tables_of_rules WHERE rules = $1"
    )
    assert await pool.fetchval(used, key(first)) is True
    assert await pool.fetchval(used, key(third)) is False
    await store(pool, fourth, kept=3)
    assert await keys(pool) == {key(first), key(third), key(fourth)}


async def test_a_variant_let_go_is_solved_again_when_asked_for(pool: asyncpg.Pool) -> None:
    twelve = Rules(tiles=12, first_must_close=3, start=(1, 3, 5, 7, 9, 11))
    other = Rules(tiles=12, first_must_close=3, start=(2, 3, 4, 6, 8, 10, 12))
    solving = Solver(pool, stored=1)
    solver.LOADED.clear()
    try:
        await solving.tables(twelve)
        await solving.tables(other)  # stored: the first one goes
        assert await keys(pool) == {key(other)}
        solver.LOADED.clear()  # as in a process that never held it
        again = await solving.tables(twelve)
        assert solving.solved == 3 and solving.loaded == 0
        assert_same_tables(again, Tables(twelve))
        assert await keys(pool) == {key(twelve)}
    finally:
        await solving.close()
        solver.LOADED.clear()
