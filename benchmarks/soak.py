"""Soak: a bounded mixed load on a two-worker server, then an audit of what it stored.

    .venv/bin/python benchmarks/soak.py [--duration 120] [--clients 16] [--workers 2]

Traffic (loopback only): each client, round after round, creates a player and a
Friend Box, plays the date of the player's time zone and then, moved once to a zone
further east (a time zone changes at most once in 24 hours), the date there: up to two
consecutive dates, each with a daily fetch, an official run and a streak read, and an
analysis of a Solo game on fresh dice (the Daily Dice are in play: not analysed
apart). Then it plays a random box of the other clients. Every answer is checked:
anything but the expected status is an error.

Afterwards, in PostgreSQL: every accepted run (daily and box) is stored, and every
streak row agrees with the player's runs (computed again in SQL). Worker memory
(RSS) is sampled after the warm-up (the first fifth) and at the end. The exit code
is 1 on any error, missing run or inconsistent streak.

Uses a throwaway database on the local PostgreSQL and its own Redis key prefix,
both removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import psutil
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.processes import ADMIN_URL, answers_ok  # noqa: E402
from service.api.schemas import move_out  # noqa: E402
from service.rules.computers import EASY, MEDIUM, play  # noqa: E402
from service.rules.ruleset import Rules  # noqa: E402
from service.rules.solver import solve  # noqa: E402
from tests.resources import free_port, throwaway_database  # noqa: E402

REDIS_URL = "redis://127.0.0.1:6379/0"
# Where a player starts and where it moves once: up to two consecutive dates (the one
# each zone is on now).
ZONES = ("Etc/GMT+12", "UTC")

STREAK_AUDIT = """
WITH days AS (
    SELECT player_id, day,
           day - (row_number() OVER (PARTITION BY player_id ORDER BY day))::int AS island
    FROM daily_runs
), islands AS (
    SELECT player_id, island, count(*) AS length, max(day) AS last_day
    FROM days GROUP BY player_id, island
), truth AS (
    SELECT DISTINCT ON (player_id) player_id, length AS latest_length,
           max(length) OVER (PARTITION BY player_id) AS best,
           last_day AS last_played
    FROM islands ORDER BY player_id, last_day DESC
)
SELECT
    (SELECT count(*) FROM truth t LEFT JOIN streaks s USING (player_id)
     WHERE s.player_id IS NULL OR s.latest_length <> t.latest_length
        OR s.best <> t.best OR s.last_played <> t.last_played) AS wrong,
    (SELECT count(*) FROM streaks s LEFT JOIN truth t USING (player_id)
     WHERE t.player_id IS NULL) AS without_runs,
    (SELECT count(*) FROM truth) AS players
"""


class Tally:
    def __init__(self) -> None:
        self.statuses: Counter[str] = Counter()
        self.errors: list[str] = []
        self.latencies: list[float] = []
        self.daily_runs: set[str] = set()
        self.box_runs: set[str] = set()

    async def call(
        self, client: httpx.AsyncClient, expected: set[int], method: str, path: str, **kw: Any
    ) -> httpx.Response | None:
        started = time.perf_counter()
        try:
            response = await client.request(method, path, **kw)
        except httpx.HTTPError as error:
            self.errors.append(f"{method} {path}: {error!r}")
            return None
        self.latencies.append(time.perf_counter() - started)
        key = (
            f"{method} {path.split('/')[2] if path.count('/') > 1 else path} {response.status_code}"
        )
        self.statuses[key] += 1
        if response.status_code not in expected:
            self.errors.append(f"{method} {path}: {response.status_code} {response.text[:200]}")
            return None
        return response


async def client_loop(url: str, deadline: float, tally: Tally, boxes: list[str], n: int) -> None:
    rules = Rules()
    tables = solve(rules)
    rng = random.Random(n)
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        while time.monotonic() < deadline:
            created = await tally.call(
                client,
                {201},
                "POST",
                "/v1/players",
                json={"name": f"Soak {n}", "time_zone": ZONES[0]},
            )
            if created is None:
                await asyncio.sleep(0.2)
                continue
            auth = {"Authorization": f"Bearer {created.json()['token']}"}
            box = await tally.call(client, {201}, "POST", "/v1/boxes", json={}, headers=auth)
            if box is not None:
                boxes.append(box.json()["code"])
            for moved, zone in enumerate(ZONES):
                if time.monotonic() >= deadline:
                    return
                if moved:
                    await tally.call(
                        client, {200}, "PATCH", "/v1/players/me", json={"time_zone": zone},
                        headers=auth,
                    )  # fmt: skip
                today = (datetime.now(UTC) + _offset(zone)).date().isoformat()
                feed = await tally.call(client, {200}, "GET", f"/v1/daily/{today}")
                if feed is None:
                    continue
                dice = tuple((a, b) for a, b in feed.json()["dice"])
                moves = [
                    move_out(m)
                    for m in play(tables, EASY, rules.full, dice, f"{n}/{rng.random()}").moves
                ]
                solo = tuple((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rules.rolls))
                solo_moves = [move_out(m) for m in play(tables, EASY, rules.full, solo, "x").moves]
                await tally.call(
                    client, {200}, "POST", "/v1/analyze", json={"dice": solo, "moves": solo_moves}
                )
                # The same date twice in a row (zones sharing a date): 200 or 409, both fine.
                run = await tally.call(
                    client, {200, 201, 409}, "POST", f"/v1/daily/{today}/runs",
                    json={"moves": moves}, headers=auth,
                )  # fmt: skip
                if run is not None and run.status_code == 201:
                    tally.daily_runs.add(run.json()["run_id"])
                await tally.call(client, {200}, "GET", "/v1/players/me/streak", headers=auth)
            if boxes:
                code = rng.choice(boxes)
                shown = await tally.call(client, {200}, "GET", f"/v1/boxes/{code}")
                if shown is not None:
                    box_rules = msgspec.convert(shown.json()["rules"], Rules)
                    box_dice = tuple((a, b) for a, b in shown.json()["dice"])
                    box_moves = play(
                        solve(box_rules), MEDIUM, box_rules.start_position, box_dice, "soak"
                    ).moves
                    played = await tally.call(
                        client, {201}, "POST", f"/v1/boxes/{code}/runs",
                        json={"moves": [move_out(m) for m in box_moves]}, headers=auth,
                    )  # fmt: skip
                    if played is not None:
                        tally.box_runs.add(played.json()["run_id"])


def _offset(zone: str) -> timedelta:
    return {"Etc/GMT+12": timedelta(hours=-12), "UTC": timedelta(0)}[zone]


def worker_memory(server: subprocess.Popen[bytes]) -> list[int]:
    children = psutil.Process(server.pid).children(recursive=True)
    return sorted(child.memory_info().rss for child in children)


async def audit(url: str, tally: Tally) -> list[str]:
    problems = []
    connection = await asyncpg.connect(url)
    try:
        daily = {str(r["id"]) for r in await connection.fetch("SELECT id FROM daily_runs")}
        boxed = {str(r["id"]) for r in await connection.fetch("SELECT id FROM box_runs")}
        if missing := tally.daily_runs - daily:
            problems.append(f"{len(missing)} accepted daily runs missing")
        if missing := tally.box_runs - boxed:
            problems.append(f"{len(missing)} accepted box runs missing")
        row = await connection.fetchrow(STREAK_AUDIT)
        assert row is not None
        if row["wrong"] or row["without_runs"]:
            problems.append(
                f"streaks: {row['wrong']} disagree with the runs, {row['without_runs']} have none"
            )
        print(f"audit: {len(daily)} daily runs, {len(boxed)} box runs, {row['players']} streaks")
    finally:
        await connection.close()
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=int, default=120, help="seconds of load")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes")
    args = parser.parse_args()

    prefix = f"shutbox-soak-{secrets.token_hex(4)}:"
    with throwaway_database(ADMIN_URL, "shutbox_soak") as database_url:
        port = free_port()
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": REDIS_URL,
            "SHUTBOX_REDIS_PREFIX": prefix,
            "SHUTBOX_SECRET": secrets.token_urlsafe(16),
            "SHUTBOX_LOG_LEVEL": "WARNING",
            "SHUTBOX_RATE_LIMIT_ADDRESS": "off",  # one client address, by design of the soak
            "SHUTBOX_RATE_LIMIT_ACCOUNTS": "off",
            "SHUTBOX_RATE_LIMIT_STORES": "off",
            "SHUTBOX_RATE_LIMIT_TOKEN": "600/m",
        }
        server = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers",
             str(args.workers)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        tally = Tally()
        try:
            _wait_ready(url)
            deadline = time.monotonic() + args.duration
            boxes: list[str] = []
            start_memory: list[int] = []

            async def sample_after_warmup() -> None:
                # Caches, pools and the solver tables fill up in the first fifth of the run.
                await asyncio.sleep(args.duration / 5)
                start_memory.extend(worker_memory(server))

            async def load() -> None:
                await asyncio.gather(
                    sample_after_warmup(),
                    *(client_loop(url, deadline, tally, boxes, n) for n in range(args.clients)),
                )

            started = time.monotonic()
            asyncio.run(load())
            elapsed = time.monotonic() - started
            end_memory = worker_memory(server)
            problems = asyncio.run(audit(database_url, tally))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
            client = redis.Redis.from_url(REDIS_URL)
            for key in client.scan_iter(match=f"{prefix}*"):
                client.unlink(key)
            client.close()

    requests = sum(tally.statuses.values())
    p99 = statistics.quantiles(tally.latencies, n=100)[98] * 1000 if tally.latencies else 0.0
    print(f"soak: {elapsed:.0f} s, {args.clients} clients, {args.workers} workers")
    print(f"requests: {requests} ({requests / elapsed:.0f}/s), errors: {len(tally.errors)}")
    print(f"p99 latency: {p99:.1f} ms")
    print(f"accepted: {len(tally.daily_runs)} daily runs, {len(tally.box_runs)} box runs")
    print(
        "worker RSS MiB: after warm-up "
        + ", ".join(f"{m / 2**20:.0f}" for m in start_memory)
        + "; end "
        + ", ".join(f"{m / 2**20:.0f}" for m in end_memory)
    )
    for status, count in sorted(tally.statuses.items()):
        print(f"  {status}: {count}")
    for error in tally.errors[:10]:
        print(f"error: {error}")
    for problem in problems:
        print(f"audit: {problem}")
    return 1 if tally.errors or problems else 0


def _wait_ready(url: str) -> None:
    deadline = time.monotonic() + 60
    while not answers_ok(f"{url}/readyz"):
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not become ready")
        time.sleep(0.2)


if __name__ == "__main__":
    sys.exit(main())
