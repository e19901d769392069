"""Months: what the database's statements cost as the service ages, a monthly partition
of daily runs a month since launch.

    .venv/bin/python benchmarks/months.py [--launched 1,12,36,72] [--rounds 5]
        [--batches 200] [--calls 300] [--postgres URL]

For each launch (months before this one), a throwaway database (dropped at the end),
migrated, with the partitions the service makes from launch to two months ahead of
today (1: a service launched last month, 4 or 5 partitions; 72: six years on, 75 or
76), all empty but this month's and last month's. Then, the databases taking turns
round by round (so that what drifts on this noisy machine falls on every size alike),
each on one connection of the service's pool:

- a batch of 12 new players' official runs sent with their tokens, read and written
  as the service stores them (``submit_batch_by_tokens``: two round trips), in ms;
- the statements of a player's requests, in microseconds a call (timed after 10 calls
  of each, in the plan the session keeps): their official run of today (``daily_run``),
  their streak (``streak``), their friends' board (``friends_board``), their history
  (``history``, a page of 10 of their 30 runs), today's leaderboard
  (``day_leaderboard``, the top 10).

Printed: each figure's median over the rounds and its ratio to the fewest months'. A
statement whose cost grows with the months is a bug users meet one month at a time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Final

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.processes import ADMIN_URL, insert_players, positive
from service.store import daily, players
from service.store.db import QUERIES, create_pool, migrate
from tests.resources import throwaway_database

BATCH: Final = 12
HISTORY_RUNS: Final = 30
WARM_CALLS: Final = 10


def months_before(months: int, today: date) -> date:
    """The first day of the month ``months`` months before today's."""
    month = today.replace(day=1)
    for _ in range(months):
        month = (month - timedelta(days=1)).replace(day=1)
    return month


class Database:
    def __init__(self, launched: int, url: str, tokens: list[str]) -> None:
        self.launched = launched
        self.partitions = 0
        self.url = url
        self.tokens = tokens
        self.times: dict[str, list[float]] = {}

    async def start(self, now: datetime) -> None:
        self.pool = await create_pool(self.url, max_size=2)
        await daily.make_partitions_ahead(self.pool, months_before(self.launched, now.date()), now)
        self.partitions = await self.pool.fetchval(
            "SELECT count(*) FROM pg_inherits WHERE inhparent = 'daily_runs'::regclass"
        )
        player = await players.create(self.pool, None, "UTC", now, players.new_token())
        self.player = player.id
        today = now.date()
        days = [today - timedelta(days=n) for n in range(HISTORY_RUNS)][::-1]
        await daily.submit_batch(
            self.pool,
            [daily.VerifiedRun(day, [], 5, 0, now).of(player) for day in days],
        )
        await self.pool.execute("VACUUM ANALYZE")

    def add(self, name: str, value: float) -> None:
        self.times.setdefault(name, []).append(value)


async def batches(database: Database, count: int, now: datetime) -> None:
    start = time.perf_counter()
    for _ in range(count):
        tokens, database.tokens = database.tokens[:BATCH], database.tokens[BATCH:]
        runs = [
            daily.TokenRun(players.token_hash(token), daily.VerifiedRun(now.date(), [], 5, 0, now))
            for token in tokens
        ]
        answers = await daily.submit_batch_by_tokens(database.pool, runs)
        if not all(isinstance(answer, tuple) and answer[1].created for answer in answers):
            raise SystemExit(f"months: a batch was not stored: {answers[:1]}")
    database.add("batch of 12 runs (ms)", (time.perf_counter() - start) / count * 1000)


async def statements(database: Database, calls: int, now: datetime) -> None:
    today = now.date()
    player = database.player
    async with database.pool.acquire() as connection:
        for name, query, args in (
            ("daily_run (us)", QUERIES.daily_run, (player, today)),
            ("streak (us)", QUERIES.streak, (player, today, None)),
            ("friends_board (us)", QUERIES.friends_board, (player, today)),
            ("history (us)", QUERIES.history, (player, today + timedelta(days=1), 10)),
            ("day_leaderboard (us)", QUERIES.day_leaderboard, (today, 10)),
        ):
            for _ in range(WARM_CALLS):
                await connection.fetch(query, *args)
            start = time.perf_counter()
            for _ in range(calls):
                await connection.fetch(query, *args)
            database.add(name, (time.perf_counter() - start) / calls * 1e6)


async def measure(databases: list[Database], args: argparse.Namespace, now: datetime) -> None:
    for database in databases:
        await database.start(now)
    try:
        for round_ in range(args.rounds):
            order = databases if round_ % 2 == 0 else databases[::-1]
            for database in order:
                await batches(database, args.batches, now)
                await statements(database, args.calls, now)
            print(f"months: round {round_ + 1} of {args.rounds}", file=sys.stderr, flush=True)
    finally:
        for database in databases:
            await database.pool.close()


def report(databases: list[Database]) -> None:
    names = list(databases[0].times)
    print(f"{'partitions':>10}  " + "  ".join(f"{name:>24}" for name in names))
    base = {name: statistics.median(databases[0].times[name]) for name in names}
    for database in databases:
        cells = []
        for name in names:
            median = statistics.median(database.times[name])
            cells.append(f"{median:>10.1f} x{median / base[name]:<5.2f}".rjust(24))
        print(f"{database.partitions:>10}  " + "  ".join(cells))


def months_list(text: str) -> list[int]:
    values = sorted({int(part) for part in text.split(",")})
    if not values or values[0] < 1:
        raise argparse.ArgumentTypeError("at least 1: the history reaches into last month")
    return values


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--launched", type=months_list, default=[1, 12, 36, 72], help="months ago, a list"
    )
    parser.add_argument("--rounds", type=positive, default=5)
    parser.add_argument("--batches", type=positive, default=200, help="batches a round")
    parser.add_argument("--calls", type=positive, default=300, help="calls of a statement")
    parser.add_argument("--postgres", default=ADMIN_URL, help="a URL that may create databases")
    return parser.parse_args(argv)


async def _migrate(url: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        await migrate(connection)
    finally:
        await connection.close()


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    now = datetime.now(UTC)
    with ExitStack() as stack:
        databases = []
        for launched in args.launched:
            url = stack.enter_context(throwaway_database(args.postgres, "shutbox_months"))
            asyncio.run(_migrate(url))
            players_needed = args.rounds * args.batches * BATCH
            tokens = insert_players(url, players_needed, now, "UTC", analyze="ANALYZE players")
            databases.append(Database(launched, url, tokens))
        asyncio.run(measure(databases, args, now))
    report(databases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
