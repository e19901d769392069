"""The friends' board of a date with a million runs: ``GET /v1/daily/{date}/friends``
for a player with 200 friends who all played it.

    .venv/bin/python benchmarks/friends_board.py [--quick] [--runs N] [--samples N]
        [--date YYYY-MM-DD] [--postgres URL]

Everything on loopback (127.0.0.1), in this order:

- a throwaway PostgreSQL database (dropped at the end) is migrated and ``--date`` (by
  default 31 October 2026) filled by ``shutbox synth-day`` with ``--runs`` synthetic
  players and their official runs (1,000,000 by default), then vacuumed, analysed and
  checkpointed (``benchmarks/serving.py``, as for ``benchmarks/scale.py``);
- the service runs with its clock frozen at noon UTC of the date (``serving.py``'s
  server: granian on ``tests.frozen_clock_app:create``, two workers, rate limits on at
  a rate no load here reaches), against a redis-server of the benchmark's own;
- through the API: a player and 200 friends (each redeeming the player's friend code),
  each of the 201 with an official run of the date (legal runs of varied scores);
- single requests, one at a time on one keep-alive connection, ``--samples`` of each
  (300 by default), taking turns sample by sample: the board as the player, and for a
  baseline measured in the same run the player's streak (``GET /v1/players/me/streak``:
  the token looked up and one row read) and ``GET /healthz`` (no data behind it).
  Every board answer is checked: 201 players, best first, ties sharing a place, the
  player's own row marked;
- the board's statement, explained and run on the filled database (its generic plan,
  the one a prepared statement keeps): the buffers it touched and whether any scan read
  the date's runs.

Latency is wall time in this client, which shares the machine's CPUs with the server,
PostgreSQL and Redis. The target: the board's median <= 10 ms. ``--quick``: a smoke run
of the script (20,000 runs, 30 samples). Exit code 1 when an answer is wrong or the
board's statement reads through the date's runs; a target miss is reported in the table.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import uuid
from collections.abc import Sequence
from datetime import UTC, date, datetime
from datetime import time as clock_time
from pathlib import Path
from typing import Any, Final

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.processes import ADMIN_URL, UNREACHED_RATE_LIMIT, TimedClient, percentile
from benchmarks.serving import fill, migrated, served
from tests.runs import legal_runs

DEFAULT_DATE: Final = date(2026, 10, 31)
FRIENDS: Final = 200
TARGET_MEDIAN_MS: Final = 10.0
REQUEST_TIMEOUT: Final = 10.0
WARMUP: Final = 20
KINDS: Final = ("board", "streak", "healthz")
KIND_NAMES: Final = {
    "board": "GET /v1/daily/{date}/friends",
    "streak": "GET /v1/players/me/streak (ref.)",
    "healthz": "GET /healthz (ref.)",
}


def progress(message: str) -> None:
    print(f"friends_board: {message}", file=sys.stderr, flush=True)


def befriended_runs(client: TimedClient, day: date) -> tuple[str, str]:
    """A player and ``FRIENDS`` friends, each with an official run of ``day``: the
    player's token and id."""
    dice = tuple((a, b) for a, b in client.json("GET", f"/v1/daily/{day}", 200)["dice"])
    runs = legal_runs(dice, 64)
    me = client.json("POST", "/v1/players", 201, body={"name": "Me", "time_zone": "UTC"})
    code = client.json("POST", "/v1/players/me/friend-code", 201, me["token"])["code"]
    for n in range(FRIENDS + 1):
        if n < FRIENDS:
            friend = client.json("POST", "/v1/players", 201, body={"name": f"Friend {n:03}"})
            client.request("POST", "/v1/friends", 201, friend["token"], {"code": code})
        else:
            friend = me
        body = {"moves": runs[n % len(runs)]}
        client.request("POST", f"/v1/daily/{day}/runs", 201, friend["token"], body)
    listed = client.json("GET", "/v1/friends", 200, me["token"])
    if len(listed) != FRIENDS:
        raise SystemExit(f"friends_board: the player has {len(listed)} friends, not {FRIENDS}")
    return me["token"], me["id"]


def check_board(board: dict[str, Any], day: date, me: str) -> None:
    players = board["players"]
    scores = [p["score"] for p in players]
    ranks = [p["rank"] for p in players]
    expected_ranks = [1 + sum(s < score for s in scores) for score in scores]
    mine = [p["id"] for p in players if p["me"]]
    if (
        board["date"] != day.isoformat()
        or len(players) != FRIENDS + 1
        or scores != sorted(scores)
        or ranks != expected_ranks
        or mine != [me]
    ):
        raise SystemExit(f"friends_board: a wrong board: {str(board)[:300]}")


def measure(
    client: TimedClient, day: date, token: str, me: str, samples: int
) -> dict[str, list[float]]:
    path = f"/v1/daily/{day}/friends"
    timings: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for n in range(WARMUP + samples):
        elapsed, response = client.request("GET", path, 200, token)
        check_board(response.json(), day, me)
        streak = client.request("GET", "/v1/players/me/streak", 200, token)[0]
        healthz = client.request("GET", "/healthz", 200)[0]
        if n >= WARMUP:
            timings["board"].append(elapsed)
            timings["streak"].append(streak)
            timings["healthz"].append(healthz)
    return timings


async def _explain(url: str, player_id: str, day: date) -> list[str]:
    """The board's statement explained and run, in its generic plan."""
    from service.store.db import QUERIES

    connection = await asyncpg.connect(url)
    try:
        await connection.execute("SET enable_seqscan = off; SET jit = off")
        await connection.execute("SET plan_cache_mode = force_generic_plan")
        await connection.execute(f"PREPARE board (uuid, date) AS {QUERIES.friends_board}")
        rows = await connection.fetch(
            f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE board "
            f"('{uuid.UUID(player_id)}', '{day.isoformat()}')"
        )
    finally:
        await connection.close()
    return [row[0] for row in rows]


def report(runs: int, timings: dict[str, list[float]], plan: list[str]) -> bool:
    medians = {kind: statistics.median(values) for kind, values in timings.items()}
    print()
    print(f"Friends' board: a player with {FRIENDS} friends, a date with {runs:,} runs,")
    print(f"{len(timings['board'])} samples of each request, taking turns (ms)")
    print()
    print("| request | median | p99 | median / streak's |")
    print("|---|---|---|---|")
    for kind in KINDS:
        values = timings[kind]
        ratio = medians[kind] / medians["streak"]
        print(
            f"| {KIND_NAMES[kind]} | {medians[kind]:.2f} | {percentile(values, 0.99):.2f} "
            f"| {ratio:.2f}x |"
        )
    met = medians["board"] <= TARGET_MEDIAN_MS
    print()
    print(
        f"Target: the board's median <= {TARGET_MEDIAN_MS:g} ms: "
        f"{'met' if met else 'MISSED'} ({medians['board']:.2f} ms)"
    )
    print()
    print("The board's statement on the filled database (generic plan, run):")
    for line in plan:
        print(f"    {line}")
    scans_the_date = any("by_day_score" in line or "Seq Scan" in line for line in plan)
    print()
    print(f"Reads through the date's runs: {'YES' if scans_the_date else 'no'}")
    return not scans_the_date


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of the script")
    parser.add_argument("--runs", type=int, default=None, help="runs of the date (1,000,000)")
    parser.add_argument("--samples", type=int, default=None, help="samples of each (300)")
    parser.add_argument("--date", type=date.fromisoformat, default=DEFAULT_DATE)
    parser.add_argument("--postgres", default=ADMIN_URL, help="a role that creates databases")
    args = parser.parse_args(argv)
    args.runs = args.runs or (20_000 if args.quick else 1_000_000)
    args.samples = args.samples or (30 if args.quick else 300)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    now = datetime.combine(args.date, clock_time(12), tzinfo=UTC)
    extra = {"SHUTBOX_RATE_LIMIT_FRIENDS": UNREACHED_RATE_LIMIT, "SHUTBOX_LOG_LEVEL": "WARNING"}
    with migrated(args.postgres, "shutbox_friends", now, extra) as prepared:
        fill(prepared.db_url, prepared.env, args.date, args.runs, seed=1)
        with served(prepared) as (server, _own_redis):
            client = TimedClient("friends_board", server.url, REQUEST_TIMEOUT)
            try:
                progress(f"a player and {FRIENDS} friends, each with a run of {args.date}")
                token, me = befriended_runs(client, args.date)
                progress(f"{args.samples} samples of each request")
                timings = measure(client, args.date, token, me, args.samples)
            finally:
                client.close()
        plan = asyncio.run(_explain(prepared.db_url, me, args.date))
    by_key = report(args.runs, timings, plan)
    return 0 if by_key else 1


if __name__ == "__main__":
    sys.exit(main())
