"""Migration 023 walks the runs stored before it once: the freezes they earned, spent on
the dates missed between them (stored as frozen), the weekly streak; a run stored after
it goes on from there."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta

import asyncpg
import pytest

from service.store import daily
from service.store.db import create_pool, migrate, migrations
from service.support.calendar import StreakRuns, frozen_dates, streak_runs, week_of
from tests.conftest import own_database
from tests.integration.store.test_player_counters import player_of, run_of

FREEZES = 23  # the migration that adds freezes and weeks


@pytest.fixture
def fresh_database() -> Iterator[str]:
    with own_database("shutbox_freezes") as url:
        yield url


async def test_the_migration_walks_the_runs_stored_before_it(
    fresh_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = date(2026, 11, 2)  # a Monday
    # Ada: eight dates in a row (the 7th earns a freeze), the 9th missed (frozen), two
    # more, two missed (no freeze left: broken), one more. Bo: one date.
    offsets = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 13]
    ada_days = [first + timedelta(days=n) for n in offsets]
    connection = await asyncpg.connect(fresh_database)
    try:
        before = migrations()[: FREEZES - 1]
        monkeypatch.setattr("service.store.db.migrations", lambda: before)
        await migrate(connection)
        await daily.make_partitions(connection, first, first + timedelta(days=30))
        ada, bo = uuid.uuid4(), uuid.uuid4()
        for player_id in (ada, bo):
            await connection.execute(
                "INSERT INTO players (id, time_zone, token_hash, created_at)"
                " VALUES ($1, 'UTC', $2, $3)",
                player_id,
                hashlib.sha256(player_id.bytes).digest(),
                datetime(2026, 11, 1, tzinfo=UTC),
            )
        for player_id, day in [(ada, d) for d in ada_days] + [(bo, first)]:
            await connection.execute(
                "INSERT INTO daily_runs VALUES"
                " ($1, $2, gen_random_uuid(), '[]', 5, 1, 0, 0, 1, 1, 1, $2, true, $3)",
                player_id,
                day,
                datetime.combine(day, time(12), tzinfo=UTC),
            )
        # The streak rows as the service kept them then: no freeze, the 9th broke it.
        await connection.execute(
            "INSERT INTO streaks (player_id, latest_length, best, last_played, played, shut,"
            " score_total, best_possible_total, scores)"
            " VALUES ($1, 1, 8, $2, 11, 0, 55, 11, '{\"5\": 11}'),"
            "        ($3, 1, 1, $4, 1, 0, 5, 1, '{\"5\": 1}')",
            ada,
            ada_days[-1],
            bo,
            first,
        )
        monkeypatch.undo()
        assert await migrate(connection) == list(range(FREEZES, len(migrations()) + 1))
    finally:
        await connection.close()

    pool = await create_pool(fresh_database, max_size=2)
    try:
        ada_counters = await daily.player_counters(pool, ada)
        assert ada_counters is not None
        weeks = week_of(ada_days[-1]) - week_of(first) + 1
        assert ada_counters.streak == StreakRuns(1, 10, ada_days[-1], 0, weeks, weeks)
        assert ada_counters.streak == streak_runs(ada_days)
        stored = await pool.fetch("SELECT player_id, day FROM frozen_dates ORDER BY day")
        assert [(r["player_id"], r["day"]) for r in stored] == [(ada, first + timedelta(days=8))]
        assert [r["day"] for r in stored] == frozen_dates(ada_days)
        bo_counters = await daily.player_counters(pool, bo)
        assert bo_counters is not None
        assert bo_counters.streak == StreakRuns(1, 1, first, 0, 1, 1)

        # Six more dates in a row after it: the 7th of the new streak earns a freeze.
        player = await player_of(pool, ada)
        for n in range(14, 20):
            day = first + timedelta(days=n)
            [outcome] = await daily.submit_batch(pool, [run_of(player, day, 3, 1)])
            assert isinstance(outcome, daily.Stored) and outcome.created
            assert outcome.run.streak_current == n - 12
        assert outcome.run.streak_freezes == 1
        after = await daily.player_counters(pool, ada)
        assert after is not None
        assert after.streak == streak_runs(
            [*ada_days, *(first + timedelta(n) for n in range(14, 20))]
        )
    finally:
        await pool.close()
