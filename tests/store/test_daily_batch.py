"""Official runs stored several to a transaction answer exactly as one after another."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta

import asyncpg
import msgspec
import pytest

from service.calendar import StreakRuns
from service.rules.dice import daily_sequence_id
from service.rules.ruleset import Rules
from service.store import daily, players, sequences
from service.store.cache import Cache
from service.store.db import QUERIES, create_pool, migrate
from service.store.ranks import Leaderboards, Rank
from service.store.runs import Accepted, AlreadyPlayed
from tests.conftest import REDIS_URL

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(database_url)
    async with pool.acquire() as connection:
        await migrate(connection)
    yield pool
    await pool.close()


@pytest.fixture(params=["redis", "no-redis"])
async def leaderboards(
    request: pytest.FixtureRequest, pool: asyncpg.Pool, redis_prefix: str
) -> AsyncIterator[Leaderboards]:
    cache = Cache.connect(REDIS_URL if request.param == "redis" else None, redis_prefix)
    yield Leaderboards(pool, cache)
    await cache.close()


class Answer(msgspec.Struct, frozen=True):
    """What a submission's 201 body is built from (the run id left out)."""

    streak: StreakRuns
    played: list[date]
    rank: Rank


def submission(player_id: uuid.UUID, day: date, score: int, variant: int = 0) -> daily.Submission:
    run = daily.NewRun(
        player_id=player_id,
        day=day,
        sequence_id=daily_sequence_id(day),
        moves=[{"tiles": [score % 9 + 1], "dice": 2, "variant": variant}],
        score=score,
        shut=score == 0,
        best_possible=0,
        submitted_at=NOW,
    )

    def respond(_: uuid.UUID, streak: StreakRuns, played: set[date], rank: Rank) -> bytes:
        return msgspec.json.encode(Answer(streak, sorted(played), rank))

    return daily.Submission(run, respond)


async def new_players(pool: asyncpg.Pool, count: int) -> list[uuid.UUID]:
    return [
        (await players.create(pool, None, "UTC", NOW, players.new_token())).id for _ in range(count)
    ]


async def days_with_dice(pool: asyncpg.Pool, cache: Cache, *days: date) -> None:
    for day in days:
        await sequences.issue(pool, cache, b"secret", daily_sequence_id(day), Rules(), NOW)


def fresh_days(count: int) -> list[date]:
    """Consecutive dates no other test uses (the database lives for the whole session)."""
    first = date(2031, 1, 1) + timedelta(days=secrets.randbelow(36500))
    return [first + timedelta(days=n) for n in range(count)]


def summary(outcome: daily.Outcome) -> object:
    """What a submission answered, its dates left out."""
    if isinstance(outcome, AlreadyPlayed):
        return "already played", outcome.official.score
    answer = msgspec.json.decode(outcome.body, type=Answer)
    return outcome.created, answer.streak[:2], len(answer.played), answer.rank


async def test_a_batch_answers_as_the_same_submissions_one_at_a_time(
    pool: asyncpg.Pool, leaderboards: Leaderboards
) -> None:
    batch_day, _, one_by_one_day = fresh_days(3)
    await days_with_dice(pool, leaderboards.cache, batch_day, one_by_one_day)
    scores = [5, 5, 3, 9, 0, 5]

    async def script(day: date) -> list[daily.Submission]:
        ids = await new_players(pool, len(scores))
        plan = [submission(player, day, score) for player, score in zip(ids, scores, strict=True)]
        plan.insert(2, submission(ids[0], day, scores[0]))  # the identical run again
        plan.append(submission(ids[1], day, 7, variant=1))  # another run of a played date
        return plan

    batched = await daily.submit_batch(pool, leaderboards, await script(batch_day))
    one_by_one = [
        (await daily.submit_batch(pool, leaderboards, [one]))[0]
        for one in await script(one_by_one_day)
    ]

    assert [summary(o) for o in batched] == [summary(o) for o in one_by_one]
    first, again = batched[0], batched[2]
    assert isinstance(first, Accepted) and isinstance(again, Accepted)
    assert (first.created, again.created, again.body) == (True, False, first.body)
    refused = batched[-1]
    assert isinstance(refused, AlreadyPlayed)
    assert refused.official.score == scores[1]
    ranks = [msgspec.json.decode(o.body)["rank"] for o in batched if isinstance(o, Accepted)]
    # As it stood at each submission (the identical run again: the first answer).
    assert [r["players"] for r in ranks] == [1, 2, 1, 3, 4, 5, 6]
    assert [r["position"] for r in ranks] == [1, 1, 1, 1, 4, 1, 3]
    stored = await pool.fetch(
        "SELECT day, count(*) AS runs FROM daily_runs WHERE day = ANY($1) GROUP BY day",
        [batch_day, one_by_one_day],
    )
    assert {r["day"]: r["runs"] for r in stored} == {batch_day: 6, one_by_one_day: 6}
    assert await leaderboards.rank(batch_day, 5) == await leaderboards.rank(one_by_one_day, 5)


async def test_two_dates_of_one_player_in_one_batch_make_one_streak(
    pool: asyncpg.Pool, leaderboards: Leaderboards
) -> None:
    yesterday, today = fresh_days(2)
    await days_with_dice(pool, leaderboards.cache, yesterday, today)
    [player] = await new_players(pool, 1)
    outcomes = await daily.submit_batch(
        pool, leaderboards, [submission(player, yesterday, 4), submission(player, today, 6)]
    )
    answers = [
        msgspec.json.decode(o.body, type=Answer) for o in outcomes if isinstance(o, Accepted)
    ]
    assert [a.streak for a in answers] == [
        StreakRuns(1, 1, yesterday),
        StreakRuns(2, 2, today),
    ]
    assert answers[1].played == [yesterday, today]
    row = await pool.fetchrow("SELECT * FROM streaks WHERE player_id = $1", player)
    assert row is not None
    assert (row["latest_length"], row["best"], row["last_played"]) == (2, 2, today)


class Recording:
    """The pool, with the named queries it was sent written down."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.sent: list[str] = []

    def _note(self, sql: str) -> None:
        self.sent += [name for name in QUERIES.names() if getattr(QUERIES, name) == sql]

    async def fetch(self, sql: str, *args: object) -> list[asyncpg.Record]:
        self._note(sql)
        return list(await self.pool.fetch(sql, *args))

    async def fetchval(self, sql: str, *args: object) -> object:
        self._note(sql)
        return await self.pool.fetchval(sql, *args)


async def test_a_set_outliving_its_marker_is_checked_and_rebuilt_only_when_short(
    pool: asyncpg.Pool, redis_prefix: str
) -> None:
    cache = Cache.connect(REDIS_URL, f"{redis_prefix}{secrets.token_hex(4)}:")
    leaderboards = Leaderboards(pool, cache)
    [day] = fresh_days(1)
    await days_with_dice(pool, cache, day)
    ids = await new_players(pool, 3)
    batch = [submission(player, day, score) for player, score in zip(ids, [3, 5, 8])]
    await daily.submit_batch(pool, leaderboards, batch)
    redis, (board, marker) = cache.redis, leaderboards._keys(day)
    assert redis is not None
    expected = {3: (0, 2, 3), 5: (1, 1, 3), 8: (2, 0, 3)}

    async def counts() -> tuple[dict[int, tuple[int, int, int]], list[str]]:
        recording = Recording(pool)
        found = await leaderboards.counts_of(day, [3, 5, 8], recording)  # type: ignore[arg-type]
        return {score: found.of(score) for score in (3, 5, 8)}, recording.sent

    try:
        # The marker expired, the set is whole: counted, trusted again, not rebuilt.
        await redis.delete(marker)
        assert await counts() == (expected, ["leaderboard_epoch", "day_run_count"])
        assert await redis.get(marker) is not None
        # A process died between its commit and its Redis write: the set is short.
        await redis.zrem(board, str(ids[1]))
        await redis.delete(marker)
        found, sent = await counts()
        assert found == expected and "day_scores" in sent
        assert await redis.zscore(board, str(ids[1])) == 5
        assert await counts() == (expected, ["leaderboard_epoch"])  # trusted from now on
    finally:
        await redis.delete(board, marker)
        await cache.close()


async def test_a_submission_that_cannot_be_stored_fails_alone(
    pool: asyncpg.Pool, leaderboards: Leaderboards
) -> None:
    [day] = fresh_days(1)
    await days_with_dice(pool, leaderboards.cache, day)
    ids = await new_players(pool, 3)
    batch = [submission(player, day, score) for player, score in zip(ids, [4, 6, 8])]
    orphan = batch[1].run
    # Dice never issued: the foreign key refuses the run, and with it the batch's statement.
    batch[1] = daily.Submission(
        msgspec.structs.replace(orphan, sequence_id="daily/never-issued"), batch[1].respond
    )
    outcomes = await daily.submit_batch(pool, leaderboards, batch)
    assert isinstance(outcomes[1], asyncpg.ForeignKeyViolationError)
    assert [type(outcomes[0]), type(outcomes[2])] == [Accepted, Accepted]
    stored = await pool.fetch("SELECT player_id FROM daily_runs WHERE day = $1", day)
    assert {r["player_id"] for r in stored} == {ids[0], ids[2]}
    assert (await leaderboards.rank(day, 8)).players == 2
