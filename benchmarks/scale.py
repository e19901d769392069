"""Scale: the Daily Dice endpoints of a date with 100,000 and of one with 1,000,000 runs
(issue #11).

    .venv/bin/python benchmarks/scale.py [--quick] [--samples N] [--date YYYY-MM-DD]
        [--postgres URL] [--paced-rate N] [--paced-seconds S] [--paced-concurrency N]
        [--paced-client raw|httpx]

Everything on loopback (127.0.0.1), in this order:

- a throwaway PostgreSQL database (dropped at the end) is migrated, then two dates are
  filled by ``shutbox synth-day`` (a subprocess, timed) with synthetic players and their
  official runs: the day after ``--date`` with 100,000, ``--date`` with 1,000,000 (by
  default 1 November 2026 and 31 October 2026: two months, two partitions); the
  database's growth at each fill (players, every partition of daily_runs, streaks,
  day_scores: ``pg_total_relation_size`` of each) is divided by the runs added;
- the service runs with its clock frozen at noon UTC of ``--date`` (granian on
  ``tests.frozen_clock_app:create``, as ``tests/conftest.py``'s ``ServerProcess`` with
  ``frozen_at``; two workers, HTTP/1, the backlog and header timeout of ``shutbox
  serve``; default settings otherwise, request log at INFO to a file, rate limits on at
  a limit no load here reaches), against a ``redis-server`` of this benchmark's own
  (a port of its own, no persistence, a key prefix of its own). The larger date is
  today for its players (UTC), the smaller one for theirs (Pacific/Kiritimati, UTC+14,
  where the next day has begun): both dates take submissions at once;
- single requests (3,000 of each by default, so that a p99 rests on the slowest 30:
  with 1,000, a stall of the machine over a few consecutive requests still moved one
  date's p99 past the other's by 1.3x now and then), one at a time on one keep-alive
  connection, each timed, the two dates taking turns sample by sample (so that what
  drifts on this noisy machine falls on both sizes alike, and the ratios measure the
  data, not the minute): a new player's
  official run ``POST /v1/daily/{date}/runs`` (the player made first, untimed),
  ``GET /v1/daily/{date}/runs/me``, ``GET /v1/daily/{date}/leaderboard`` (as a player who
  played) and ``GET /v1/players/me/history``, and for reference ``GET /healthz`` (no data
  behind it), in three states:

  * ``redis``: Redis up, its mirrors as they come;
  * ``flush``: every sample cold: the prefix's keys deleted in Redis just before each
    request (both dates are open: their ranks are read from PostgreSQL's counters,
    never from the cache's mirror, which holds only the histograms of dates closed
    everywhere);
  * ``stopped``: the same server, its redis-server stopped (SIGTERM) under it: what a
    Redis outage costs a running service (not a service started without Redis);

- between the second and the third state: new players' official runs on the larger
  date paced at 500 a second for 20 seconds (open loop on asyncio, at most 64 in flight
  on keep-alive connections; players inserted beforehand), with the CPU each party used
  meanwhile; then the rank the service reports for one player of each date
  (``runs/me``) with Redis, after a flush and with Redis stopped, next to the rank
  counted in SQL from the date's runs, with no submission on that date in between: they
  must be identical. The paced client is a minimal HTTP/1.1 one on asyncio streams:
  httpx's AsyncClient (``--paced-client httpx``) costs about 2 ms of CPU a request
  here, a whole core at 500/s on a two-core machine, and could not keep that pace even
  against a bare app.

After each fill the database is vacuumed and analysed (what autovacuum would do in the
middle of the measurements, done before them), then checkpointed (the fill's writes are
on disk before the measurements, not written out by the checkpointer meanwhile). Latency
is wall time in this client, which shares the machine's CPUs with the server, PostgreSQL
and Redis. The table puts each figure next to its target: reads' median <= 10 ms and a
submission's <= 15 ms with Redis, nothing over 150 ms after a flush, medians <= 20 ms
with Redis stopped, paced p99 <= 50 ms, each 1M figure within 1.25x of its 100k one, <=
1,500 database bytes per player with one run. ``--quick``: a smoke run of the script
itself (2,000 and 20,000 runs, 10 samples, 3 s paced). Exit code 1 when a figure is not
valid (an unexpected answer); target misses are reported in the table.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path
from typing import Any, Final

import asyncpg
import httpx
import msgspec
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.processes import (
    ADMIN_URL,
    UNREACHED_RATE_LIMIT,
    TimedClient,
    cpu_shares,
    cpu_snapshot,
    insert_players,
    percentile,
    positive,
)
from benchmarks.serving import PARTS, WORKERS, Fill, Prepared, Server, fill, migrated, served
from tests.resources import HOST
from tests.runs import legal_runs

DEFAULT_DATE: Final = date(2026, 10, 31)  # the smaller date in the next month's partition
# Where the day after the larger date has begun at noon UTC of it (UTC+14: 02:00 there).
SMALL_DATE_ZONE: Final = "Pacific/Kiritimati"
REQUEST_TIMEOUT: Final = 10.0
WARMUP_PLAYERS: Final = 5
LEGAL_RUNS: Final = 64

KINDS: Final = ("submit", "runs_me", "leaderboard", "history")
REFERENCE: Final = "healthz"  # no data behind it: the machine's own drift between sizes
KIND_NAMES: Final = {
    "submit": "POST runs (new player)",
    "runs_me": "GET runs/me",
    "leaderboard": "GET leaderboard",
    "history": "GET history",
    REFERENCE: "GET /healthz (ref.)",
}
STATES: Final = ("redis", "flush", "stopped")
STATE_NAMES: Final = {"redis": "with Redis", "flush": "after flush", "stopped": "Redis stopped"}

READ_MEDIAN_MS: Final = 10.0
SUBMIT_MEDIAN_MS: Final = 15.0
FLUSH_MAX_MS: Final = 150.0
STOPPED_MEDIAN_MS: Final = 20.0
PACED_P99_MS: Final = 50.0
GROWTH_RATIO: Final = 1.25
BYTES_PER_RUN: Final = 1500


def progress(message: str) -> None:
    print(f"scale: {message}", file=sys.stderr, flush=True)


RANK_SQL: Final = """
SELECT count(*) FILTER (WHERE score < $2) AS better,
       count(*) FILTER (WHERE score > $2) AS worse,
       count(*) AS players
FROM daily_runs WHERE day = $1
"""


async def _rank_in_sql(url: str, day: date, score: int) -> dict[str, Any]:
    connection = await asyncpg.connect(url)
    try:
        row = await connection.fetchrow(RANK_SQL, day, score)
    finally:
        await connection.close()
    assert row is not None
    players = int(row["players"])
    return {
        "position": int(row["better"]) + 1,
        "players": players,
        "percentile": round(100 * int(row["worse"]) / players, 2) if players else 0.0,
    }


# Single requests ----------------------------------------------------------------------------


class Client(TimedClient):
    """``TimedClient`` with the bodies of the runs it submits."""

    def __init__(self, base_url: str, bodies: dict[date, list[bytes]]) -> None:
        super().__init__("scale", base_url, REQUEST_TIMEOUT)
        self.bodies = bodies
        self.sent = 0

    def new_player(self, time_zone: str) -> str:
        body = msgspec.json.encode({"time_zone": time_zone})
        _, response = self.request("POST", "/v1/players", 201, body=body)
        token: str = response.json()["token"]
        return token

    def submit(self, day: date, token: str) -> float:
        bodies = self.bodies[day]
        body = bodies[self.sent % len(bodies)]
        self.sent += 1
        return self.request("POST", f"/v1/daily/{day}/runs", 201, token, body)[0]

    def runs_me(self, day: date, token: str) -> tuple[float, dict[str, Any]]:
        elapsed, response = self.request("GET", f"/v1/daily/{day}/runs/me", 200, token)
        answer: dict[str, Any] = response.json()
        return elapsed, answer

    def leaderboard(self, day: date, token: str) -> float:
        return self.request("GET", f"/v1/daily/{day}/leaderboard", 200, token)[0]

    def healthz(self) -> float:
        return self.request("GET", "/healthz", 200)[0]

    def history(self, token: str) -> float:
        elapsed, response = self.request("GET", "/v1/players/me/history", 200, token)
        if not response.json():
            raise SystemExit("scale: GET /v1/players/me/history: no run for a player who played")
        return elapsed


def run_bodies(base_url: str, day: date) -> list[bytes]:
    """Legal runs on the date's dice (JSON bodies), of varied scores."""
    response = httpx.get(f"{base_url}/v1/daily/{day.isoformat()}", timeout=REQUEST_TIMEOUT)
    if response.status_code != 200:
        raise SystemExit(f"scale: GET /v1/daily/{day}: {response.status_code} {response.text}")
    dice = tuple((a, b) for a, b in response.json()["dice"])
    return [msgspec.json.encode({"moves": moves}) for moves in legal_runs(dice, LEGAL_RUNS)]


@dataclass(frozen=True)
class Size:
    """One of the two dates: its synthetic runs, and the time zone of the players that
    play it here (the dates are today at the frozen clock in those zones)."""

    runs: int
    day: date
    zone: str


def warm_up(client: Client, base_url: str, sizes: Sequence[Size]) -> None:
    """Every request once or twice on each date, on this connection and on fresh ones
    (so that both workers have their pools, caches and solver tables up): not timed."""
    for size in sizes:
        tokens = [client.new_player(size.zone) for _ in range(WARMUP_PLAYERS)]
        for token in tokens:
            client.submit(size.day, token)
            client.runs_me(size.day, token)
            client.leaderboard(size.day, token)
            client.history(token)
        for n in range(4 * WORKERS):
            fresh = Client(base_url, client.bodies)
            try:
                token = tokens[n % len(tokens)]
                fresh.runs_me(size.day, token)
                fresh.leaderboard(size.day, token)
                fresh.history(token)
                fresh.submit(size.day, fresh.new_player(size.zone))
            finally:
                fresh.close()


Timings = dict[str, list[float]]


class Cold:
    """What makes every sample of the ``flush`` state cold: the prefix's Redis keys
    deleted just before each request."""

    def __init__(self, keys: redis.Redis, prefix: str) -> None:
        self.keys, self.prefix = keys, prefix

    def flush(self) -> None:
        found = list(self.keys.scan_iter(match=f"{self.prefix}*", count=1000))
        if found:
            self.keys.unlink(*found)


def measure_state(
    client: Client, sizes: Sequence[Size], samples: int, cold: Cold | None
) -> tuple[dict[date, Timings], dict[date, list[str]]]:
    """``samples`` of each request on each date, one at a time, the dates taking turns
    (what drifts on the machine meanwhile falls on both alike): each new player's run,
    then the reads as that player. ``cold``: every request made cold first (the
    ``flush`` state)."""
    tokens = {size.day: [client.new_player(size.zone) for _ in range(samples)] for size in sizes}
    timings = {size.day: {kind: [] for kind in (*KINDS, REFERENCE)} for size in sizes}
    with client_gc_paused():
        _measure(client, sizes, tokens, timings, cold)
    return timings, tokens


@contextmanager
def client_gc_paused() -> Iterator[None]:
    """This client's own garbage collection off while it times requests (a collection in
    the middle of one would count as the server's time); collected before and after."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


def _measure(
    client: Client,
    sizes: Sequence[Size],
    tokens: dict[date, list[str]],
    timings: dict[date, Timings],
    cold: Cold | None,
) -> None:
    def in_turn(n: int) -> Sequence[Size]:
        return sizes if n % 2 == 0 else sizes[::-1]  # neither date always first

    for n in range(len(tokens[sizes[0].day])):
        for size in in_turn(n):
            if cold is not None:
                cold.flush()
            timings[size.day]["submit"].append(client.submit(size.day, tokens[size.day][n]))
    reads: tuple[tuple[str, Callable[[date, str], float]], ...] = (
        ("runs_me", lambda day, token: client.runs_me(day, token)[0]),
        ("leaderboard", client.leaderboard),
        ("history", lambda day, token: client.history(token)),
    )
    for n in range(len(tokens[sizes[0].day])):
        for kind, read in reads:
            for size in in_turn(n):
                if cold is not None:
                    cold.flush()
                timings[size.day][kind].append(read(size.day, tokens[size.day][n]))
        for size in in_turn(n):
            timings[size.day][REFERENCE].append(client.healthz())


# Paced load ---------------------------------------------------------------------------------


class RawClient:
    """Keep-alive HTTP/1.1 connections over asyncio streams, one request at a time on
    each: a minimal client, about a tenth of httpx's CPU per request (on this kind of
    machine httpx's AsyncClient costs some 2 ms of CPU a request, a core at 500/s, and
    cannot pace 500/s even against a bare app; the figures would be the client's)."""

    def __init__(self, host: str, port: int, connections: int) -> None:
        self.host, self.port, self.connections = host, port, connections
        self.idle: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = (
            asyncio.Queue()
        )

    async def open(self) -> None:
        for _ in range(self.connections):
            self.idle.put_nowait(await asyncio.open_connection(self.host, self.port))

    async def post(self, path: str, token: str, body: bytes) -> tuple[int, bytes]:
        reader, writer = await self.idle.get()
        try:
            status, answer, close = await asyncio.wait_for(
                self._exchange(reader, writer, path, token, body), REQUEST_TIMEOUT
            )
        except BaseException:
            writer.close()  # its state is unknown: a new connection in its place
            self.idle.put_nowait(await asyncio.open_connection(self.host, self.port))
            raise
        if close:
            writer.close()
            reader, writer = await asyncio.open_connection(self.host, self.port)
        self.idle.put_nowait((reader, writer))
        return status, answer

    async def _exchange(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        path: str,
        token: str,
        body: bytes,
    ) -> tuple[int, bytes, bool]:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        writer.write(head.encode() + body)
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        fields = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip().lower()
        if fields.get("transfer-encoding") == "chunked":
            parts = []
            for _ in range(10_000):
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                parts.append(await reader.readexactly(size + 2))
                if size == 0:
                    break
            answer = b"".join(part[:-2] for part in parts)
        else:
            answer = await reader.readexactly(int(fields.get("content-length", "0")))
        return status, answer, fields.get("connection") == "close"

    async def aclose(self) -> None:
        while not self.idle.empty():
            _, writer = self.idle.get_nowait()
            writer.close()


class HttpxClient:
    """httpx's AsyncClient, bounded to ``connections`` (``--paced-client httpx``)."""

    def __init__(self, base_url: str, connections: int) -> None:
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        self.client = httpx.AsyncClient(base_url=base_url, timeout=REQUEST_TIMEOUT, limits=limits)
        self.connections = connections

    async def open(self) -> None:
        await asyncio.gather(*(self.client.get("/healthz") for _ in range(self.connections)))

    async def post(self, path: str, token: str, body: bytes) -> tuple[int, bytes]:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        response = await self.client.post(path, content=body, headers=headers)
        return response.status_code, response.content

    async def aclose(self) -> None:
        await self.client.aclose()


@dataclass
class Paced:
    rate: float
    seconds: float
    concurrency: int
    client: str
    sent: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    from_schedule_ms: list[float] = field(default_factory=list)
    request_ms: list[float] = field(default_factory=list)
    max_lag_ms: float = 0.0  # how late a request left, after its scheduled time
    elapsed: float = 0.0  # the first scheduled send to the last answer
    cpu: dict[str, float] = field(default_factory=dict)  # CPUs used, by group

    @property
    def created(self) -> int:
        return self.statuses.get(201, 0)

    @property
    def failures(self) -> int:
        return len(self.errors) + sum(n for s, n in self.statuses.items() if s != 201)

    @property
    def achieved(self) -> float:
        return self.created / self.elapsed if self.elapsed else 0.0


async def paced_runs(
    server: Server, day: date, bodies: list[bytes], tokens: list[str], result: Paced
) -> None:
    """One new player's official run every 1/rate seconds, open loop (a send never waits
    for an answer; at most ``concurrency`` in flight on as many keep-alive connections,
    opened first; a send late for a free one counts its wait), each token once."""
    count = min(len(tokens), math.ceil(result.rate * result.seconds))
    path = f"/v1/daily/{day.isoformat()}/runs"
    client: RawClient | HttpxClient
    if result.client == "httpx":
        client = HttpxClient(server.url, result.concurrency)
    else:
        client = RawClient(HOST, server.port, result.concurrency)
    slots = asyncio.Semaphore(result.concurrency)
    last_answer = 0.0

    async def one(n: int, due: float) -> None:
        nonlocal last_answer
        async with slots:
            started = time.perf_counter()
            result.max_lag_ms = max(result.max_lag_ms, (started - due) * 1000)
            try:
                status, answer = await client.post(path, tokens[n], bodies[n % len(bodies)])
            except (OSError, ValueError, TimeoutError, httpx.HTTPError) as error:
                result.errors.append(repr(error))
                return
            ended = time.perf_counter()
        last_answer = max(last_answer, ended)
        result.statuses[status] = result.statuses.get(status, 0) + 1
        if status != 201:
            result.errors.append(f"{status} {answer[:200]!r}")
            return
        result.from_schedule_ms.append((ended - due) * 1000)
        result.request_ms.append((ended - started) * 1000)

    try:
        await client.open()
        start = time.perf_counter() + 0.05
        tasks = []
        for n in range(count):
            due = start + n / result.rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(n, due)))
        result.sent = len(tasks)
        _, pending = await asyncio.wait(tasks, timeout=result.seconds + 2 * REQUEST_TIMEOUT)
        for task in pending:
            task.cancel()
            result.errors.append("not answered in time")
        result.elapsed = max(last_answer - start, 0.0)
    finally:
        await client.aclose()


# One size -----------------------------------------------------------------------------------


@dataclass
class Stage:
    size: Size
    timings: dict[str, Timings] = field(default_factory=dict)  # by state
    ranks: dict[str, dict[str, Any]] = field(default_factory=dict)  # by state, and "sql"
    first_stopped_ms: float = 0.0  # the first request once Redis was stopped
    paced: Paced | None = None

    @property
    def runs(self) -> int:
        return self.size.runs


def run_stages(
    sizes: Sequence[Size], prepared: Prepared, args: argparse.Namespace
) -> tuple[list[Stage], dict[str, dict[str, float]]]:
    """Both dates on one server and one redis-server: the three states, the dates taking
    turns in each; the rank check; the paced load on the larger date before Redis is
    stopped. Returns each date's figures and the CPUs used in each state."""
    stages = [Stage(size) for size in sizes]
    cpu: dict[str, dict[str, float]] = {}
    db_url, env = prepared.db_url, prepared.env
    prefix = env["SHUTBOX_REDIS_PREFIX"]
    with served(prepared) as (server, own_redis):
        keys = redis.Redis.from_url(own_redis.url, socket_timeout=2, socket_connect_timeout=2)
        cold = Cold(keys, prefix)
        flush = cold.flush
        bodies = {size.day: run_bodies(server.url, size.day) for size in sizes}
        client = Client(server.url, bodies)

        def measured(state: str, redis_pid: int | None) -> dict[date, list[str]]:
            progress(f"{STATE_NAMES[state]}, {args.samples} samples of each request on each date")
            cpu_before = cpu_snapshot(server.process.pid, redis_pid)
            started = time.perf_counter()
            timings, tokens = measure_state(
                client, sizes, args.samples, cold if state == "flush" else None
            )
            cpu[state] = cpu_shares(
                cpu_before,
                cpu_snapshot(server.process.pid, redis_pid),
                time.perf_counter() - started,
            )
            for stage in stages:
                stage.timings[state] = timings[stage.size.day]
            return tokens

        try:
            progress("warm-up")
            warm_up(client, server.url, sizes)
            for state in ("redis", "flush"):
                tokens = measured(state, own_redis.process.pid)
            large = stages[-1]
            large.paced = Paced(
                args.paced_rate, args.paced_seconds, args.paced_concurrency, args.paced_client
            )
            count = math.ceil(args.paced_rate * args.paced_seconds)
            created_at = datetime.fromisoformat(env["SHUTBOX_TEST_NOW"]) - timedelta(hours=1)
            paced_tokens = insert_players(db_url, count, created_at, large.size.zone)
            progress(
                f"{large.runs:,} runs: paced at {args.paced_rate:g}/s for"
                f" {args.paced_seconds:g} s ({count} new players)"
            )
            cpu_before = cpu_snapshot(server.process.pid, own_redis.process.pid)
            started = time.perf_counter()
            asyncio.run(
                paced_runs(
                    server, large.size.day, bodies[large.size.day], paced_tokens, large.paced
                )
            )
            large.paced.cpu = cpu_shares(
                cpu_before,
                cpu_snapshot(server.process.pid, own_redis.process.pid),
                time.perf_counter() - started,
            )
            # The rank check: one player's rank on each date, no submission in between.
            players = {stage.size.day: tokens[stage.size.day][0] for stage in stages}
            for stage in stages:
                day = stage.size.day
                answer = client.runs_me(day, players[day])[1]
                stage.ranks["redis"] = answer["rank"]
                stage.ranks["sql"] = asyncio.run(_rank_in_sql(db_url, day, answer["score"]))
            for stage in stages:
                flush()
                stage.ranks["flush"] = client.runs_me(stage.size.day, players[stage.size.day])[1][
                    "rank"
                ]
            flush()
            progress("Redis stopped under the server")
            own_redis.stop()
            for stage in stages:
                stage.first_stopped_ms, answer = client.runs_me(
                    stage.size.day, players[stage.size.day]
                )
                stage.ranks["stopped"] = answer["rank"]
            measured("stopped", None)
        finally:
            client.close()
            with suppress(redis.RedisError):
                flush()  # the prefix's keys, if the redis-server still runs
            keys.close()
    return stages, cpu


# Report -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    median: float
    p99: float
    max: float


def figure(values: list[float]) -> Figure:
    return Figure(statistics.median(values), percentile(values, 0.99), max(values))


def targets_of(kind: str, state: str) -> list[tuple[str, str, float]]:
    """(what, label, limit): what is 'median' or 'max' of the 1M figure."""
    if state == "redis":
        limit = SUBMIT_MEDIAN_MS if kind == "submit" else READ_MEDIAN_MS
        return [("median", f"med<={limit:g}", limit)]
    if state == "flush":
        return [("max", f"max<={FLUSH_MAX_MS:g}", FLUSH_MAX_MS)]
    return [("median", f"med<={STOPPED_MEDIAN_MS:g}", STOPPED_MEDIAN_MS)]


def size_label(runs: int) -> str:
    if runs >= 1_000_000 and runs % 1_000_000 == 0:
        return f"{runs // 1_000_000}M"
    if runs % 1000 == 0:
        return f"{runs // 1000}k"
    return str(runs)


def _slowest(timings: list[float], count: int = 3) -> list[tuple[int, float]]:
    """The ``count`` slowest samples, as (number, from 1, in the order sent; ms)."""
    ranked = sorted(enumerate(timings, 1), key=lambda sample: -sample[1])
    return sorted(ranked[:count])


def print_report(
    fills: list[Fill],
    small: Stage,
    large: Stage,
    cpu: dict[str, dict[str, float]],
    now: datetime,
) -> list[str]:
    """The tables; returns the targets missed."""
    missed: list[str] = []
    slowest: list[tuple[str, str]] = []  # the rows that missed, by kind and state
    a, b = size_label(small.runs), size_label(large.runs)
    print(
        f"scale: {b} runs on {large.size.day} (its players in {large.size.zone}), {a} on"
        f" {small.size.day} (its players in {small.size.zone}), one database; the requests"
        " on the two dates take turns; server clock frozen at"
        f" {now.isoformat()}; granian"
        f" {WORKERS} workers (tests.frozen_clock_app:create), HTTP/1, {HOST}; request log"
        f" at INFO to a file; rate limits on at {UNREACHED_RATE_LIMIT}; {os.cpu_count()} CPUs"
        " shared with PostgreSQL, Redis and this client"
    )
    print(
        "Redis: a redis-server of the benchmark's own; 'after flush': the prefix's keys"
        " deleted before each request; 'Redis"
        " stopped': that redis-server stopped (SIGTERM) under the running server"
    )
    print()
    print("fills (shutbox synth-day, subprocess wall time; then VACUUM (ANALYZE) and CHECKPOINT):")
    for one in fills:
        print(
            f"  {one.day}: {one.runs:>9,} runs (seed {one.seed}): {one.seconds:6.1f} s"
            f"   [{one.said}]   vacuum {one.vacuum_seconds:.1f} s"
        )
    print()
    print(
        "database bytes per player with one run: growth of pg_total_relation_size"
        " (players + daily_runs partitions + streaks + day_scores) / runs added"
    )
    print(
        f"  {'fill':>10} {'players':>12} {'daily_runs':>12} {'streaks':>12} {'day_scores':>11}"
        f" {'total':>13} {'bytes/run':>10} {'target':>11}"
    )
    for one in fills:
        growth = {part: one.after[part] - one.before[part] for part in PARTS}
        met = one.bytes_per_run <= BYTES_PER_RUN
        if not met:
            missed.append(f"bytes per run at +{one.runs:,}: {one.bytes_per_run:.0f}")
        print(
            f"  {'+' + f'{one.runs:,}':>10} {growth['players']:>12,} {growth['daily_runs']:>12,}"
            f" {growth['streaks']:>12,} {growth['day_scores']:>11,} {one.growth:>13,}"
            f" {one.bytes_per_run:>10.0f} {f'<={BYTES_PER_RUN} ' + ('ok' if met else 'MISS'):>11}"
        )
    last = fills[-1].after
    print(
        "  at the end: "
        + ", ".join(f"{part} {last[part] / 2**20:.1f} MiB" for part in PARTS)
        + f"; {sum(last.values()) / sum(one.runs for one in fills):.0f} bytes per synthetic run"
    )
    print()
    samples = len(small.timings["redis"]["submit"])
    print(
        f"single requests, one at a time, {samples} samples each, ms"
        f" (targets at both sizes; x: {b}/{a}, at most {GROWTH_RATIO:g} for median and p99)"
    )
    header = (
        f"{'request':<23} {'state':<13} {a + ' med':>9} {a + ' p99':>9} {a + ' max':>9}"
        f" {b + ' med':>9} {b + ' p99':>9} {b + ' max':>9} {'x med':>6} {'x p99':>6}"
        f"  {'target':<9} verdict"
    )
    print(header)
    print("-" * len(header))
    for kind in (*KINDS, REFERENCE):
        for state in STATES:
            before = figure(small.timings[state][kind])
            after = figure(large.timings[state][kind])
            x_med = after.median / before.median
            x_p99 = after.p99 / before.p99
            misses = []
            labels = []
            if kind == REFERENCE:
                print(
                    f"{KIND_NAMES[kind]:<23} {STATE_NAMES[state]:<13} {before.median:9.2f}"
                    f" {before.p99:9.2f} {before.max:9.2f} {after.median:9.2f} {after.p99:9.2f}"
                    f" {after.max:9.2f} {x_med:6.2f} {x_p99:6.2f}  (no target)"
                )
                continue
            for what, label, limit in targets_of(kind, state):
                labels.append(label)
                for name, measured in ((a, before), (b, after)):
                    if getattr(measured, what) > limit:
                        misses.append(f"{name} {what}")
            if x_med > GROWTH_RATIO:
                misses.append("x med")
            if x_p99 > GROWTH_RATIO:
                misses.append("x p99")
            verdict = "ok" if not misses else "MISS " + ", ".join(misses)
            if misses:
                missed.append(f"{KIND_NAMES[kind]}, {STATE_NAMES[state]}: {', '.join(misses)}")
                slowest.append((kind, state))
            print(
                f"{KIND_NAMES[kind]:<23} {STATE_NAMES[state]:<13} {before.median:9.2f}"
                f" {before.p99:9.2f} {before.max:9.2f} {after.median:9.2f} {after.p99:9.2f}"
                f" {after.max:9.2f} {x_med:6.2f} {x_p99:6.2f}  {' '.join(labels):<9} {verdict}"
            )
    for kind, state in slowest:
        print(
            f"slowest samples of {KIND_NAMES[kind]}, {STATE_NAMES[state]} (sample number: ms): "
            + "; ".join(
                f"{size_label(stage.runs)} "
                + ", ".join(f"#{n}: {ms:.1f}" for n, ms in _slowest(stage.timings[state][kind]))
                for stage in (small, large)
            )
        )
    print(
        "CPUs used by other processes than the server, PostgreSQL, Redis and this client: "
        + ", ".join(f"{STATE_NAMES[state]} {cpu[state]['other processes']:.2f}" for state in STATES)
    )
    for stage in (small, large):
        print(
            f"first request once Redis was stopped ({size_label(stage.runs)}, GET runs/me):"
            f" {stage.first_stopped_ms:.1f} ms"
        )
    print()
    paced = large.paced
    if paced is not None:
        sched = paced.from_schedule_ms or [math.nan]
        req = paced.request_ms or [math.nan]
        met = percentile(sched, 0.99) <= PACED_P99_MS and paced.failures == 0
        if not met:
            missed.append(f"paced at {b}: p99 {percentile(sched, 0.99):.1f} ms")
        others = {s: n for s, n in paced.statuses.items() if s != 201}
        print(
            f"paced at {b}: POST runs by new players at {paced.rate:g}/s for {paced.seconds:g} s,"
            f" open loop, at most {paced.concurrency} in flight ({paced.client} asyncio client)"
        )
        print(
            f"  sent {paced.sent}, 201: {paced.created}, other statuses: {others or 'none'},"
            f" errors: {len(paced.errors)}; achieved {paced.achieved:.0f}/s"
            f" ({paced.elapsed:.1f} s to the last answer)"
        )
        print(
            f"  from the scheduled send: median {statistics.median(sched):.2f} ms,"
            f" p99 {percentile(sched, 0.99):.2f} ms, max {max(sched):.2f} ms"
            f"   target p99<={PACED_P99_MS:g}: {'ok' if met else 'MISS'}"
        )
        print(
            f"  the request alone: median {statistics.median(req):.2f} ms,"
            f" p99 {percentile(req, 0.99):.2f} ms; latest send {paced.max_lag_ms:.1f} ms"
            " behind schedule"
        )
        print(
            "  CPUs used meanwhile (CPU seconds per second): "
            + ", ".join(
                f"{group} {used:.2f}"
                for group, used in paced.cpu.items()
                if group not in ("busy", "wrk")
            )
            + f"; the machine {100 * paced.cpu.get('busy', 0.0):.0f}% busy"
        )
        for error in paced.errors[:5]:
            print(f"  error: {error}")
        print()
    for stage in (small, large):
        ranks = stage.ranks
        same = all(ranks[state] == ranks["sql"] for state in STATES)
        if not same:
            missed.append(f"ranks differ at {size_label(stage.runs)}")

        def shown(rank: dict[str, Any]) -> str:
            return f"{rank['position']}/{rank['players']} ({rank['percentile']}%)"

        print(
            f"rank of one player (GET runs/me) at {size_label(stage.runs)}: "
            + "; ".join(f"{STATE_NAMES[state]} {shown(ranks[state])}" for state in STATES)
            + f"; counted in SQL {shown(ranks['sql'])}: "
            + ("identical" if same else "DIFFERENT")
        )
    print()
    if missed:
        print(f"targets missed ({len(missed)}):")
        for miss in missed:
            print(f"  {miss}")
    else:
        print("every target met")
    return missed


# Main ---------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run: small and short")
    parser.add_argument("--samples", type=positive, help="samples of each request (3000; quick 10)")
    parser.add_argument(
        "--date",
        type=date.fromisoformat,
        default=DEFAULT_DATE,
        help="the larger date (the smaller one is the day after)",
    )
    parser.add_argument("--postgres", default=ADMIN_URL, help="a URL that may create databases")
    parser.add_argument("--paced-rate", type=float, default=500.0, help="runs a second, paced")
    parser.add_argument("--paced-seconds", type=float, help="seconds paced (20; quick 3)")
    parser.add_argument("--paced-concurrency", type=positive, default=64, help="most in flight")
    parser.add_argument(
        "--paced-client",
        choices=("raw", "httpx"),
        default="raw",
        help="the paced load's client: raw asyncio HTTP/1.1 (default), or httpx (costlier)",
    )
    args = parser.parse_args(argv)
    if args.samples is None:
        args.samples = 10 if args.quick else 3000
    if args.paced_seconds is None:
        args.paced_seconds = 3.0 if args.quick else 20.0
    if not 0 < args.paced_rate <= 5000 or not 0 < args.paced_seconds <= 300:
        parser.error("--paced-rate is 0 to 5000 a second, --paced-seconds 0 to 300")
    if args.date == datetime.now(UTC).date():
        parser.error("pick a date other than today's (the server's clock is frozen on it)")
    if args.date + timedelta(days=1) == datetime.now(UTC).date():
        parser.error("pick a date other than yesterday (the smaller date is the day after)")
    args.sizes = (2_000, 20_000) if args.quick else (100_000, 1_000_000)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    now = datetime.combine(args.date, clock_time(12), tzinfo=UTC)
    small_runs, large_runs = args.sizes
    with migrated(args.postgres, "shutbox_scale", now) as prepared:
        sizes = (
            Size(small_runs, args.date + timedelta(days=1), SMALL_DATE_ZONE),
            Size(large_runs, args.date, "UTC"),
        )
        fills = [
            fill(prepared.db_url, prepared.env, size.day, size.runs, seed)
            for seed, size in enumerate(sizes, 1)
        ]
        (small, large), cpu = run_stages(sizes, prepared, args)
    print_report(fills, small, large, cpu, now)
    invalid = large.paced is not None and large.paced.failures > 0
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
