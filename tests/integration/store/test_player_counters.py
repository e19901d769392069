"""A player's counters of their official runs (played, shut, the sums of scores and best
possible scores, the runs by score): kept with each run stored, by every writer, equal
to a recount of the runs; the runs stored before them counted once by migration 017."""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta

import asyncpg
import msgspec
import pytest

from service.store import daily, players
from service.store.cache import Cache
from service.store.db import create_pool, migrate, migrations
from service.store.runs import AlreadyPlayed
from service.store.synth import synth_day
from service.support.calendar import StreakRuns, week_of
from tests.conftest import SECRET, own_database
from tests.integration.store.test_daily_batch import fresh_days
from tests.recount import Recount, recount

COUNTERS = 17  # the migration that adds the counters


def run_of(
    player: players.PlayerRow,
    day: date,
    score: int,
    best_possible: int,
    variant: int = 0,
    submitted_at: datetime | None = None,
) -> daily.NewRun:
    """A verified run as the store takes it (the moves only tell runs apart)."""
    at = submitted_at or datetime.combine(day, time(12), tzinfo=UTC)
    return daily.VerifiedRun(day, [[score % 9 + 1], variant], score, best_possible, at).of(player)


def by_token(token: str, run: daily.NewRun) -> daily.TokenRun:
    verified = daily.VerifiedRun(run.day, run.moves, run.score, run.best_possible, run.submitted_at)
    return daily.TokenRun(players.token_hash(token), verified)


async def new_players(pool: asyncpg.Pool, count: int) -> list[tuple[players.PlayerRow, str]]:
    made = []
    for _ in range(count):
        token = players.new_token()
        made.append((await players.create(pool, None, "UTC", datetime.now(UTC), token), token))
    return made


async def dates(pool: asyncpg.Pool, count: int) -> list[date]:
    """Consecutive dates no other test uses, their months' partitions made."""
    days = fresh_days(count)
    await daily.make_partitions(pool, days[0], days[-1])
    return days


async def player_of(pool: asyncpg.Pool, player_id: uuid.UUID) -> players.PlayerRow:
    """A player made outside the API (no token known), as the store looks them up."""
    digest = await pool.fetchval("SELECT token_hash FROM players WHERE id = $1", player_id)
    [player] = await players.by_token_hashes(pool, [digest])
    assert player is not None
    return player


async def counted(pool: asyncpg.Pool, player_ids: list[uuid.UUID]) -> dict[uuid.UUID, Recount]:
    return {
        player_id: Recount.of(await daily.player_counters(pool, player_id))
        for player_id in player_ids
    }


async def test_each_run_stored_is_counted_once_by_player_and_by_token(pool: asyncpg.Pool) -> None:
    first, second, third = await dates(pool, 3)
    (ada, ada_token), (bo, bo_token) = await new_players(pool, 2)
    assert await daily.player_counters(pool, ada.id) is None

    # By player: two dates of Ada's in one batch (a shut box among them), one of Bo's.
    outcomes = await daily.submit_batch(
        pool, [run_of(ada, first, 5, 2), run_of(bo, first, 7, 3), run_of(ada, second, 0, 0)]
    )
    assert all(isinstance(o, daily.Stored) and o.created for o in outcomes)
    assert await counted(pool, [ada.id, bo.id]) == {
        ada.id: Recount(2, 1, 5, 2, {5: 1, 0: 1}),
        bo.id: Recount(1, 0, 7, 3, {7: 1}),
    }

    # The identical run again, another run of a played date: nothing counted.
    again = await daily.submit_batch(
        pool, [run_of(ada, first, 5, 2), run_of(ada, first, 9, 2, variant=1)]
    )
    assert isinstance(again[0], daily.Stored) and not again[0].created
    assert isinstance(again[1], AlreadyPlayed)

    # By token: new dates of each counted; the identical run again, an unknown token and
    # a date not open for its player are not.
    at_third = datetime.combine(third, time(12), tzinfo=UTC)
    answers = await daily.submit_batch_by_tokens(
        pool,
        [
            by_token(bo_token, run_of(bo, third, 0, 0, submitted_at=at_third)),
            by_token(ada_token, run_of(ada, third, 5, 5, submitted_at=at_third)),
            by_token(ada_token, run_of(ada, second, 0, 0, submitted_at=at_third - timedelta(1))),
            by_token(players.new_token(), run_of(bo, third, 4, 0, submitted_at=at_third)),
            by_token(bo_token, run_of(bo, first, 6, 1, submitted_at=at_third)),
        ],
    )
    assert [type(answer) for answer in answers] == [
        tuple, tuple, tuple, daily.UnknownToken, daily.NotOpen,
    ]  # fmt: skip
    assert isinstance(answers[2], tuple) and not answers[2][1].created
    expected = {
        ada.id: Recount(3, 1, 10, 7, {5: 2, 0: 1}),
        bo.id: Recount(2, 1, 7, 3, {7: 1, 0: 1}),
    }
    assert await counted(pool, [ada.id, bo.id]) == expected
    assert await recount(pool, [ada.id, bo.id]) == expected


async def test_synth_days_players_are_counted_as_if_each_had_submitted(
    pool: asyncpg.Pool,
) -> None:
    day, next_day = await dates(pool, 2)
    cache = Cache.connect(None, "synth:")
    try:
        await synth_day(pool, cache, SECRET.encode(), day, 500, secrets.randbelow(10**9))
    finally:
        await cache.close()
    ids = [r["player_id"] for r in await pool.fetch(PLAYERS_OF_DATE, day)]
    assert len(ids) == 500
    counters = await counted(pool, ids)
    assert counters == await recount(pool, ids)
    assert {c.played for c in counters.values()} == {1}

    # A synthetic player's next run adds to what synth-day counted.
    [outcome] = await daily.submit_batch(
        pool, [run_of(await player_of(pool, ids[0]), next_day, 12, 4)]
    )
    assert isinstance(outcome, daily.Stored) and outcome.created
    after = await counted(pool, [ids[0]])
    assert after[ids[0]].played == 2
    assert after == await recount(pool, [ids[0]])


PLAYERS_OF_DATE = "SELECT player_id FROM daily_runs WHERE day = $1"


async def test_concurrent_batches_count_each_run_once(pool: asyncpg.Pool) -> None:
    """Batches of several players' runs at once, by player and by token, racing for the
    same players (a batch whose streak read has changed is done again, locked): each run
    stored is counted once, the identical runs again and the refused ones not at all."""
    days = await dates(pool, 3)
    made = await new_players(pool, 8)
    rng = random.Random(secrets.randbits(32))
    # Token runs are sent on the last date, during the grace after its midnight: the date
    # before is open too.
    grace = datetime.combine(days[-1], time(0, 5), tzinfo=UTC)
    sent: list[tuple[str, daily.NewRun, str]] = []
    for player, token in made:
        for day in days:
            score = rng.randrange(0, 20)
            run = run_of(player, day, score, rng.randrange(0, score + 1), submitted_at=grace)
            path = "token" if day != days[0] and rng.random() < 0.5 else "player"
            sent.append((path, run, token))
            sent.append((path, run, token))  # the identical run again
            other = msgspec.structs.replace(run, moves=[[1], 99], score=run.score + 1)
            sent.append((path, other, token))  # another run of the date: one is refused
    rng.shuffle(sent)

    async def batch(part: list[tuple[str, daily.NewRun, str]]) -> list[object]:
        runs = [run for path, run, _token in part if path == "player"]
        tokens = [by_token(token, run) for path, run, token in part if path == "token"]
        answers: list[object] = []
        if runs:
            answers += await daily.submit_batch(pool, runs)
        if tokens:
            answers += await daily.submit_batch_by_tokens(pool, tokens)
        return answers

    parts, at = [], 0
    while at < len(sent):
        size = rng.randrange(1, 7)
        parts.append(sent[at : at + size])
        at += size
    answers = [a for part in await asyncio.gather(*map(batch, parts)) for a in part]
    assert not [a for a in answers if isinstance(a, Exception) and not isinstance(a, AlreadyPlayed)]

    ids = [player.id for player, _token in made]
    counters = await counted(pool, ids)
    assert counters == await recount(pool, ids)
    assert {c.played for c in counters.values()} == {3}  # one run a date, whichever won


@pytest.fixture
def fresh_database() -> Iterator[str]:
    with own_database("shutbox_counters") as url:
        yield url


async def test_the_migration_counts_the_runs_stored_before_it(
    fresh_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs and streak rows as the service stored them before migration 017: counted once
    when it applies, and each run stored after it added to them."""
    connection = await asyncpg.connect(fresh_database)
    try:
        before = migrations()[: COUNTERS - 1]
        monkeypatch.setattr("service.store.db.migrations", lambda: before)
        await migrate(connection)
        now = datetime(2026, 11, 29, 12, tzinfo=UTC)
        first = date(2026, 11, 20)
        await daily.make_partitions(connection, first, now.date())
        ids = [uuid.uuid4() for _ in range(3)]
        for player_id in ids:
            await connection.execute(
                "INSERT INTO players (id, time_zone, token_hash, created_at)"
                " VALUES ($1, 'UTC', $2, $3)",
                player_id,
                hashlib.sha256(player_id.bytes).digest(),
                now,
            )
        # Ada played five dates in a row (two shut boxes), Bo one, Cy none.
        ada, bo, cy = ids
        runs = [(ada, first + timedelta(n), score, best) for n, (score, best) in enumerate(
            [(4, 1), (0, 0), (9, 9), (0, 0), (4, 2)]
        )] + [(bo, first, 17, 6)]  # fmt: skip
        for player_id, day, score, best in runs:
            await connection.execute(
                "INSERT INTO daily_runs VALUES"
                " ($1, $2, gen_random_uuid(), '[]', $3, $4, 0, 0, 1, 1, 1, $2, true, $5)",
                player_id,
                day,
                score,
                best,
                datetime.combine(day, time(12), tzinfo=UTC),
            )
        await connection.execute(
            "INSERT INTO streaks (player_id, latest_length, best, last_played)"
            " VALUES ($1, 5, 5, $2), ($3, 1, 1, $4)",
            ada,
            first + timedelta(4),
            bo,
            first,
        )
        monkeypatch.undo()
        assert await migrate(connection) == list(range(COUNTERS, len(migrations()) + 1))
    finally:
        await connection.close()

    pool = await create_pool(fresh_database, max_size=2)
    try:
        expected = {
            ada: Recount(5, 2, 17, 12, {4: 2, 0: 2, 9: 1}),
            bo: Recount(1, 0, 17, 6, {17: 1}),
            cy: Recount(0, 0, 0, 0, {}),
        }
        assert await counted(pool, ids) == expected == await recount(pool, ids)
        ada_counters = await daily.player_counters(pool, ada)
        assert ada_counters is not None
        # Five dates in a row: no freeze yet; their weeks walked by migration 023.
        weeks = week_of(first + timedelta(4)) - week_of(first) + 1
        assert ada_counters.streak == StreakRuns(5, 5, first + timedelta(4), 0, weeks, weeks)
        # A run after the migration adds to the counts it made.
        player = await player_of(pool, bo)
        [outcome] = await daily.submit_batch(pool, [run_of(player, first + timedelta(1), 0, 0)])
        assert isinstance(outcome, daily.Stored) and outcome.created
        assert await counted(pool, [bo]) == {bo: Recount(2, 1, 17, 6, {17: 1, 0: 1})}
    finally:
        await pool.close()
