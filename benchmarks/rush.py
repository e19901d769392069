"""The midnight rush: what one phone does when the Daily Dice open, as open-loop
arrivals at fixed rates in steps, against two service workers with PostgreSQL and Redis.

    .venv/bin/python benchmarks/rush.py [--rates 100,250,500,750,1000] [--seconds 30]
        [--warmup 10] [--clients 2] [--runs 100000] [--by-request N] [--traces SHARE]
        [--keep-going] [--quick] [--json FILE]

A player-day (the mix of #41): 20% of players are new (``POST /v1/players`` with a token
of their own); then the day's dice, the official run (with an ``Idempotency-Key``), the
streak, the friends' board and the share text; 30% also read the leaderboard and 20%
play a Solo round (``POST /v1/deals``, then ``POST /v1/analyze`` of the dealt dice
played by Medium). The others were put into the database beforehand (in UTC, with 0 to
20 friends each among the date's players and each other), the date already holding
``--runs`` official runs of synthetic players (``shutbox synth-day``).

Everything on loopback, the service at its defaults (request log on, rate limits on at a
rate one client address does not reach, ``benchmarks/serving.py``), its clock frozen at
noon UTC of the date. Arrivals are a Poisson process of the step's rate, split among
``--clients`` client processes; each player-day holds one keep-alive connection (a
phone's) for its requests, one after another. The client is a lean HTTP/1.1 client on
asyncio streams (httpx costs about 1 ms of CPU a request): it reports its own CPU, and
how late it starts player-days (its start lag); a step whose lag p99 is over 10 ms is
marked, since the client, not the service, was then what was measured.

Per step: offered and achieved rate, errors (any status but the expected one, or no
answer), request and player-day p50 and p99, p99 per endpoint, and CPU per completed
player-day by process group, from ``/proc`` over the step and its drain: the service
(granian and its workers), PostgreSQL (the backends of the benchmark's database and the
server's background processes), Redis (its own redis-server) and the client. A step
passes when it has no error, p99 over all requests <= 50 ms and the lag in bounds.

Each run measures its reference first: the CPU of a bare Litestar GET under the same
server (``bare_get_ms``); CPU per player-day is also given in bare GETs.
``--by-request N`` first sends N of each request of a player-day alone and prints the
CPU each costs by process. ``--traces SHARE`` turns traces on, that share of requests
sampled, exported over OTLP/HTTP to a sink in this process: what tracing costs a
player-day.
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import json
import multiprocessing
import random
import secrets
import sys
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path
from typing import Any, Final

import asyncpg
import msgspec
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.http_bench import daily_run_bodies, running
from benchmarks.processes import ADMIN_URL, percentile, python_env
from benchmarks.serving import (
    BACKLOG,
    WORKERS,
    fill,
    migrated,
    progress,
    served,
    vacuum_analyze,
)
from service.api.schemas import move_out
from service.rules.computers import MEDIUM, play
from service.rules.ruleset import Rules
from service.rules.solver import Tables, solve
from service.store.players import token_hash
from tests.resources import HOST, free_port

DEFAULT_DATE: Final = date(2026, 10, 31)
RATES: Final = (100, 250, 500, 750, 1000)
STEP_SECONDS: Final = 30.0
WARMUP_SECONDS: Final = 10.0
WARMUP_RATE: Final = 100
FILL_RUNS: Final = 100_000
MOST_FRIENDS: Final = 20
NEW_SHARE: Final = 0.2
LEADERBOARD_SHARE: Final = 0.3
SOLO_SHARE: Final = 0.2
LAG_LIMIT_MS: Final = 10.0
P99_TARGET_MS: Final = 50.0
CPU_TARGET_MS: Final = 2.0
RATE_TARGET: Final = 500
DRAIN_SECONDS: Final = 30.0  # after a step's last arrival, the most its player-days may take
START_DELAY: Final = 0.5  # the client processes start a step together, this long after the call
PLAYER_COLUMNS: Final = ("id", "name", "time_zone", "token_hash", "created_at")
# A keep-alive connection idle this long is not used again: the server closes one that
# waits for a request's headers longer than SHUTBOX_HEADER_TIMEOUT (5 s by default).
IDLE_MOST: Final = 3.0
BEHIND: Final = 0.9  # a step that completes less than this share of its offered rate fell behind
SETTLE_MOST: Final = 60.0
IDLE_CPU: Final = 0.1  # CPU seconds a second: the service, PostgreSQL and Redis at rest


# A lean HTTP/1.1 client -----------------------------------------------------------------------


class Refused(Exception):
    """An answer with a status other than the one expected, or none."""


class Connection:
    """One keep-alive connection: a request at a time, the answer's status and body."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.used = time.monotonic()

    async def request(
        self,
        head: bytes,
        body: bytes = b"",
    ) -> tuple[int, bytes]:
        self.writer.write(head + body if body else head)
        headers = await self.reader.readuntil(b"\r\n\r\n")
        status = int(headers[9:12])
        lowered = headers.lower()
        at = lowered.find(b"content-length:")
        if at >= 0:
            end = lowered.index(b"\r\n", at)
            return status, await self.reader.readexactly(int(lowered[at + 15 : end]))
        if b"transfer-encoding: chunked" in lowered:
            chunks = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n"))[:-2].split(b";")[0], 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    return status, b"".join(chunks)
                chunks.append(chunk[:-2])
        return status, b""

    def close(self) -> None:
        self.writer.close()


def head(
    method: str,
    path: str,
    token: str | None = None,
    length: int | None = None,
    key: str | None = None,
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    if key is not None:
        lines.append(f"Idempotency-Key: {key}")
    if length is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {length}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


# One client process -------------------------------------------------------------------------


@dataclass
class Job:
    """What one client process does in one step."""

    host: str
    port: int
    day: date
    rate: float
    seconds: float
    start_at: float  # time.monotonic() (the machine's, shared by every process)
    tokens: list[str]  # players already in the database, one a player-day
    run_bodies: list[bytes]
    seed: int


@dataclass
class Tally:
    """What one client process saw in one step (or, added up, all of them)."""

    started: int = 0
    completed: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    requests: dict[str, list[float]] = field(default_factory=dict)  # ms, by endpoint
    days: list[float] = field(default_factory=list)  # ms, a player-day from its start
    lags: list[float] = field(default_factory=list)  # ms, its start after its arrival
    last_done: float = 0.0
    cpu_seconds: float = 0.0
    out_of_tokens: int = 0

    def add(self, other: Tally) -> None:
        self.started += other.started
        self.completed += other.completed
        self.errors += other.errors
        self.error_samples += other.error_samples[: 10 - len(self.error_samples)]
        for name, values in other.requests.items():
            self.requests.setdefault(name, []).extend(values)
        self.days += other.days
        self.lags += other.lags
        self.last_done = max(self.last_done, other.last_done)
        self.cpu_seconds += other.cpu_seconds
        self.out_of_tokens += other.out_of_tokens


class Client:
    def __init__(self, job: Job, tables: Tables, rules: Rules) -> None:
        self.job = job
        self.tables = tables
        self.rules = rules
        self.idle: list[Connection] = []
        self.tally = Tally()
        self.requests: defaultdict[str, list[float]] = defaultdict(list)
        self.rng = random.Random(job.seed)
        self.day = job.day.isoformat()

    async def connection(self) -> Connection:
        """A keep-alive connection idle for less than ``IDLE_MOST`` (the server closes
        one that waits longer for a request's headers), else a new one."""
        now = time.monotonic()
        while self.idle:
            connection = self.idle.pop()
            if now - connection.used < IDLE_MOST:
                return connection
            connection.close()
        reader, writer = await asyncio.open_connection(self.job.host, self.job.port)
        return Connection(reader, writer)

    async def call(
        self,
        connection: Connection,
        name: str,
        expected: int,
        request_head: bytes,
        body: bytes = b"",
    ) -> bytes:
        started = time.perf_counter()
        try:
            status, answer = await connection.request(request_head, body)
        except (OSError, asyncio.IncompleteReadError, ValueError) as error:
            raise Refused(f"{name}: {error!r}") from None
        self.requests[name].append((time.perf_counter() - started) * 1000)
        if status != expected:
            raise Refused(f"{name}: {status} {answer[:200]!r}")
        return answer

    async def player_day(
        self, arrival: float, token: str | None, leaderboard: bool, solo: bool
    ) -> None:
        started = time.monotonic()
        self.tally.lags.append((started - arrival) * 1000)
        day = self.day
        connection = await self.connection()
        try:
            if token is None:
                token = secrets.token_urlsafe(32)
                body = msgspec.json.encode({"token": token, "time_zone": "UTC"})
                await self.call(
                    connection, "create", 201, head("POST", "/v1/players", None, len(body)), body
                )
            await self.call(connection, "dice", 200, head("GET", f"/v1/daily/{day}"))
            body = self.rng.choice(self.job.run_bodies)
            run_head = head("POST", f"/v1/daily/{day}/runs", token, len(body), str(uuid.uuid4()))
            await self.call(connection, "run", 201, run_head, body)
            await self.call(connection, "streak", 200, head("GET", "/v1/players/me/streak", token))
            await self.call(
                connection, "friends", 200, head("GET", f"/v1/daily/{day}/friends", token)
            )
            await self.call(connection, "share", 200, head("GET", f"/v1/daily/{day}/share", token))
            if leaderboard:
                board_head = head("GET", f"/v1/daily/{day}/leaderboard", token)
                await self.call(connection, "leaderboard", 200, board_head)
            if solo:
                await self.solo_round(connection, token)
        except Refused as refusal:
            self.tally.errors += 1
            if len(self.tally.error_samples) < 10:
                self.tally.error_samples.append(str(refusal))
            connection.close()
            return
        done = connection.used = time.monotonic()
        self.idle.append(connection)
        self.tally.completed += 1
        self.tally.days.append((done - started) * 1000)
        self.tally.last_done = max(self.tally.last_done, done)

    async def solo_round(self, connection: Connection, token: str) -> None:
        answer = await self.call(
            connection, "deal", 201, head("POST", "/v1/deals", token, 2), b"{}"
        )
        dealt = msgspec.json.decode(answer)
        dice = tuple(tuple(roll) for roll in dealt["dice"])
        moves = play(self.tables, MEDIUM, self.rules.full, dice, dealt["deal"]).moves
        body = msgspec.json.encode({"deal": dealt["deal"], "moves": [move_out(m) for m in moves]})
        await self.call(
            connection, "analyze", 200, head("POST", "/v1/analyze", token, len(body)), body
        )

    async def run(self) -> Tally:
        job = self.job
        loop_time = time.monotonic
        arrival = job.start_at
        end = job.start_at + job.seconds
        tokens = iter(job.tokens)
        tasks: set[asyncio.Task[None]] = set()
        await asyncio.sleep(max(job.start_at - loop_time(), 0))
        while True:
            arrival += self.rng.expovariate(job.rate)
            if arrival >= end:
                break
            wait = arrival - loop_time()
            if wait > 0:
                await asyncio.sleep(wait)
            new = self.rng.random() < NEW_SHARE
            token = None if new else next(tokens, None)
            if not new and token is None:
                self.tally.out_of_tokens += 1
                continue
            leaderboard = self.rng.random() < LEADERBOARD_SHARE
            solo = self.rng.random() < SOLO_SHARE
            task = asyncio.create_task(self.player_day(arrival, token, leaderboard, solo))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            self.tally.started += 1
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=DRAIN_SECONDS)
            for task in pending:
                task.cancel()
                self.tally.errors += 1
            if pending and len(self.tally.error_samples) < 10:
                self.tally.error_samples.append(f"{len(pending)} player-days unfinished")
        for connection in self.idle:
            connection.close()
        self.tally.requests = dict(self.requests)
        return self.tally


def client_process(job: Job, tables: Tables, rules: Rules, out: Any) -> None:
    cpu = time.process_time()
    tally = asyncio.run(Client(job, tables, rules).run())
    tally.cpu_seconds = time.process_time() - cpu
    out.send(asdict(tally))
    out.close()


# CPU by process group ------------------------------------------------------------------------


def cpu_by_group(server_pid: int, redis_pid: int, database: str) -> dict[str, float]:
    """CPU seconds so far: the server (granian, its workers and their children), the
    PostgreSQL backends of ``database`` with the server's background processes (the
    checkpointer, WAL writer, ...; not the backends of other databases), the
    redis-server."""
    groups = {"service": 0.0, "postgres": 0.0, "redis": 0.0}
    with suppress(psutil.Error):
        root = psutil.Process(server_pid)
        for process in [root, *root.children(recursive=True)]:
            with suppress(psutil.Error):
                times = process.cpu_times()
                groups["service"] += times.user + times.system
    with suppress(psutil.Error):
        times = psutil.Process(redis_pid).cpu_times()
        groups["redis"] += times.user + times.system
    for process in psutil.process_iter(["name", "cmdline"]):
        if process.info["name"] not in ("postgres", "postmaster"):
            continue
        if is_other_backend(" ".join(process.info["cmdline"] or ()), database):
            continue
        with suppress(psutil.Error):
            times = process.cpu_times()
            groups["postgres"] += times.user + times.system
    return groups


def is_other_backend(title: str, database: str) -> bool:
    """Whether a PostgreSQL process's title is a backend's of another database than
    ``database``. A backend's title is "postgres: [cluster:] user database host(port)
    state" (Debian's servers name their cluster: "postgres: 15/main: ..."; a local
    socket's host is "[local]"); a background process's names no client
    ("postgres: 15/main: checkpointer")."""
    words = title.split()[1:]
    if words and words[0].endswith(":"):
        words = words[1:]
    backend = len(words) >= 3 and ("(" in words[2] or words[2] == "[local]")
    return backend and words[1] != database


# The data -------------------------------------------------------------------------------------


async def _players_and_friends(url: str, day: date, count: int, seed: int) -> list[str]:
    """``count`` players in UTC (tokens returned, their SHA-256 stored), each with 0 to
    ``MOST_FRIENDS`` friends among the date's players and each other, both ways."""
    rng = random.Random(seed)
    tokens = [secrets.token_urlsafe(32) for _ in range(count)]
    ids = [uuid.uuid4() for _ in range(count)]
    created = datetime.combine(day - timedelta(days=30), clock_time(12), UTC)
    connection = await asyncpg.connect(url)
    try:
        records = [(i, None, "UTC", token_hash(t), created) for i, t in zip(ids, tokens)]
        await connection.copy_records_to_table("players", records=records, columns=PLAYER_COLUMNS)
        played = [
            row[0]
            for row in await connection.fetch(
                "SELECT player_id FROM daily_runs WHERE day = $1", day
            )
        ]
        everyone = played + ids
        pairs: set[tuple[uuid.UUID, uuid.UUID]] = set()
        for me in ids:
            for friend in rng.sample(everyone, rng.randint(0, MOST_FRIENDS)):
                if friend != me:
                    pairs.add((me, friend))
                    pairs.add((friend, me))
        since = created + timedelta(days=1)
        await connection.copy_records_to_table(
            "friendships",
            records=[(a, b, since) for a, b in pairs],
            columns=("player_id", "friend_id", "since"),
        )
    finally:
        await connection.close()
    return tokens


# A step ---------------------------------------------------------------------------------------


@dataclass
class Step:
    rate: float
    seconds: float
    offered: float
    achieved: float
    started: int
    completed: int
    errors: int
    error_samples: list[str]
    request_p50: float
    request_p99: float
    day_p50: float
    day_p99: float
    lag_p99: float
    endpoint_p99: dict[str, float]
    requests: int
    cpu_ms: dict[str, float]  # CPU per completed player-day, by group

    @property
    def served_ms(self) -> float:
        return sum(self.cpu_ms[group] for group in ("service", "postgres", "redis"))

    @property
    def lag_ok(self) -> bool:
        return self.lag_p99 <= LAG_LIMIT_MS

    @property
    def passed(self) -> bool:
        return self.errors == 0 and self.request_p99 <= P99_TARGET_MS and self.lag_ok


def run_step(
    host: str,
    port: int,
    day: date,
    rate: float,
    seconds: float,
    clients: int,
    tokens: list[str],
    run_bodies: list[bytes],
    cpu: Any,
    seed: int,
) -> Step:
    context = multiprocessing.get_context("fork")
    rules = Rules()
    tables = solve(rules)
    start_at = time.monotonic() + START_DELAY
    shares = [tokens[n::clients] for n in range(clients)]
    pipes, workers = [], []
    before = cpu()
    for n in range(clients):
        job = Job(
            host, port, day, rate / clients, seconds, start_at, shares[n], run_bodies, seed + n
        )
        receiving, sending = context.Pipe(duplex=False)
        worker = context.Process(target=client_process, args=(job, tables, rules, sending))
        worker.start()
        sending.close()
        pipes.append(receiving)
        workers.append(worker)
    total = Tally()
    for receiving in pipes:
        part = Tally(**receiving.recv())
        total.add(part)
    for worker in workers:
        worker.join()
    after = cpu()
    done = max(total.completed, 1)
    cpu_ms = {group: (after[group] - before[group]) * 1000 / done for group in after}
    cpu_ms["client"] = total.cpu_seconds * 1000 / done
    every = [value for values in total.requests.values() for value in values]
    span = max(total.last_done, start_at + seconds) - start_at
    return Step(
        rate=rate,
        seconds=seconds,
        offered=total.started / seconds,
        achieved=total.completed / span if span > 0 else 0.0,
        started=total.started,
        completed=total.completed,
        errors=total.errors + total.out_of_tokens,
        error_samples=total.error_samples
        + ([f"{total.out_of_tokens} player-days without a token"] if total.out_of_tokens else []),
        request_p50=percentile(every, 0.5),
        request_p99=percentile(every, 0.99),
        day_p50=percentile(total.days, 0.5),
        day_p99=percentile(total.days, 0.99),
        lag_p99=percentile(total.lags, 0.99),
        endpoint_p99={
            name: percentile(values, 0.99) for name, values in sorted(total.requests.items())
        },
        requests=len(every),
        cpu_ms=cpu_ms,
    )


# CPU by request ------------------------------------------------------------------------------

KINDS: Final = (
    "create",
    "dice",
    "run",
    "streak",
    "friends",
    "share",
    "leaderboard",
    "deal",
    "analyze",
)
BY_REQUEST_CONNECTIONS: Final = 8


async def _by_request(
    host: str, port: int, day: date, tokens: list[str], bodies: list[bytes], cpu: Any
) -> dict[str, dict[str, float]]:
    """Each request of a player-day alone, ``len(tokens)`` times (``BY_REQUEST_CONNECTIONS``
    connections, a request at a time on each): CPU per request by process group."""
    rules = Rules()
    tables = solve(rules)
    connections = [
        Connection(*await asyncio.open_connection(host, port))
        for _ in range(BY_REQUEST_CONNECTIONS)
    ]
    rng = random.Random(0)
    named = day.isoformat()
    deals: list[bytes] = []

    def requests(kind: str) -> list[tuple[bytes, bytes, int]]:
        if kind == "create":
            made = [msgspec.json.encode({"token": secrets.token_urlsafe(32)}) for _ in tokens]
            return [(head("POST", "/v1/players", None, len(b)), b, 201) for b in made]
        if kind == "dice":
            return [(head("GET", f"/v1/daily/{named}"), b"", 200) for _ in tokens]
        if kind == "run":
            chosen = [rng.choice(bodies) for _ in tokens]
            return [
                (head("POST", f"/v1/daily/{named}/runs", t, len(b), str(uuid.uuid4())), b, 201)
                for t, b in zip(tokens, chosen)
            ]
        if kind == "deal":
            return [(head("POST", "/v1/deals", t, 2), b"{}", 201) for t in tokens]
        if kind == "analyze":
            return [(head("POST", "/v1/analyze", t, len(b)), b, 200) for t, b in zip(tokens, deals)]
        path = {
            "streak": "/v1/players/me/streak",
            "friends": f"/v1/daily/{named}/friends",
            "share": f"/v1/daily/{named}/share",
            "leaderboard": f"/v1/daily/{named}/leaderboard",
        }[kind]
        return [(head("GET", path, t), b"", 200) for t in tokens]

    async def send(connection: Connection, queue: list[tuple[bytes, bytes, int]]) -> list[bytes]:
        answers = []
        while queue:
            request_head, body, expected = queue.pop()
            status, answer = await connection.request(request_head, body)
            if status != expected:
                raise SystemExit(f"rush: {request_head[:60]!r} answered {status}: {answer[:200]!r}")
            answers.append(answer)
        return answers

    shares: dict[str, dict[str, float]] = {}
    try:
        for kind in KINDS:
            queue = requests(kind)
            before = cpu()
            answered = await asyncio.gather(*(send(c, queue) for c in connections))
            after = cpu()
            shares[kind] = {
                group: (after[group] - before[group]) * 1000 / len(tokens) for group in after
            }
            if kind == "deal":
                for answer in (a for part in answered for a in part):
                    dealt = msgspec.json.decode(answer)
                    dice = tuple(tuple(roll) for roll in dealt["dice"])
                    moves = play(tables, MEDIUM, rules.full, dice, dealt["deal"]).moves
                    deals.append(
                        msgspec.json.encode(
                            {"deal": dealt["deal"], "moves": [move_out(m) for m in moves]}
                        )
                    )
    finally:
        for connection in connections:
            connection.close()
    return shares


def print_by_request(shares: dict[str, dict[str, float]], count: int, bare_ms: float) -> None:
    print(
        f"\nCPU ms per request, each kind alone ({count:,} of each, "
        f"{BY_REQUEST_CONNECTIONS} connections):"
    )
    print(f"{'request':<12} {'service':>8} {'postgres':>8} {'redis':>6} {'all':>6} {'per day':>8}")
    weights = {
        "create": NEW_SHARE,
        "leaderboard": LEADERBOARD_SHARE,
        "deal": SOLO_SHARE,
        "analyze": SOLO_SHARE,
    }
    day_total = 0.0
    for kind, cpu in shares.items():
        every = cpu["service"] + cpu["postgres"] + cpu["redis"]
        weighted = every * weights.get(kind, 1.0)
        day_total += weighted
        print(
            f"{kind:<12} {cpu['service']:8.3f} {cpu['postgres']:8.3f} {cpu['redis']:6.3f} "
            f"{every:6.3f} {weighted:8.3f}"
        )
    print(
        f"{'a player-day':<12} {'':>8} {'':>8} {'':>6} {'':>6} {day_total:8.3f}"
        f"  ({day_total / bare_ms:.0f} bare GETs)"
    )


REFERENCE_REQUESTS: Final = 20_000


def bare_get_ms(scratch: Path) -> float:
    """The reference, measured in the same run: CPU ms of a bare Litestar GET
    (``http_bench.bare_app``'s ``/healthz``) under granian with the service's workers,
    ``REFERENCE_REQUESTS`` of them sent as the by-request ones are (a request at a time
    on each of ``BY_REQUEST_CONNECTIONS`` connections). A player-day's CPU in bare GETs
    can be compared across machines and days; its milliseconds cannot (the same tree
    read 3.2 ms a player-day, each request alone, one day and 4.3 ms the next)."""
    port = free_port()
    command = [sys.executable, "-m", "granian", "--interface", "asgi", "--factory"]
    command += ["--host", HOST, "--port", str(port), "--workers", str(WORKERS)]
    command += ["--backlog", str(BACKLOG), "--http", "1", "benchmarks.http_bench:bare_app"]
    request = head("GET", "/healthz")

    async def send_all() -> None:
        connections = [
            Connection(*await asyncio.open_connection(HOST, port))
            for _ in range(BY_REQUEST_CONNECTIONS)
        ]
        left = [REFERENCE_REQUESTS]

        async def send(connection: Connection) -> None:
            while left[0] > 0:
                left[0] -= 1
                status, answer = await connection.request(request)
                if status != 200:
                    raise SystemExit(f"rush: the bare app answered {status}: {answer[:200]!r}")

        try:
            await asyncio.gather(*(send(c) for c in connections))
        finally:
            for connection in connections:
                connection.close()

    with running("bare app", command, port, python_env({}), scratch / "bare.log") as bare:
        root = psutil.Process(bare.pid)

        def used() -> float:
            return sum(sum(p.cpu_times()[:2]) for p in [root, *root.children(recursive=True)])

        asyncio.run(send_all())  # a warm-up, not counted
        before = used()
        asyncio.run(send_all())
        return (used() - before) * 1000 / REFERENCE_REQUESTS


def settle(cpu: Any) -> None:
    """Wait (``SETTLE_MOST`` seconds at most) until the service, PostgreSQL and Redis are
    idle: what a step left behind (requests the client gave up on) is not the next's."""
    deadline = time.monotonic() + SETTLE_MOST
    before = cpu()
    while time.monotonic() < deadline:
        time.sleep(1.0)
        after = cpu()
        if sum(after.values()) - sum(before.values()) < IDLE_CPU:
            return
        before = after


# Report ---------------------------------------------------------------------------------------


def print_steps(steps: Sequence[Step], fill_runs: int, clients: int, bare_ms: float) -> None:
    print(
        f"\nThe midnight rush: player-days at fixed arrival rates, {fill_runs:,} runs already on "
        f"the date, two service workers, {clients} client processes; the reference, a bare "
        f"Litestar GET under the same server: {bare_ms * 1000:.0f} µs of CPU"
    )
    print(
        f"{'offered/s':>9} {'done/s':>7} {'errors':>6} {'req p50':>8} {'req p99':>8} "
        f"{'day p99':>8} {'lag p99':>8}  {'CPU ms per player-day: service + PG + Redis = all':<50}"
        f" {'bare GETs':>9} {'client':>6}  verdict"
    )
    for step in steps:
        cpu = step.cpu_ms
        verdict = "ok" if step.passed else "FAIL"
        if not step.lag_ok:
            verdict += " (client late: lag over 10 ms)"
        print(
            f"{step.offered:9.0f} {step.achieved:7.0f} {step.errors:6d} {step.request_p50:8.1f} "
            f"{step.request_p99:8.1f} {step.day_p99:8.1f} {step.lag_p99:8.1f}  "
            f"{cpu['service']:7.2f} + {cpu['postgres']:5.2f} + {cpu['redis']:4.2f} = "
            f"{step.served_ms:5.2f}{'':<21} {step.served_ms / bare_ms:9.0f} {cpu['client']:6.2f}"
            f"  {verdict}"
        )
    print("\np99 by endpoint (ms):")
    names = sorted({name for step in steps for name in step.endpoint_p99})
    print(f"{'offered/s':>9} " + " ".join(f"{name:>11}" for name in names))
    for step in steps:
        print(
            f"{step.offered:9.0f} "
            + " ".join(f"{step.endpoint_p99.get(name, float('nan')):11.1f}" for name in names)
        )
    for step in steps:
        for sample in step.error_samples:
            print(f"  {step.rate:.0f}/s error: {sample}")
    best = [s for s in steps if s.passed and s.offered >= RATE_TARGET * 0.95]
    print(
        f"\nTarget (#41): a step of >= {RATE_TARGET}/s with p99 <= {P99_TARGET_MS:.0f} ms, "
        "no error, "
        f"<= {CPU_TARGET_MS} ms CPU per player-day: "
        + (
            f"held at {max(s.rate for s in best):.0f}/s, {min(s.served_ms for s in best):.2f} ms"
            f" ({min(s.served_ms for s in best) / bare_ms:.0f} bare GETs)"
            if best
            else "not held"
        )
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rates",
        default=",".join(map(str, RATES)),
        help="player-days a second, a step each (comma-separated)",
    )
    parser.add_argument("--seconds", type=float, default=STEP_SECONDS, help="a step's length")
    parser.add_argument(
        "--warmup",
        type=float,
        default=WARMUP_SECONDS,
        help=f"seconds at {WARMUP_RATE}/s first, not reported",
    )
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--runs", type=int, default=FILL_RUNS, help="runs already on the date")
    parser.add_argument("--date", type=date.fromisoformat, default=DEFAULT_DATE)
    parser.add_argument("--postgres", default=ADMIN_URL)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument(
        "--traces",
        type=float,
        metavar="SHARE",
        help="traces on, this share of requests sampled (0..1), exported over OTLP/HTTP to a "
        "sink in this process (its CPU not counted)",
    )
    parser.add_argument(
        "--keep-going", action="store_true", help="run the higher rates after one fell behind"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: 2,000 runs, steps of 50 and 100/s for 5 s",
    )
    parser.add_argument(
        "--by-request",
        type=int,
        default=0,
        metavar="N",
        help="first, N of each request alone: CPU per request by process",
    )
    parser.add_argument("--json", type=Path, help="also write the steps here, as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.rates, args.seconds, args.warmup = 2000, "50,100", 5.0, 2.0
    args.rates = [float(rate) for rate in args.rates.split(",") if rate]
    return args


class _Sink(http.server.BaseHTTPRequestHandler):
    """A collector that takes every export (``--traces``) and keeps nothing."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_args: Any) -> None:
        pass


def traced(share: float | None) -> dict[str, str]:
    """The environment that turns traces on, ``share`` of the requests sampled, exported
    to a sink of this process's own (started here, a thread): nothing without ``share``."""
    if share is None:
        return {}
    sink = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    return {
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_address[1]}",
        "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
        "OTEL_TRACES_SAMPLER_ARG": str(share),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    now = datetime.combine(args.date, clock_time(12), UTC)
    with migrated(args.postgres, "shutbox_rush", now, traced(args.traces)) as prepared:
        fill(prepared.db_url, prepared.env, args.date, args.runs, args.seed)
        needed = (
            int(
                (WARMUP_RATE * args.warmup + sum(args.rates) * args.seconds) * (1 - NEW_SHARE) * 1.2
            )
            + 100
            + args.by_request
        )
        progress(f"{needed:,} players with 0 to {MOST_FRIENDS} friends each")
        tokens = asyncio.run(_players_and_friends(prepared.db_url, args.date, needed, args.seed))
        vacuum_analyze(prepared.db_url)
        database = prepared.db_url.rpartition("/")[2]
        with served(prepared) as (server, own_redis):
            host, port = server.url.removeprefix("http://").split(":")
            import urllib.request

            with urllib.request.urlopen(f"{server.url}/v1/daily/{args.date}") as answer:
                bodies = daily_run_bodies(answer.read())

            def cpu() -> dict[str, float]:
                return cpu_by_group(server.pid, own_redis.pid, database)

            bare_ms = bare_get_ms(prepared.scratch)
            progress(f"the reference: a bare Litestar GET, {bare_ms * 1000:.0f} µs of CPU")
            if args.by_request:
                mine, tokens = tokens[: args.by_request], tokens[args.by_request :]
                progress(f"{args.by_request:,} of each request alone")
                shares = asyncio.run(_by_request(host, int(port), args.date, mine, bodies, cpu))
                print_by_request(shares, args.by_request, bare_ms)
            steps: list[Step] = []
            plan = [(WARMUP_RATE, args.warmup)] if args.warmup > 0 else []
            plan += [(rate, args.seconds) for rate in args.rates]
            for n, (rate, seconds) in enumerate(plan):
                share = int(rate * seconds * (1 - NEW_SHARE) * 1.2) + 20
                mine, tokens = tokens[:share], tokens[share:]
                progress(f"{rate:.0f} player-days a second for {seconds:.0f} s")
                step = run_step(
                    host,
                    int(port),
                    args.date,
                    rate,
                    seconds,
                    args.clients,
                    mine,
                    bodies,
                    cpu,
                    args.seed * 100 + n * 10,
                )
                server.check_alive()
                if n > 0 or args.warmup <= 0:
                    steps.append(step)
                progress(
                    f"  done {step.achieved:.0f}/s, p99 {step.request_p99:.1f} ms, "
                    f"{step.errors} errors, {step.served_ms:.2f} ms CPU a player-day"
                )
                if step.achieved < BEHIND * step.offered and not args.keep_going:
                    progress("  fell behind: the higher rates are not run (--keep-going runs them)")
                    break
                settle(cpu)
    print_steps(steps, args.runs, args.clients, bare_ms)
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {**asdict(s), "served_ms": s.served_ms, "passed": s.passed, "bare_ms": bare_ms}
                    for s in steps
                ],
                indent=1,
            )
        )
    return 0 if all(step.errors == 0 for step in steps) else 1


if __name__ == "__main__":
    raise SystemExit(main())
