"""Daily runs at scale: synthetic days as submissions leave them, compact rows,
monthly partitions that queries prune to, history in a constant number of queries."""

from __future__ import annotations

import itertools
import json
import secrets
from collections import Counter
from datetime import UTC, date, datetime, timedelta

import asyncpg
import msgspec

from service.api.schemas import MoveIn, move_in
from service.rules.dice import daily_sequence_id
from service.rules.replay import replay
from service.rules.ruleset import Rules
from service.store import daily, friends, sequences
from service.store.cache import Cache
from service.store.db import QUERIES
from service.store.ranks import Histograms
from service.store.synth import computer_runs, synth_day
from service.support.clock import SystemClock
from tests.integration.store.test_daily_batch import NOW, Recording, new_players, submission

SECRET = b"scale-secret"


def fresh_day() -> date:
    """A date no other test uses (the database lives for the whole session)."""
    return date(2140, 1, 1) + timedelta(days=secrets.randbelow(36500))


async def test_a_synthetic_day_is_what_submissions_would_leave(pool: asyncpg.Pool) -> None:
    day = fresh_day()
    cache = Cache.connect(None, "synth:")
    assert await synth_day(pool, cache, SECRET, day, 600, seed=7) == 600
    assert await synth_day(pool, cache, SECRET, day, 400, seed=8) == 1000
    issued = await sequences.stored(pool, cache, daily_sequence_id(day))
    assert issued is not None
    rows = await pool.fetch("SELECT * FROM daily_runs WHERE day = $1 ORDER BY rank_players", day)
    assert len(rows) == 1000 and len({row["player_id"] for row in rows}) == 1000
    seen: Counter[int] = Counter()
    decode = msgspec.json.Decoder(list[MoveIn])
    replayed: dict[str, int] = {}
    for n, row in enumerate(rows):
        # Each a legal run of the date's dice, with its score...
        key = json.dumps(row["moves"])
        if key not in replayed:
            moves = [move_in(m) for m in decode.decode(key)]
            replayed[key] = replay(Rules(), issued.dice, moves).score
        assert replayed[key] == row["score"]
        # ...ranked as it stood when it came in, one after another.
        score = row["score"]
        better = sum(c for s, c in seen.items() if s < score)
        worse = sum(c for s, c in seen.items() if s > score)
        assert (row["rank_better"], row["rank_worse"], row["rank_players"]) == (
            better,
            worse,
            n + 1,
        )
        seen[score] += 1
    # Easy, Medium and Hard end differently, but on the rare dice where every turn ends alike.
    possible = {run.score for seed in (7, 8) for run in computer_runs(day, issued, seed)}
    assert set(seen) <= possible and (len(seen) > 1) == (len(possible) > 1)
    histogram = (await Histograms(pool, cache, SystemClock()).of([day]))[day]
    assert histogram == dict(seen)
    streaks = await pool.fetchval(
        "SELECT count(*) FROM streaks s JOIN daily_runs r USING (player_id) "
        "WHERE r.day = $1 AND s.latest_length = 1 AND s.last_played = $1",
        day,
    )
    assert streaks == 1000
    # A submission afterwards ranks among all of them.
    [player] = await new_players(pool, 1)
    [outcome] = await daily.submit_batch(pool, [submission(player, day, max(seen))])
    assert isinstance(outcome, daily.Stored)
    assert outcome.run.rank_at_submission.players == 1001
    assert outcome.run.rank_better == sum(c for s, c in seen.items() if s < max(seen))


async def test_a_player_with_one_run_costs_under_1500_bytes(pool: asyncpg.Pool) -> None:
    day = fresh_day()
    await daily.make_partitions(pool, day, day)
    partition = f"daily_runs_{day:%Y_%m}"
    tables = ["players", "streaks", "day_scores", partition]

    async def size() -> int:
        total = 0
        for table in tables:
            total += await pool.fetchval("SELECT pg_total_relation_size($1::regclass)", table)
        return int(total)

    before = await size()
    await synth_day(pool, Cache.connect(None, "synth:"), SECRET, day, 5000, seed=1)
    per_player = (await size() - before) / 5000
    assert per_player <= 1500, f"{per_player:.0f} bytes per player with one run"


async def test_queries_of_a_date_read_one_partition(pool: asyncpg.Pool) -> None:
    """Each statement of a date (or of a few dates) sets up scans of its dates' months
    alone, in the one plan the service's sessions keep for it: a player who played both
    months, with a friend who did too, asked of the first date."""
    days = [date(2131, 3, 3), date(2131, 5, 5)]
    await daily.make_partitions(pool, days[0], days[1])
    partitions = ["daily_runs_2131_03", "daily_runs_2131_05"]
    player, friend = await new_players(pool, 2)
    await friends.befriend(pool, player, friend, NOW, 10)
    for who, day in itertools.product((player, friend), days):
        [stored] = await daily.submit_batch(pool, [submission(who, day, 4)])
        assert isinstance(stored, daily.Stored)

    async def scans(connection: asyncpg.Connection) -> dict[str, int]:
        """Scans begun on each partition, by any plan (a function's too)."""
        await connection.execute("SELECT pg_stat_force_next_flush()")
        rows = await connection.fetch(
            "SELECT relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans"
            " FROM pg_stat_user_tables WHERE relname = ANY($1)",
            partitions,
        )
        await connection.execute("SELECT pg_stat_clear_snapshot()")
        return {row["relname"]: row["scans"] for row in rows}

    async with pool.acquire() as connection:
        for query, args in [
            (QUERIES.daily_run, (player, days[0])),
            (QUERIES.streak, (player, days[0], None)),
            (QUERIES.friends, (friend, days[0], None, None)),
            (QUERIES.friends_board, (player, days[0])),
            (QUERIES.player_counters, (player, days[0])),
            (QUERIES.day_leaderboard, (days[0], 10)),
        ]:
            before = await scans(connection)
            # The first call, and calls past the first five (when PostgreSQL would choose
            # between a generic plan and a plan for the values at hand).
            for _ in range(7):
                await connection.fetch(query, *args)
            after = await scans(connection)
            assert after[partitions[0]] > before[partitions[0]], query
            assert after[partitions[1]] == before[partitions[1]], query
        # One plan each, kept: none planned again for a call's values.
        planned = await connection.fetch(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE NOT from_sql AND statement LIKE '%daily_runs%'"
        )
        assert len(planned) >= 5 and all(p["custom_plans"] == 0 for p in planned), planned


async def test_a_batch_sets_up_scans_of_its_dates_partitions_alone(pool: asyncpg.Pool) -> None:
    """A batch's read must not cost more with every month the service has run: it sets
    up no scan of another month's partition, which a scan set up would lock the index of
    until the transaction ends. With a player's date out of order, it reads every month
    of that player (the one statement that must)."""
    await daily.make_partitions(pool, date(2133, 1, 1), date(2133, 12, 31))
    day = date(2133, 5, 5)
    ids = await new_players(pool, 3)
    await daily.submit_batch(pool, [submission(ids[0], day, 4)])
    runs = [submission(player, day, 4) for player in ids]

    async def indexes_locked(connection: asyncpg.Connection, lock: bool) -> set[str]:
        async with connection.transaction():
            await daily.read_batch(connection, runs, lock=lock)
            rows = await connection.fetch(
                "SELECT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                " WHERE l.pid = pg_backend_pid() AND c.relkind = 'i'"
                " AND c.relname LIKE 'daily_runs_2133%'"
            )
        return {row["relname"] for row in rows}

    async with pool.acquire() as connection:
        for lock in (False, True):
            for _ in range(7):  # past the first 5 calls: the generic plans, kept
                locked = await indexes_locked(connection, lock)
            assert locked and all(name.startswith("daily_runs_2133_05") for name in locked), locked
        runs.append(submission(ids[1], day - timedelta(days=40), 3))  # a second date: out of order
        locked = await indexes_locked(connection, False)
    assert any(name.startswith("daily_runs_2133_01") for name in locked), locked


async def test_partitions_are_made_ahead_and_again_safely(pool: asyncpg.Pool) -> None:
    now = datetime(2132, 6, 15, tzinfo=UTC)
    await daily.make_partitions_ahead(pool, date(2132, 5, 1), now)
    await daily.make_partitions_ahead(pool, date(2132, 5, 1), now)  # again: nothing to do
    names = {
        row["name"]
        for row in await pool.fetch(
            "SELECT inhrelid::regclass::text AS name FROM pg_inherits "
            "WHERE inhparent = 'daily_runs'::regclass"
        )
    }
    assert {"daily_runs_2132_05", "daily_runs_2132_06", "daily_runs_2132_07"} <= names
    assert "daily_runs_2132_08" in names  # two months ahead of mid-June


async def test_history_is_two_queries_whatever_the_page(pool: asyncpg.Pool) -> None:
    cache = Cache.connect(None, f"history-{secrets.token_hex(4)}:")
    # Forty dates of this test's own (2250..2260): each must hold this player's run alone.
    first = date(2250, 1, 1) + timedelta(days=secrets.randbelow(3650))
    days = [first + timedelta(days=n) for n in range(40)]
    await daily.make_partitions(pool, days[0], days[-1])
    for day in days:
        await sequences.issue(
            pool, cache, SECRET, daily_sequence_id(day), Rules(), datetime.now(UTC)
        )
    [player] = await new_players(pool, 1)
    await daily.submit_batch(pool, [submission(player, day, n % 9) for n, day in enumerate(days)])
    for limit in (3, 40):
        recording = Recording(pool)
        page = await daily.history(
            recording,  # type: ignore[arg-type]
            Histograms(recording, Cache.connect(None, f"h-{secrets.token_hex(4)}:"), SystemClock()),  # type: ignore[arg-type]
            player,
            date.max,
            limit,
        )
        assert len(page) == limit
        assert recording.sent == ["history", "day_histograms"]
        assert all(entry.rank.players == 1 for entry in page)


async def test_two_dates_filled_with_one_seed_have_players_of_their_own(
    pool: asyncpg.Pool,
) -> None:
    """An operator fills several dates with the default seed: each date's synthetic
    players are its own (their ids once came from the seed alone: the second date
    failed on the players' key)."""
    cache = Cache.connect(None, "synth-seeds:")
    first = date(2032, 1, 1) + timedelta(days=secrets.randbelow(3650))
    try:
        for day in (first, first + timedelta(days=1)):
            assert await synth_day(pool, cache, SECRET, day, 20, seed=0) == 20
    finally:
        await cache.close()
