"""Official runs stored several to a transaction answer exactly as one after another."""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import asyncpg
import msgspec
import pytest

from service.rules.dice import daily_sequence_id
from service.rules.ruleset import Rules
from service.store import daily, players, sequences
from service.store.cache import Cache
from service.store.db import QUERIES, create_pool, migrate
from service.store.ranks import Histograms, Rank
from service.store.runs import AlreadyPlayed
from service.store.synth import synth_day
from service.support.calendar import is_open_for
from service.support.clock import FixedClock
from tests.conftest import REDIS_URL, SECRET, own_database

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["redis", "no-redis"])
async def histograms(
    request: pytest.FixtureRequest, pool: asyncpg.Pool, redis_prefix: str
) -> AsyncIterator[Histograms]:
    cache = Cache.connect(REDIS_URL if request.param == "redis" else None, redis_prefix)
    yield Histograms(pool, cache, FixedClock(NOW))
    await cache.close()


@pytest.fixture
async def one_session(new_database: str) -> AsyncIterator[tuple[asyncpg.Pool, Cache]]:
    """A pool of one session, so one session's kept plans, on a migrated database of its
    own, and an in-process cache."""
    pool = await create_pool(new_database, max_size=1)
    cache = Cache.connect(None, "session:")
    try:
        async with pool.acquire() as connection:
            await migrate(connection)
        yield pool, cache
    finally:
        await cache.close()
        await pool.close()


def submission(player_id: uuid.UUID, day: date, score: int, variant: int = 0) -> daily.NewRun:
    return daily.NewRun(
        player_id=player_id,
        day=day,
        moves=[{"tiles": [score % 9 + 1], "dice": 2, "variant": variant}],
        score=score,
        best_possible=0,
        submitted_at=NOW,
        time_zone="UTC",
    )


async def new_players(pool: asyncpg.Pool, count: int) -> list[uuid.UUID]:
    return [
        (await players.create(pool, None, "UTC", NOW, players.new_token())).id for _ in range(count)
    ]


async def days_with_dice(pool: asyncpg.Pool, cache: Cache, *days: date) -> None:
    for day in days:
        # The secret the API's tests issue with: they share this session's database.
        await sequences.issue(pool, cache, SECRET.encode(), daily_sequence_id(day), Rules(), NOW)
        await daily.make_partitions(pool, day, day)


def fresh_days(count: int) -> list[date]:
    """Consecutive dates no other test uses (the database lives for the whole session)."""
    first = date(2031, 1, 1) + timedelta(days=secrets.randbelow(36500))
    return [first + timedelta(days=n) for n in range(count)]


def summary(outcome: daily.Outcome | Exception) -> object:
    """What a submission answered, its ids and dates left out."""
    if isinstance(outcome, AlreadyPlayed):
        return "already played"
    assert isinstance(outcome, daily.Stored)
    run = outcome.run
    return outcome.created, run.score, run.streak_current, run.streak_best, run.rank_at_submission


async def test_a_batch_answers_as_the_same_submissions_one_at_a_time(
    pool: asyncpg.Pool, histograms: Histograms
) -> None:
    batch_day, _, one_by_one_day = fresh_days(3)
    await days_with_dice(pool, histograms.cache, batch_day, one_by_one_day)
    scores = [5, 5, 3, 9, 0, 5]

    async def script(day: date) -> list[daily.NewRun]:
        ids = await new_players(pool, len(scores))
        plan = [submission(player, day, score) for player, score in zip(ids, scores, strict=True)]
        plan.insert(2, submission(ids[0], day, scores[0]))  # the identical run again
        plan.append(submission(ids[1], day, 7, variant=1))  # another run of a played date
        return plan

    batched = await daily.submit_batch(pool, await script(batch_day))
    one_by_one = [
        (await daily.submit_batch(pool, [one]))[0] for one in await script(one_by_one_day)
    ]

    assert [summary(o) for o in batched] == [summary(o) for o in one_by_one]
    first, second, again = batched[0], batched[1], batched[2]
    assert isinstance(first, daily.Stored) and isinstance(again, daily.Stored)
    assert isinstance(second, daily.Stored)
    assert (first.created, again.created, again.run) == (True, False, first.run)
    refused = batched[-1]
    assert isinstance(refused, AlreadyPlayed) and refused.official_id == second.run.id
    ranks = [o.run.rank_at_submission for o in batched if isinstance(o, daily.Stored)]
    # As it stood at each submission (the identical run again: the first answer).
    assert [r.players for r in ranks] == [1, 2, 1, 3, 4, 5, 6]
    assert [r.position for r in ranks] == [1, 1, 1, 1, 4, 1, 3]
    stored = await pool.fetch(
        "SELECT day, count(*) AS runs FROM daily_runs WHERE day = ANY($1) GROUP BY day",
        [batch_day, one_by_one_day],
    )
    assert {r["day"]: r["runs"] for r in stored} == {batch_day: 6, one_by_one_day: 6}
    assert await histograms.rank(batch_day, 5) == await histograms.rank(one_by_one_day, 5)
    assert await histograms.of([batch_day]) == {batch_day: {0: 1, 3: 1, 5: 3, 9: 1}}


async def test_two_dates_of_one_player_in_one_batch_the_later_first_make_one_streak(
    pool: asyncpg.Pool, histograms: Histograms, caplog: pytest.LogCaptureFixture
) -> None:
    """The later date first (today, then yesterday during the grace): the streak joins
    both dates as the two stored one after the other would, and no run is tried alone."""
    caplog.set_level(logging.WARNING, logger="shutbox.daily")
    yesterday, today = fresh_days(2)
    await days_with_dice(pool, histograms.cache, yesterday, today)
    [player] = await new_players(pool, 1)
    grace = datetime.combine(today, time(0, 5), tzinfo=UTC)
    later_first = [
        msgspec.structs.replace(submission(player, day, score), submitted_at=grace)
        for day, score in ((today, 6), (yesterday, 4))
    ]
    outcomes = await daily.submit_batch(pool, later_first)
    assert [type(o) for o in outcomes] == [daily.Stored, daily.Stored]
    row = await pool.fetchrow("SELECT * FROM streaks WHERE player_id = $1", player)
    assert row is not None
    assert (row["latest_length"], row["best"], row["last_played"]) == (2, 2, today)
    assert not [r for r in caplog.records if r.name == "shutbox.daily"]


async def test_two_dates_of_one_player_in_one_batch_make_one_streak(
    pool: asyncpg.Pool, histograms: Histograms
) -> None:
    yesterday, today = fresh_days(2)
    await days_with_dice(pool, histograms.cache, yesterday, today)
    [player] = await new_players(pool, 1)
    outcomes = await daily.submit_batch(
        pool, [submission(player, yesterday, 4), submission(player, today, 6)]
    )
    runs = [o.run for o in outcomes if isinstance(o, daily.Stored)]
    assert [(r.streak_best, r.streak_last_played) for r in runs] == [(1, yesterday), (2, today)]
    row = await pool.fetchrow("SELECT * FROM streaks WHERE player_id = $1", player)
    assert row is not None
    assert (row["latest_length"], row["best"], row["last_played"]) == (2, 2, today)


async def test_a_batch_waiting_for_a_players_lock_sees_the_run_committed_meanwhile(
    pool: asyncpg.Pool, histograms: Histograms
) -> None:
    """Two batches with one player, on two dates in a row: the second waits for the
    first's lock, then reads what it committed (its streak counts the first date). A
    read from the moment the second batch began would miss it: a streak of 1."""
    yesterday, today = fresh_days(2)
    await days_with_dice(pool, histograms.cache, yesterday, today)
    [player] = await new_players(pool, 1)
    async with pool.acquire() as first, pool.acquire() as second:
        holding = first.transaction()
        await holding.start()
        try:
            await daily.submit_all(first, [submission(player, yesterday, 4)])
            waiting = asyncio.create_task(daily.submit_all(second, [submission(player, today, 6)]))
            backend = second.get_server_pid()
            while not await pool.fetchval(
                "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $1", backend
            ):
                assert not waiting.done()
                await asyncio.sleep(0.01)
        finally:
            await holding.commit()
        [outcome] = await waiting
    assert isinstance(outcome, daily.Stored)
    assert (outcome.run.streak_best, outcome.run.streak_last_played) == (2, today)


class Recording:
    """The pool, with the named queries it was sent written down."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.sent: list[str] = []

    async def fetch(self, sql: str, *args: object) -> list[asyncpg.Record]:
        self.sent += [name for name in QUERIES.names() if getattr(QUERIES, name) == sql]
        return list(await self.pool.fetch(sql, *args))


@pytest.mark.parametrize("redis_url", [REDIS_URL, None], ids=["redis", "no-redis"])
async def test_a_final_histogram_is_mirrored_and_an_open_one_read_afresh(
    pool: asyncpg.Pool, redis_prefix: str, redis_url: str | None
) -> None:
    cache = Cache.connect(redis_url, f"{redis_prefix}{secrets.token_hex(4)}:")
    days = fresh_days(3)
    await days_with_dice(pool, cache, *days)
    ids = await new_players(pool, 3)
    for day in days:
        await daily.submit_batch(pool, [submission(p, day, s) for p, s in zip(ids, [3, 5, 8])])
    # Days after the last date: every date has closed everywhere, its histogram final.
    clock = FixedClock(datetime.combine(days[-1] + timedelta(days=3), time(0), tzinfo=UTC))
    recording = Recording(pool)
    histograms = Histograms(recording, cache, clock)  # type: ignore[arg-type]
    try:
        # Three dates read afresh: one query for them all, of a few counters each.
        found = await histograms.of(days)
        assert recording.sent == ["day_histograms"]
        assert all(histogram == {3: 1, 5: 1, 8: 1} for histogram in found.values())
        assert await histograms.rank(days[0], 5) == Rank(position=2, players=3, percentile=33.33)
        assert recording.sent == ["day_histograms"]  # mirrored: no query

        # While a date is open somewhere, every rank reads it: a run just stored counts.
        clock.set(datetime.combine(days[-1], time(12), tzinfo=UTC))
        [late] = await new_players(pool, 1)
        await daily.submit_batch(pool, [submission(late, days[-1], 9)])
        assert (await histograms.rank(days[-1], 9)).players == 4
        assert (await histograms.rank(days[-1], 3)).players == 4
        assert recording.sent == ["day_histograms"] * 3
    finally:
        await cache.close()


async def test_a_submission_that_cannot_be_stored_fails_alone(
    pool: asyncpg.Pool, histograms: Histograms, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="shutbox.daily")
    [day] = fresh_days(1)
    await days_with_dice(pool, histograms.cache, day)
    ids = await new_players(pool, 3)
    batch = [submission(player, day, score) for player, score in zip(ids, [4, 6, 8])]
    # A player who does not exist: the foreign key refuses the run, and with it the
    # batch's statement.
    batch[1] = msgspec.structs.replace(batch[1], player_id=uuid.uuid4())
    outcomes = await daily.submit_batch(pool, batch)
    assert isinstance(outcomes[1], asyncpg.ForeignKeyViolationError)
    assert [type(outcomes[0]), type(outcomes[2])] == [daily.Stored, daily.Stored]
    stored = await pool.fetch("SELECT player_id FROM daily_runs WHERE day = $1", day)
    assert {r["player_id"] for r in stored} == {ids[0], ids[2]}
    assert (await histograms.rank(day, 8)).players == 2
    # The batch's failure is said, with its cause, before each is tried alone.
    [said] = [r for r in caplog.records if r.name == "shutbox.daily"]
    assert said.levelno == logging.WARNING
    assert said.getMessage() == "official runs stored one at a time"
    assert "ForeignKeyViolationError" in said.__dict__["error"]
    assert said.__dict__["runs"] == 3


async def test_a_bug_in_a_batch_is_raised_not_tried_again_one_at_a_time(
    pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An error the database did not report (here a TypeError in the service's own code)
    is a bug: it fails the batch as it is, and no submission is stored one at a time."""
    caplog.set_level(logging.WARNING, logger="shutbox.daily")
    [day] = fresh_days(1)
    cache = Cache.connect(None, "bug:")
    await days_with_dice(pool, cache, day)
    ids = await new_players(pool, 2)

    async def broken(*args: object) -> None:
        raise TypeError("a bug")

    monkeypatch.setattr(daily, "stored_unlocked", broken)
    with pytest.raises(TypeError, match="a bug"):
        await daily.submit_batch(pool, [submission(player, day, 5) for player in ids])
    assert await pool.fetchval("SELECT count(*) FROM daily_runs WHERE day = $1", day) == 0
    assert not [r for r in caplog.records if r.name == "shutbox.daily"]


async def kinds_read(pool: asyncpg.Pool, plan: list[daily.NewRun]) -> dict[str, int]:
    """How many rows of each kind a batch of ``plan`` reads (the kinds it reads none of
    left out)."""
    async with pool.acquire() as connection:
        read = await daily.read_batch(connection, plan, lock=False)
    kinds = {
        "run": len(read.runs),
        "streak": len(read.streaks),
        "played": sum(len(days) for days in read.played.values()),
        "scores": len(read.histograms),
    }
    return {kind: rows for kind, rows in kinds.items() if rows}


async def test_a_date_after_the_last_played_reads_the_streak_row_not_the_history(
    pool: asyncpg.Pool, histograms: Histograms
) -> None:
    """What a submission reads does not grow with its player's history: a date after
    every date played extends the streak row. Only a date played out of order reads the
    dates played, and its streak joins the runs on both sides of it."""
    days = fresh_days(30)
    await days_with_dice(pool, histograms.cache, *days)
    [player] = await new_players(pool, 1)
    gap = 20  # played: days 0..19, then 21..28; day 20 comes last, out of order
    for day in days[:gap] + days[gap + 1 : 29]:
        [outcome] = await daily.submit_batch(pool, [submission(player, day, 3)])
        assert isinstance(outcome, daily.Stored) and outcome.created

    next_day = submission(player, days[29], 5)
    assert await kinds_read(pool, [next_day]) == {"streak": 1}
    out_of_order = submission(player, days[gap], 5)
    assert await kinds_read(pool, [out_of_order]) == {"streak": 1, "played": 28}

    [outcome] = await daily.submit_batch(pool, [out_of_order])
    assert isinstance(outcome, daily.Stored)
    assert (outcome.run.streak_best, outcome.run.streak_last_played) == (29, days[28])
    [outcome] = await daily.submit_batch(pool, [next_day])
    assert isinstance(outcome, daily.Stored)
    assert (outcome.run.streak_best, outcome.run.streak_last_played) == (30, days[29])
    row = await pool.fetchrow("SELECT * FROM streaks WHERE player_id = $1", player)
    assert row is not None
    assert (row["latest_length"], row["best"], row["last_played"]) == (30, 30, days[29])


async def test_a_batch_that_read_before_a_run_was_committed_is_stored_again_under_the_lock(
    pool: asyncpg.Pool, histograms: Histograms
) -> None:
    """Two dates in a row of one player. The second batch reads without a lock while the
    first holds it, uncommitted; its write waits for the lock. Once the first commits,
    the write finds the streak changed and stores nothing, and the batch is stored again
    under the lock: its streak counts the first date (without the check: a streak of 1)."""
    yesterday, today = fresh_days(2)
    await days_with_dice(pool, histograms.cache, yesterday, today)
    [player] = await new_players(pool, 1)
    async with pool.acquire() as first:
        holding = first.transaction()
        await holding.start()
        try:
            await daily.submit_all(first, [submission(player, yesterday, 4)])
            waiting = asyncio.create_task(daily.submit_batch(pool, [submission(player, today, 6)]))
            while not await pool.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query LIKE '%daily_batch_write(%' AND datname = current_database()"
            ):
                assert not waiting.done()
                await asyncio.sleep(0.01)
        finally:
            await holding.commit()
        [outcome] = await waiting
    assert isinstance(outcome, daily.Stored) and outcome.created
    assert (outcome.run.streak_best, outcome.run.streak_last_played) == (2, today)
    row = await pool.fetchrow("SELECT * FROM streaks WHERE player_id = $1", player)
    assert row is not None
    assert (row["latest_length"], row["best"], row["last_played"]) == (2, 2, today)


@pytest.fixture
def new_database() -> Iterator[str]:
    with own_database("shutbox_plans") as url:
        yield url


async def rows_read(pool: asyncpg.Pool, tables: list[str]) -> int:
    """Rows read so far from these tables and their indexes, by any plan."""
    await pool.execute("SELECT pg_stat_force_next_flush()")
    read: int = await pool.fetchval(
        """SELECT (SELECT sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))
                   FROM pg_stat_user_tables WHERE relname = ANY($1))
                + (SELECT sum(idx_tup_read) FROM pg_stat_user_indexes WHERE relname = ANY($1))""",
        tables,
    )
    await pool.execute("SELECT pg_stat_clear_snapshot()")
    return read


async def test_reads_do_not_grow_with_a_month_planned_nearly_empty(
    one_session: tuple[asyncpg.Pool, Cache],
) -> None:
    """PL/pgSQL and prepared statements keep their plans for the session: planned while a
    month's runs, the streaks and the players were few, a scan of a whole table (or of
    a whole index) is as cheap as a lookup, and would then read the whole month at every
    call until the next ANALYZE (a new database; a new month after its first runs). A
    batch of runs, a player's requests and the leaderboard look their rows up by key
    whatever the planner saw: the rows they read do not grow with the rows stored."""
    pool, cache = one_session
    day = NOW.date()
    await daily.make_partitions(pool, day, day)
    tables = ["players", "streaks", f"daily_runs_{day:%Y_%m}"]
    for table in tables:  # no ANALYZE but the test's: the plans stay as made
        await pool.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = off)")
    tokens = [players.new_token() for _ in range(40)]
    ids = [(await players.create(pool, None, "UTC", NOW, token)).id for token in tokens]

    async def batches(first: int, last: int) -> None:
        """Two runs a batch, sent by player and by token in turn."""
        for n in range(first, last, 2):
            if n % 4:
                runs = [submission(player, day, n % 7) for player in ids[n : n + 2]]
                outcomes = await daily.submit_batch(pool, runs)
            else:
                sent = [
                    daily.TokenRun(
                        players.token_hash(token), daily.VerifiedRun(day, [], n % 7, 0, NOW)
                    )
                    for token in tokens[n : n + 2]
                ]
                answers = await daily.submit_batch_by_tokens(pool, sent)
                outcomes = [answer[1] for answer in answers if isinstance(answer, tuple)]
            assert len(outcomes) == 2
            assert all(isinstance(o, daily.Stored) and o.created for o in outcomes)

    async def a_players_requests() -> None:
        histograms = Histograms(pool, cache, FixedClock(NOW))
        await players.by_token_hashes(pool, [players.token_hash(tokens[0])])
        await daily.official_run(pool, ids[1], day)
        await daily.streak_row(pool, ids[1], day)
        await daily.player_counters(pool, ids[1])
        await daily.history(pool, histograms, ids[1], day + timedelta(days=1), 10)

    # Autovacuum's ANALYZE after the first runs, while the tables are small; then
    # past the first 5 calls of each statement: the generic plans, kept.
    await batches(0, 4)
    await pool.execute(f"ANALYZE {', '.join(tables)}")
    await batches(4, 24)
    for _ in range(6):
        await a_players_requests()
        await daily.leaderboard(pool, day, 10)
    # Then a full month: players, their streaks and their runs of this date.
    earlier = NOW - timedelta(days=1)
    await pool.execute(
        """INSERT INTO players (id, time_zone, token_hash, created_at)
           SELECT gen_random_uuid(), 'UTC', sha256(n::text::bytea), $1
           FROM generate_series(1, 5000) AS n""",
        earlier,
    )
    await pool.execute(
        """INSERT INTO streaks (player_id, latest_length, best, last_played, played, shut,
                                score_total, best_possible_total, scores)
           SELECT id, 1, 1, $2, 1, 0, 3, 0, '{"3": 1}' FROM players WHERE created_at = $1""",
        earlier,
        day,
    )
    await pool.execute(
        """INSERT INTO daily_runs
           SELECT id, $2, gen_random_uuid(), '[]', 3, 0, 0, 0, 1, 1, 1, $2, true, $1
           FROM players WHERE created_at = $1""",
        earlier,
        day,
    )

    before = await rows_read(pool, tables)
    await batches(24, 40)
    per_run = (await rows_read(pool, tables) - before) / 16
    assert per_run < 50, f"{per_run} rows read a run, with 5,040 runs stored"
    before = await rows_read(pool, tables)
    await a_players_requests()
    read = await rows_read(pool, tables) - before
    assert read < 50, f"{read} rows read by five requests of one player"
    before = await rows_read(pool, tables)
    board = await daily.leaderboard(pool, day, 10)
    assert len(board.top) == 10 and sum(board.histogram.values()) == 40
    read = await rows_read(pool, tables) - before
    assert read < 100, f"{read} rows read for the top 10 of 5,040 runs"


async def test_the_leaderboard_reads_its_top_not_its_date(
    one_session: tuple[asyncpg.Pool, Cache],
) -> None:
    """The leaderboard keeps one plan, made without knowing its limit: that plan must
    read the date's best runs in order and stop. Planned for a limit of a tenth of the
    date's runs, PostgreSQL sorted the whole date instead, in parallel (half a second a
    call on a date of a million; already so on a date of 10,000 runs, as here)."""
    pool, cache = one_session
    day = NOW.date()
    assert await synth_day(pool, cache, SECRET.encode(), day, 10_000, seed=3) == 10_000
    await pool.execute("VACUUM ANALYZE")
    partition = [f"daily_runs_{day:%Y_%m}"]

    # Past the first 5 calls, the plan kept; the API's most too (the function's own
    # constant must not be below it).
    for limit in (10, 3, 10, 3, 10, 3, 10, daily.TOP_MOST):
        before = await rows_read(pool, partition)
        board = await daily.leaderboard(pool, day, limit)
        read = await rows_read(pool, partition) - before
        assert len(board.top) == limit and sum(board.histogram.values()) == 10_000
        assert [score for _name, score in board.top] == sorted(board.histogram)[:1] * limit
        assert read <= 2 * daily.TOP_MOST, f"{read} rows read for a top {limit} of 10,000"


async def test_statements_of_the_service_are_never_jit_compiled(pool: asyncpg.Pool) -> None:
    """A scan method turned off still costs its huge "disabled" cost where nothing else
    serves (a sort, say), past jit_above_cost: the plan would be compiled at every call
    (the leaderboard took 150 ms so, for 0.2 ms of work). The service's sessions and its
    functions that turn methods off run without JIT; sequential scans are off. And the
    leaderboard keeps one plan: planned for each call's date, it cost more with every
    month's partition (planning looks at each); its generic plan leaves the other
    months out when it runs (``test_queries_of_a_date_read_one_partition``)."""
    assert await pool.fetchval("SHOW jit") == "off"
    assert await pool.fetchval("SHOW enable_seqscan") == "off"
    configs = await pool.fetch(
        "SELECT proname, proconfig FROM pg_proc"
        " WHERE pronamespace = 'public'::regnamespace AND proconfig IS NOT NULL"
    )
    assert {row["proname"] for row in configs} >= {
        "daily_batch_read",
        "daily_batch_write",
        "day_leaderboard",
    }
    for row in configs:
        assert "jit=off" in row["proconfig"], row["proname"]
    leaderboard = next(row["proconfig"] for row in configs if row["proname"] == "day_leaderboard")
    assert "plan_cache_mode=force_generic_plan" in leaderboard


async def test_runs_sent_with_tokens_find_their_players_in_the_batch(
    pool: asyncpg.Pool, histograms: Histograms
) -> None:
    """Runs sent with bearer tokens, their players looked up with the batch's reads: each
    answered as it would be with its player looked up first. A token of nobody, or a date
    not open for its player, stores nothing."""
    day = NOW.date()
    await days_with_dice(pool, histograms.cache, day)
    tokens = [players.new_token() for _ in range(3)]
    here, ahead, other = [
        await players.create(pool, None, zone, NOW, token)
        for zone, token in zip(("UTC", "Pacific/Kiritimati", "UTC"), tokens, strict=True)
    ]
    # At noon UTC it is already the next day at UTC+14: the date has closed there.

    def sent(token: str, score: int, variant: int = 0) -> daily.TokenRun:
        run = submission(uuid.uuid4(), day, score, variant)
        return daily.TokenRun(
            players.token_hash(token),
            daily.VerifiedRun(day, run.moves, run.score, run.best_possible, run.submitted_at),
        )

    first = await daily.submit_batch_by_tokens(
        pool,
        [
            sent(tokens[0], 4),
            sent(tokens[1], 4),
            sent(players.new_token(), 4),
            sent(tokens[0], 4),  # the identical run again, in the same batch
            sent(tokens[2], 6),
        ],
    )
    created, not_open, unknown, again, others = first
    assert isinstance(created, tuple) and isinstance(again, tuple) and isinstance(others, tuple)
    assert created[0] == again[0] == here and others[0] == other
    assert created[1].created and not again[1].created and others[1].created
    assert again[1].run == created[1].run
    assert isinstance(not_open, daily.NotOpen) and not_open.player == ahead
    assert isinstance(unknown, daily.UnknownToken)
    assert not await pool.fetchval("SELECT count(*) FROM daily_runs WHERE player_id = $1", ahead.id)

    [played] = await daily.submit_batch_by_tokens(pool, [sent(tokens[2], 5, variant=1)])
    assert isinstance(played, AlreadyPlayed)
    assert played.official_id == others[1].run.id
    # As the same submissions answer with their players looked up first.
    [alone] = await daily.submit_batch(pool, [submission(here.id, day, 4)])
    assert isinstance(alone, daily.Stored) and alone.run == created[1].run and not alone.created


@pytest.mark.parametrize("zone", ["Europe/Oslo", "Asia/Kolkata", "Pacific/Chatham"])
async def test_runs_sent_with_tokens_are_refused_exactly_where_the_date_is_not_open(
    pool: asyncpg.Pool, histograms: Histograms, zone: str
) -> None:
    """The batch that looks the players up decides with the calendar's one rule
    (``is_open_for``), never one of its own: around the grace after local midnight (a
    zone of whole hours, of a half hour, of 45 minutes), and with dates closed by a change
    of time zone (``closed_before``: before the day; the day itself, moved east; the day
    after, moved west), each run is refused exactly where the rule says the date is not
    open, and the others stored."""
    [day] = fresh_days(1)
    yesterday, tomorrow = day - timedelta(days=1), day + timedelta(days=1)
    await days_with_dice(pool, histograms.cache, yesterday, day, tomorrow)
    midnight = datetime.combine(day, time(0), tzinfo=ZoneInfo(zone)).astimezone(UTC)
    instants = [
        midnight - timedelta(minutes=1),
        midnight,
        midnight + timedelta(minutes=14, seconds=59),
        midnight + timedelta(minutes=15),
    ]
    cases = [
        (now, closed_before, played)
        for now in instants
        for closed_before in (None, yesterday, day, tomorrow)
        for played in (yesterday, day, tomorrow)
    ]
    tokens = [players.new_token() for _ in cases]
    for token, (_now, closed_before, _played) in zip(tokens, cases, strict=True):
        player = await players.create(pool, None, zone, NOW, token)
        await pool.execute(
            "UPDATE players SET closed_before = $2 WHERE id = $1", player.id, closed_before
        )
    sent = [
        daily.TokenRun(
            players.token_hash(token), daily.VerifiedRun(played, [{"tiles": [9]}], 9, 0, now)
        )
        for token, (now, _closed_before, played) in zip(tokens, cases, strict=True)
    ]
    answers = await daily.submit_batch_by_tokens(pool, sent)

    refused = set()
    for answer, (now, closed_before, played) in zip(answers, cases, strict=True):
        if isinstance(answer, daily.NotOpen):
            assert not is_open_for(answer.player, played, now)
            assert answer.player.closed_before == closed_before
            refused.add((now, closed_before, played))
        else:
            assert isinstance(answer, tuple), answer
            player, stored = answer
            assert is_open_for(player, played, now) and stored.created
    # The rule's edges, as the product says: the date just ended is open for the first
    # 15 minutes after midnight, not a second more, and never once closed for good.
    grace_ends = midnight + timedelta(minutes=15)
    assert (midnight + timedelta(minutes=14, seconds=59), None, yesterday) not in refused
    assert (grace_ends, None, yesterday) in refused
    assert (midnight, day, yesterday) in refused
    assert (midnight - timedelta(minutes=1), None, day) in refused
    assert (midnight - timedelta(minutes=1), tomorrow, tomorrow) not in refused
    assert len(refused) < len(cases)
    stored = await pool.fetchval(
        "SELECT count(*) FROM daily_runs r JOIN players p ON p.id = r.player_id"
        " WHERE p.token_hash = ANY($1)",
        [run.token_hash for run in sent],
    )
    assert stored == len(cases) - len(refused)


async def test_players_and_runs_read_back_in_utc_whatever_the_sessions_time_zone(
    pool: asyncpg.Pool, histograms: Histograms
) -> None:
    """What the database writes as JSON for the service (a player, a batch's reads) has
    its times in UTC, as the rows it sends in binary do: a session in another time zone
    reads the same instants, rendered the same."""
    [day] = fresh_days(1)
    await days_with_dice(pool, histograms.cache, day)
    token = players.new_token()
    async with pool.acquire() as connection:
        await connection.execute("SET TimeZone = 'Asia/Kolkata'")
        try:
            player = await players.create(connection, "Ravi", "Asia/Kolkata", NOW, token)
            with pytest.raises(players.TokenTaken) as taken:
                await players.create(connection, None, "UTC", NOW, token)
            [outcome] = await daily.stored(connection, [submission(player.id, day, 5)])
            read = await daily.read_batch(connection, [submission(player.id, day, 5)], False)
        finally:
            await connection.execute("RESET TimeZone")
    assert taken.value.player == player
    assert isinstance(outcome, daily.Stored) and read.runs == [outcome.run]
    for instant in (player.created_at, taken.value.player.created_at, read.runs[0].submitted_at):
        assert instant == NOW and instant.utcoffset() == timedelta(0)
    assert msgspec.json.encode(player.created_at) == msgspec.json.encode(NOW)
