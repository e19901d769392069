"""Stats, streak and today: ``GET /v1/players/me/stats``, ``/streak`` and ``/today`` of a
player with one day of official runs and of one with ten years (3,650 days), against
``GET /healthz`` in the same run.

    .venv/bin/python benchmarks/stats.py [--days 3650] [--samples 300] [--postgres URL]

A throwaway database (dropped at the end) is migrated; two players are made, and their
official runs inserted in bulk through the store's own insert (``daily.insert_runs``,
which every writer of runs goes through, so each run is counted as a submission counts
it, with the streak it made and the dates freezes covered before it): one run today for
the first, one a day for ``--days`` days up to today for the second (varied scores, a
shut box now and then, a date missed now and then: some frozen, some breaking the
streak), each month's partition made. Then
``shutbox serve`` (one worker, rate limits on at a limit nothing here reaches, a Redis
key prefix of its own, removed at the end) answers, on one keep-alive connection, the
requests in turn, sample by sample (so that what drifts on this noisy machine falls on
all alike), each timed in this client: ``GET /healthz`` (no data behind it), then each
player's stats, streak and today.

Printed: each request's median and p99 (ms), its ratio to ``/healthz``'s median, and for
each endpoint the ten-year player's median over the one-day player's. Before the
samples, each player's statistics are checked against a recount of their runs in
``daily_runs``, and their streak against the one the dates played make (exit code 1 if
either differs).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Final, NamedTuple

import asyncpg
import httpx
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.processes import (
    ADMIN_URL,
    Spawned,
    answers_ok,
    percentile,
    positive,
    service_env,
)
from service.store import daily, players
from service.store.daily import DailyRun
from service.store.db import create_pool, migrate
from service.support.calendar import StreakRuns, frozen_before, streak_after, streak_runs
from tests.recount import recount
from tests.resources import HOST, free_port, throwaway_database

REDIS_URL: Final = "redis://127.0.0.1:6379/0"
ENDPOINTS: Final = ("stats", "streak", "today")
WARM_UP: Final = 30
STARTUP_SECONDS: Final = 60.0


def progress(message: str) -> None:
    print(f"stats: {message}", file=sys.stderr, flush=True)


class Played(NamedTuple):
    runs: list[DailyRun]
    streak: StreakRuns
    frozen: list[date]


def history(player_id: uuid.UUID, days: int, today: date, rng: random.Random) -> Played:
    """One official run a day for ``days`` days up to today (but a date missed now and
    then, never today), as submissions store them: alone on its date, with the streak it
    made and the dates freezes covered before it."""
    runs: list[DailyRun] = []
    streak: StreakRuns | None = None
    frozen: list[date] = []
    for n in range(days):
        day = today - timedelta(days=days - 1 - n)
        if day != today and rng.random() < 0.04:
            continue
        frozen += frozen_before(streak, day)
        streak = streak_after(streak, day)
        score = 0 if rng.random() < 0.07 else rng.randrange(1, 46)
        runs.append(
            DailyRun(
                id=uuid.uuid4(),
                player_id=player_id,
                day=day,
                moves=[[9], [8], [7]],  # not read by the statistics
                score=score,
                best_possible=rng.randrange(0, score + 1),
                rank_better=0,
                rank_worse=0,
                rank_players=1,
                streak_current=streak.latest_length,
                streak_best=streak.best,
                streak_last_played=day,
                played_today=True,
                submitted_at=datetime.combine(day, datetime.min.time(), tzinfo=UTC)
                + timedelta(hours=12),
                streak_freezes=streak.freezes,
                weekly_current=streak.weekly_length,
                weekly_best=streak.weekly_best,
            )
        )
    assert streak is not None
    return Played(runs, streak, frozen)


async def fill(url: str, days: int, now: datetime) -> dict[str, tuple[str, uuid.UUID]]:
    """The two players and their runs: each one's token and id, by name."""
    connection = await asyncpg.connect(url)
    try:
        await migrate(connection)
    finally:
        await connection.close()
    pool = await create_pool(url, max_size=2)
    rng = random.Random(20261129)
    made = {}
    try:
        today = now.date()
        await daily.make_partitions(pool, today - timedelta(days=days), today)
        for name, played in (("1 day", 1), (f"{days:,} days", days)):
            token = players.new_token()
            player = await players.create(pool, None, "UTC", now - timedelta(days=days), token)
            runs, streak, frozen = history(player.id, played, today, rng)
            async with pool.acquire() as connection, connection.transaction():
                await daily.insert_runs(
                    connection, runs, {player.id: streak}, frozen={player.id: frozen}
                )
            made[name] = (token, player.id)
            progress(f"{name}: {len(runs):,} runs, {len(frozen):,} dates frozen, {streak}")
        await pool.execute("VACUUM ANALYZE")
    finally:
        await pool.close()
    return made


async def check(url: str, base_url: str, made: dict[str, tuple[str, uuid.UUID]]) -> None:
    """Each player's answer is the recount of their runs."""
    connection = await asyncpg.connect(url)
    try:
        counted = await recount(connection, [player_id for _token, player_id in made.values()])
    finally:
        await connection.close()
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        for name, (token, player_id) in made.items():
            response = await http.get(
                "/v1/players/me/stats", headers={"Authorization": f"Bearer {token}"}
            )
            shown: dict[str, Any] = response.json()
            figures = {k: v for k, v in shown.items() if k != "streak"}
            if response.status_code != 200 or figures != counted[player_id].figures():
                raise SystemExit(f"stats: {name}: {response.status_code} {response.text[:300]}")
            days = [r["day"] for r in await fetch_days(url, player_id)]
            walked = streak_runs(days)
            assert walked is not None
            expected = {
                "current": walked.latest_length, "best": walked.best,
                "freezes": walked.freezes,
                "weekly": {"current": walked.weekly_length, "best": walked.weekly_best},
            }  # fmt: skip
            streak = {k: v for k, v in shown["streak"].items() if k in expected}
            if streak != expected:
                raise SystemExit(f"stats: {name}: streak {streak}, the dates make {expected}")
            progress(f"{name}: played {shown['played']}, streak {shown['streak']}")


async def fetch_days(url: str, player_id: uuid.UUID) -> list[asyncpg.Record]:
    connection = await asyncpg.connect(url)
    try:
        return await connection.fetch(
            "SELECT day FROM daily_runs WHERE player_id = $1 ORDER BY day", player_id
        )
    finally:
        await connection.close()


class Server(Spawned):
    """``shutbox serve``, one worker."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        command = [sys.executable, "-m", "service.cli", "serve", "--host", HOST]
        command += ["--port", str(self.port), "--workers", "1"]
        super().__init__("server", command, env, log)
        failure = "stats: the server did not become ready"
        self.wait_until(lambda: answers_ok(f"{self.url}/readyz"), failure, STARTUP_SECONDS, 0.2)


def measure(
    base_url: str, made: dict[str, tuple[str, uuid.UUID]], samples: int
) -> dict[str, list[float]]:
    requests = {"GET /healthz (ref.)": ("/healthz", {})} | {
        f"{endpoint}, {name}": (f"/v1/players/me/{endpoint}", {"Authorization": f"Bearer {token}"})
        for endpoint in ENDPOINTS
        for name, (token, _player_id) in made.items()
    }
    times: dict[str, list[float]] = {name: [] for name in requests}
    with httpx.Client(base_url=base_url, timeout=10) as http:
        for n in range(WARM_UP + samples):
            for name, (path, headers) in requests.items():
                started = time.perf_counter()
                response = http.get(path, headers=headers)
                elapsed = (time.perf_counter() - started) * 1000
                if response.status_code != 200:
                    raise SystemExit(f"stats: {name}: {response.status_code} {response.text[:300]}")
                if n >= WARM_UP:
                    times[name].append(elapsed)
    return times


def report(times: dict[str, list[float]]) -> None:
    reference = statistics.median(times["GET /healthz (ref.)"])
    print(f"{'request':<24} {'median ms':>10} {'p99 ms':>8} {'x /healthz':>11}")
    for name, values in times.items():
        median = statistics.median(values)
        p99 = percentile(values, 0.99)
        print(f"{name:<24} {median:>10.3f} {p99:>8.3f} {median / reference:>11.2f}")
    for endpoint in ENDPOINTS:
        one, many = (
            statistics.median(values)
            for name, values in times.items()
            if name.startswith(f"{endpoint}, ")
        )
        print(f"{endpoint}: ten years / one day (medians): {many / one:.2f}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=positive, default=3650, help="the long history, in days")
    parser.add_argument("--samples", type=positive, default=300, help="requests of each")
    parser.add_argument("--postgres", default=ADMIN_URL, help="a URL that may create databases")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    now = datetime.now(UTC)
    prefix = f"shutbox-stats-{secrets.token_hex(4)}:"
    with (
        throwaway_database(args.postgres, "shutbox_stats") as url,
        tempfile.TemporaryDirectory() as scratch,
    ):
        started = time.perf_counter()
        made = asyncio.run(fill(url, args.days, now))
        progress(f"filled in {time.perf_counter() - started:.1f} s")
        server = Server(service_env(url, REDIS_URL, prefix), Path(scratch) / "server.log")
        try:
            asyncio.run(check(url, server.url, made))
            times = measure(server.url, made, args.samples)
        finally:
            server.stop()
            keys = redis.Redis.from_url(REDIS_URL)
            for key in keys.scan_iter(match=f"{prefix}*", count=500):
                keys.unlink(key)
            keys.close()
    report(times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
