"""HTTP benchmark of the service against a bare Litestar app on the same server, with wrk.

    .venv/bin/python benchmarks/http_bench.py [--duration S] [--workers N]
        [--connections C] [--threads T] [--warmup S] [--date YYYY-MM-DD]
        [--rate-limit N/s|off] [--players-per-second N] [--way front|framework] [--json]

Everything runs in one go on loopback (127.0.0.1), one server under load at a time:

- the ceiling: ``bare_app()`` below, one async JSON GET returning a small dict, served by
  granian exactly as ``shutbox serve`` serves the service (ASGI, same address, same
  number of workers, same backlog);
- for reference, the same bare app's JSON POST, sent the analyze bodies: it decodes
  the body and answers a small object, so its ratio is the most any POST can reach
  (the POST rows also show their ratio to it, in the column "x POST");
- both references are read before the service's rows and again after them (the bare
  app idle in between): each reference's row is the mean of its two readings, printed
  below the table, so that the machine's drift over the run falls on both sides of
  every ratio;
- the service's ``GET /healthz``, for reference: its framework and middleware alone
  (health checks are exempt from rate limits);
- ``GET /v1/daily/{date}``, a cache hit (warmed first), for an open date (default:
  yesterday by the system clock, which the service uses too);
- ``POST /v1/analyze`` with standard rules, 10 rolls and a legal move list (Medium's
  play on the dice), rotating among several bodies (``benchmarks/wrk/post_bodies.lua``);
- ``POST /v1/daily/{today}/runs`` with every request a new player's first official run
  (201), today being the UTC date by the system clock (open to the UTC players made
  here): players are inserted straight into the database with known random tokens, and
  ``benchmarks/wrk/new_player_runs.lua`` sends each token once, with the legal runs a
  day's players make in turn (``daily_run_bodies``: the computer players' and random
  legal play, some dozens distinct, as a date's players make). First at full load, then
  paced at half the rate reached, open loop, with fresh players: its row reports the
  rate achieved and the p99 at that load. The answers are counted by status: a 200
  would be a player reused (flagged), a wrk thread out of tokens stops and is flagged
  (``--players-per-second`` sizes the full-load supply);
- for reference, the same Daily Dice feed from a second service process with the
  request log off (WARNING), measured between two runs of the feed with it on (the
  feed's row is their mean): what the log costs the feed is printed below the table.

The service runs at its defaults, one worker unless ``--workers`` says otherwise: the
request log on (INFO, one JSON line a request, to a file) and the rate limiter on every
request as in production, with a limit no benchmark reaches (``--rate-limit``; ``off``
to measure without it); ``--way framework`` serves it with no answers before the framework
(``benchmarks/framework_way.py``), to read what they buy. It gets a throwaway PostgreSQL
database and its own Redis key prefix, both removed at the end.

Each figure is wrk's requests per second and p99 latency after a short warm-up, and
the ratio of the requests per second to the ceiling's (the POSTs also to the bare
POST's, which their targets are set against), measured in the same run:
client and servers share this machine's CPUs, so only ratios carry over from one
machine to another. Needs ``wrk`` (Debian: ``apt-get install -y wrk``).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Final

import msgspec
import redis
from litestar import Litestar, get, post

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import processes
from benchmarks.processes import (
    ROOT,
    UNREACHED_RATE_LIMIT,
    Spawned,
    answers_ok,
    insert_players,
    pid_serving,
    positive,
    python_env,
    service_env,
)
from service.api.schemas import move_out, rules_out
from service.rules.computers import COMPUTERS, MEDIUM, play
from service.rules.dice import derive_dice
from service.rules.ruleset import Roll, Rules
from service.rules.solver import solve
from tests.resources import HOST, free_port, throwaway_database
from tests.runs import at_random, played

BACKLOG: Final = 2048  # as in service.cli._serve
POST_BODIES_LUA: Final = ROOT / "benchmarks" / "wrk" / "post_bodies.lua"
NEW_PLAYER_RUNS_LUA: Final = ROOT / "benchmarks" / "wrk" / "new_player_runs.lua"
STARTUP_SECONDS: Final = 60.0
STOP_SECONDS: Final = 10.0
ANALYZE_BODIES: Final = 32
# The goals of #12: the feed against the bare GET, the POSTs against the bare POST.
TARGETS: Final = {"daily": 0.9, "analyze": 0.5, "daily_run": 0.3}
PACED_SHARE: Final = 0.5  # the paced run offers this share of the full-load rate
PACED_MARGIN: Final = 1.1  # tokens for a paced run: its schedule's count, plus 10%


# The ceiling ------------------------------------------------------------------------------


@get("/healthz")
async def _bare_healthz() -> dict[str, str]:
    return {"status": "ok"}


@post("/echo", status_code=200)
async def _bare_post(data: dict[str, Any]) -> dict[str, int]:
    return {"fields": len(data)}


def _frozen_heap() -> None:
    gc.collect()
    gc.freeze()


SERVE: Final = {
    "front": ("service.cli", "serve"),  # the product, as operators start it
    "framework": ("benchmarks.framework_way",),  # the same, every request the framework's way
}


def bare_app() -> Litestar:
    """The ceiling: Litestar with one JSON GET (a granian factory); and, for reference,
    one JSON POST that decodes its body and answers a small object: what being a POST
    with a body costs before any work is done. Its start-up objects are kept out of the
    garbage collector's full passes, as the service's are (``service.app``): else those
    passes stall the bare POST, and the ceiling would be lower than a bare app's."""
    return Litestar(
        route_handlers=[_bare_healthz, _bare_post], on_startup=[_frozen_heap], debug=False
    )


# Servers ------------------------------------------------------------------------------------


class Server(Spawned):
    """A server under test on ``port``."""

    def __init__(
        self, name: str, command: Sequence[str], port: int, env: dict[str, str], log: Path
    ) -> None:
        super().__init__(name, command, env, log, stop_seconds=STOP_SECONDS)
        self.port = port

    def url(self, path: str) -> str:
        return f"http://{HOST}:{self.port}{path}"

    def wait_until_ok(self, path: str) -> None:
        failure = f"http_bench: {self.name}: no 200 from {path}"
        self.wait_until(lambda: answers_ok(self.url(path)), failure, STARTUP_SECONDS, 0.1)


@contextmanager
def running(
    name: str, command: Sequence[str], port: int, env: dict[str, str], log: Path
) -> Iterator[Server]:
    """A server answering 200 on /healthz, stopped on the way out."""
    server = Server(name, command, port, env, log)
    try:
        server.wait_until_ok("/healthz")
        yield server
    finally:
        server.stop()


def fetch(url: str, body: bytes | None = None, token: str | None = None) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


# The service's data: a throwaway database and Redis prefix ---------------------------------


@contextmanager
def redis_prefix(url: str) -> Iterator[str]:
    prefix = f"shutbox_bench_{secrets.token_hex(4)}:"
    try:
        yield prefix
    finally:
        client = redis.Redis.from_url(url)
        try:
            keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
            if keys:
                client.delete(*keys)
        finally:
            client.close()


# Requests -----------------------------------------------------------------------------------


def analyze_bodies(count: int) -> list[bytes]:
    """Standard rules, 10 rolls, Medium's moves on them: legal runs of varied length."""
    rules = Rules()
    tables = solve(rules)
    bodies = []
    for n in range(count):
        dice = derive_dice(b"http-bench", f"bench/{n}", rules.rolls)
        moves = play(tables, MEDIUM, rules.full, dice, "x").moves
        body = {"dice": [list(roll) for roll in dice], "moves": [move_out(m) for m in moves]}
        bodies.append(msgspec.json.encode(body))
    return bodies


class _DailyDice(msgspec.Struct):
    rules: dict[str, object]
    dice: list[Roll]


DAILY_RUNS: Final = 64
"""Distinct runs the new players send, at most (``daily_run_bodies``)."""


def daily_run_bodies(daily_dice: bytes, most: int = DAILY_RUNS) -> list[bytes]:
    """Run submissions for the dice of a ``GET /v1/daily/{date}`` answer, as a day's
    players make them, distinct, ``most`` at most: Medium's play first, then the other
    computer players', then seeded random legal play (one die or two where the rules let
    the player choose, then any legal set). A date's players make few distinct runs
    (random legal play makes some dozens in thousands): these are all of them or most."""
    answer = msgspec.json.decode(daily_dice, type=_DailyDice)
    rules = Rules()
    if answer.rules != msgspec.to_builtins(rules_out(rules)):
        raise SystemExit(f"http_bench: the Daily Dice are not on standard rules: {answer.rules}")
    tables, dice = solve(rules), tuple(answer.dice)
    players = [(MEDIUM, "x"), *((c, f"bench/{n}") for n, c in enumerate(COMPUTERS * 10))]
    runs = [list(play(tables, player, rules.full, dice, seed).moves) for player, seed in players]
    rng = random.Random(0)
    runs += [played(dice, rules, at_random(rng)) for _ in range(3000)]
    bodies = {msgspec.json.encode({"moves": [move_out(m) for m in moves]}): None for moves in runs}
    return list(bodies)[:most]


def new_players(url: str, count: int, path: Path) -> Path:
    """``count`` new players in UTC, inserted into the database; their tokens one a line
    in ``path`` (the database keeps only their SHA-256, as the service does)."""
    # After the insert, what autovacuum would do in the middle of the next run, done
    # before it (the whole throwaway database: the players and the runs of the runs before).
    tokens = insert_players(url, count, datetime.now(UTC), "UTC", analyze="VACUUM (ANALYZE)")
    path.write_text("".join(f"{token}\n" for token in tokens))
    return path


# wrk ----------------------------------------------------------------------------------------

_TIME_UNITS_MS: Final = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}
_RPS: Final = re.compile(r"^Requests/sec:\s+([\d.]+)", re.M)
_P99: Final = re.compile(r"^\s*99(?:\.0+)?%\s+([\d.]+)(us|ms|s|m|h)\s*$", re.M)
_REQUESTS: Final = re.compile(r"^\s*(\d+) requests in ", re.M)
_NON_2XX: Final = re.compile(r"Non-2xx or 3xx responses:\s+(\d+)")
_SOCKET_ERRORS: Final = re.compile(
    r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)"
)
_STATUSES: Final = re.compile(r"^new_player_runs: statuses(?P<statuses>( \d+:\d+)*)$", re.M)
_TOKENS: Final = re.compile(
    r"^new_player_runs: tokens (?P<handed_out>\d+) of (?P<tokens>\d+), "
    r"threads out of tokens (?P<out>\d+), behind schedule max (?P<behind>[\d.]+) ms$",
    re.M,
)


@dataclass(frozen=True)
class Load:
    duration: int
    connections: int
    threads: int


@dataclass(frozen=True)
class WrkResult:
    requests: int
    requests_per_sec: float
    p99_ms: float
    non_2xx: int
    socket_errors: int


def parse_wrk(output: str) -> WrkResult:
    rps, p99, requests = _RPS.search(output), _P99.search(output), _REQUESTS.search(output)
    if rps is None or p99 is None or requests is None:
        raise SystemExit("http_bench: cannot read wrk's output:\n" + output)
    non_2xx = _NON_2XX.search(output)
    errors = _SOCKET_ERRORS.search(output)
    return WrkResult(
        requests=int(requests.group(1)),
        requests_per_sec=float(rps.group(1)),
        p99_ms=float(p99.group(1)) * _TIME_UNITS_MS[p99.group(2)],
        non_2xx=int(non_2xx.group(1)) if non_2xx else 0,
        socket_errors=sum(map(int, errors.groups())) if errors else 0,
    )


@dataclass(frozen=True)
class NewPlayerCounts:
    """What ``new_player_runs.lua`` counts: the answers by status (all 201 when every
    request is a new player's first run), the tokens sent out of those supplied, the wrk
    threads that ran out of tokens, and the largest lag of a send behind the schedule."""

    statuses: dict[int, int]
    tokens_handed_out: int
    tokens: int
    threads_out_of_tokens: int
    behind_schedule_ms: float

    @property
    def created(self) -> int:
        return self.statuses.get(201, 0)

    @property
    def reused(self) -> int:
        """200s: the same run again, i.e. a token sent twice."""
        return self.statuses.get(200, 0)

    @property
    def others(self) -> int:
        return sum(count for status, count in self.statuses.items() if status not in (200, 201))


def parse_new_player_counts(output: str) -> NewPlayerCounts:
    statuses, tokens = _STATUSES.search(output), _TOKENS.search(output)
    if statuses is None or tokens is None:
        raise SystemExit("http_bench: cannot read new_player_runs.lua's counts:\n" + output)
    by_status = {}
    for pair in statuses.group("statuses").split():
        status, _, count = pair.partition(":")
        by_status[int(status)] = int(count)
    return NewPlayerCounts(
        statuses=by_status,
        tokens_handed_out=int(tokens.group("handed_out")),
        tokens=int(tokens.group("tokens")),
        threads_out_of_tokens=int(tokens.group("out")),
        behind_schedule_ms=float(tokens.group("behind")),
    )


def wrk_output(url: str, load: Load, duration: int, script: Sequence[str] = ()) -> str:
    """One wrk run's output; ``script``: a Lua script and its arguments."""
    command = ["wrk", "--latency", f"--threads={load.threads}"]
    command += [f"--connections={load.connections}", f"--duration={duration}s"]
    if script:
        command += ["--script", script[0], url, "--", *script[1:]]
    else:
        command.append(url)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"http_bench: wrk failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def wrk(url: str, load: Load, duration: int, script: Sequence[str] = ()) -> WrkResult:
    """One wrk run; ``script``: a Lua script and its arguments."""
    return parse_wrk(wrk_output(url, load, duration, script))


def measure(url: str, load: Load, warmup: int, script: Sequence[str] = ()) -> WrkResult:
    """A warm-up run (discarded), then the measured one."""
    if warmup > 0:
        wrk(url, load, warmup, script)
    return wrk(url, load, load.duration, script)


# The run ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measurement:
    key: str
    endpoint: str
    result: WrkResult
    paced_at: float | None = None  # the requests per second offered, for a paced run
    new_players: NewPlayerCounts | None = None
    cpu: dict[str, float] | None = None  # CPUs used meanwhile, by group (cpu_shares)
    readings: tuple[float, ...] = ()  # a reference's requests per second, before and after


@dataclass(frozen=True)
class Row(Measurement):
    """A measurement with its ratios and whether it met its goal."""

    ratio: float | None = None  # to the ceiling; None for a paced run (its rate was given)
    post_ratio: float | None = None  # a POST's requests per second to the bare POST's
    target: float | None = None
    met: bool | None = None


def progress(message: str) -> None:
    print(f"http_bench: {message}", file=sys.stderr, flush=True)


def measure_new_players(
    server: Server, db_url: str, load: Load, args: argparse.Namespace, scratch: Path
) -> list[Measurement]:
    """``POST /v1/daily/{today}/runs``, each request a new player: at full load, then
    paced at half the rate reached, each wrk run with players of its own."""
    today = datetime.now(UTC).date().isoformat()  # open to a UTC player now, and for 15 min
    daily = server.url(f"/v1/daily/{today}")
    status, answer = fetch(daily)
    if status != 200:
        raise SystemExit(f"http_bench: GET {daily} answered {status}: {answer[:300]!r}")
    bodies = daily_run_bodies(answer)
    body = bodies[0]
    body_path = scratch / "daily_runs.jsonl"
    body_path.write_bytes(b"\n".join(bodies) + b"\n")
    url = server.url(f"/v1/daily/{today}/runs")

    # One player by hand first: 201, then 200 for the same run again (what a reused
    # token would get, and the Lua script would count).
    probe = new_players(db_url, 1, scratch / "probe.tokens").read_text().strip()
    for expected in (201, 200):
        status, answer = fetch(url, body, token=probe)
        if status != expected:
            raise SystemExit(
                f"http_bench: POST {url} answered {status}, not {expected}: {answer[:300]!r}"
            )

    redis_pid = pid_serving(args.redis)

    def new_player_load(
        name: str, seconds: int, players: int, rate: float
    ) -> tuple[WrkResult, NewPlayerCounts, dict[str, float]]:
        """One wrk run with ``players`` new players of its own; ``rate`` 0: unpaced.
        With the CPUs each party used meanwhile."""
        tokens = new_players(db_url, players, scratch / f"{name}.tokens")
        script = [str(NEW_PLAYER_RUNS_LUA), str(tokens), str(body_path), str(load.threads)]
        before, started = processes.cpu_snapshot(server.pid, redis_pid), time.perf_counter()
        output = wrk_output(url, load, seconds, [*script, f"{rate:.3f}"])
        wall = time.perf_counter() - started
        cpu = processes.cpu_shares(before, processes.cpu_snapshot(server.pid, redis_pid), wall)
        return parse_wrk(output), parse_new_player_counts(output), cpu

    supply = args.players_per_second
    progress(f"new players' runs of {today}: full load ({supply} players a second supplied)")
    if args.warmup > 0:
        new_player_load("full-warmup", args.warmup, supply * args.warmup, 0.0)
    full, full_counts, full_cpu = new_player_load(
        "full", load.duration, supply * load.duration, 0.0
    )

    rate = full.requests_per_sec * PACED_SHARE
    if rate <= 0:
        raise SystemExit("http_bench: no run was accepted at full load: nothing to pace")
    progress(f"new players' runs of {today}: paced at {rate:.0f}/s")

    def paced_supply(seconds: int) -> int:
        return math.ceil(rate * seconds * PACED_MARGIN) + load.connections

    if args.warmup > 0:
        new_player_load("paced-warmup", args.warmup, paced_supply(args.warmup), rate)
    paced, paced_counts, paced_cpu = new_player_load(
        "paced", load.duration, paced_supply(load.duration), rate
    )

    endpoint = f"POST /v1/daily/{today}/runs"
    return [
        Measurement(
            key="daily_run",
            endpoint=f"{endpoint} (new players)",
            result=full,
            new_players=full_counts,
            cpu=full_cpu,
        ),
        Measurement(
            key="daily_run_paced",
            endpoint=f"{endpoint}, paced at {rate:.0f}/s",
            result=paced,
            paced_at=rate,
            new_players=paced_counts,
            cpu=paced_cpu,
        ),
    ]


def run(args: argparse.Namespace, scratch: Path) -> list[Measurement]:
    load = Load(args.duration, args.connections, args.threads)
    workers = str(args.workers)
    results: list[Measurement] = []
    bodies = analyze_bodies(ANALYZE_BODIES)
    bodies_path = scratch / "analyze.jsonl"
    bodies_path.write_bytes(b"\n".join(bodies) + b"\n")
    port = free_port()
    bare = [sys.executable, "-m", "granian", "--interface", "asgi", "--factory"]
    bare += ["--host", HOST, "--port", str(port), "--workers", workers]
    bare += ["--backlog", str(BACKLOG), "benchmarks.http_bench:bare_app"]
    # The references are read before and after the service's rows, the bare app idle in
    # between: the machine's drift over the run falls on both sides of each ratio.
    with running("bare app", bare, port, python_env({}), scratch / "bare.log") as server:

        def references() -> tuple[WrkResult, WrkResult]:
            get = measure(server.url("/healthz"), load, args.warmup)
            post = measure(server.url("/echo"), load, args.warmup, script)
            return get, post

        script = [str(POST_BODIES_LUA), str(bodies_path)]
        progress(f"ceiling: bare Litestar on {server.url('/healthz')}")
        get_before, post_before = references()
        service_rows = measure_service(args, load, bodies, bodies_path, scratch)
        progress("ceiling again, after the service's rows")
        get_after, post_after = references()
    for key, endpoint, before, after in (
        ("ceiling", "GET /healthz (bare Litestar, ceiling)", get_before, get_after),
        ("bare_post", "POST /echo (bare Litestar, analyze bodies)", post_before, post_after),
    ):
        readings = (before.requests_per_sec, after.requests_per_sec)
        results.append(Measurement(key, endpoint, both(before, after), readings=readings))
    return results + service_rows


def measure_service(
    args: argparse.Namespace,
    load: Load,
    bodies: list[bytes],
    bodies_path: Path,
    scratch: Path,
) -> list[Measurement]:
    """The service's rows, from a service of its own on a throwaway database."""
    workers = str(args.workers)
    results: list[Measurement] = []
    metrics_dir = scratch / "metrics"
    metrics_dir.mkdir()
    with (
        throwaway_database(args.postgres, "shutbox_bench") as db_url,
        redis_prefix(args.redis) as prefix,
    ):
        env = service_env(db_url, args.redis, prefix, args.rate_limit)
        # What `shutbox serve` would make with several workers, but removed by us.
        env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
        port = free_port()
        service = [sys.executable, "-m", *SERVE[args.way]]
        service += ["--host", HOST, "--port", str(port), "--workers", workers]
        with running("service", service, port, env, scratch / "service.log") as server:
            server.wait_until_ok("/readyz")
            progress(f"service on {server.url('/')} (database {db_url.rpartition('/')[2]})")

            result = measure(server.url("/healthz"), load, args.warmup)
            results.append(Measurement("healthz", "GET /healthz (service)", result))

            daily = server.url(f"/v1/daily/{args.date.isoformat()}")
            status, body = fetch(daily)  # the first request issues and caches the dice
            if status != 200:
                raise SystemExit(f"http_bench: GET {daily} answered {status}: {body[:300]!r}")
            # The feed with the log on, before and after the reference with it off: the
            # machine's drift in between falls on both sides of the comparison.
            before = measure(daily, load, args.warmup)
            quiet = measure_quiet_feed(env, args, load, scratch)
            result = both(before, measure(daily, load, args.warmup))
            endpoint = f"GET /v1/daily/{args.date.isoformat()} (cached)"
            results += [Measurement("daily", endpoint, result), quiet]

            analyze = server.url("/v1/analyze")
            for body in bodies:
                status, answer = fetch(analyze, body)
                if status != 200:
                    raise SystemExit(f"http_bench: POST /v1/analyze {body!r}: {answer[:300]!r}")
            script = [str(POST_BODIES_LUA), str(bodies_path)]
            result = measure(analyze, load, args.warmup, script)
            results.append(
                Measurement("analyze", f"POST /v1/analyze ({len(bodies)} bodies)", result)
            )

            results += measure_new_players(server, db_url, load, args, scratch)
    return results


def both(first: WrkResult, second: WrkResult) -> WrkResult:
    """Two runs of one load as one: their requests, mean rate, worst p99 and errors."""
    return WrkResult(
        requests=first.requests + second.requests,
        requests_per_sec=(first.requests_per_sec + second.requests_per_sec) / 2,
        p99_ms=max(first.p99_ms, second.p99_ms),
        non_2xx=first.non_2xx + second.non_2xx,
        socket_errors=first.socket_errors + second.socket_errors,
    )


def measure_quiet_feed(
    env: dict[str, str], args: argparse.Namespace, load: Load, scratch: Path
) -> Measurement:
    """For reference, between two runs of the feed at the defaults: the same feed from a
    second service process with the request log off, to read what the log costs."""
    port = free_port()
    service = [sys.executable, "-m", *SERVE[args.way]]
    service += ["--host", HOST, "--port", str(port), "--workers", str(args.workers)]
    quiet_env = {**env, "SHUTBOX_LOG_LEVEL": "WARNING"}
    with running("service, log off", service, port, quiet_env, scratch / "quiet.log") as server:
        server.wait_until_ok("/readyz")
        daily = server.url(f"/v1/daily/{args.date.isoformat()}")
        fetch(daily)
        result = measure(daily, load, args.warmup)
    endpoint = f"GET /v1/daily/{args.date.isoformat()} (request log off, reference)"
    return Measurement("daily_quiet", endpoint, result)


POSTS: Final = ("analyze", "daily_run")


def rows_of(results: list[Measurement]) -> list[Row]:
    ceiling = results[0].result.requests_per_sec
    bare_post = next(m.result.requests_per_sec for m in results if m.key == "bare_post")
    rows = []
    for measured in results:
        result = measured.result
        ratio = post_ratio = None
        if measured.paced_at is None:
            ratio = result.requests_per_sec / ceiling if ceiling else 0.0
        if measured.key in POSTS and bare_post:
            post_ratio = result.requests_per_sec / bare_post
        target = TARGETS.get(measured.key)
        against = post_ratio if measured.key in POSTS else ratio
        met = None if target is None or against is None else against >= target
        rows.append(
            Row(**vars(measured), ratio=ratio, post_ratio=post_ratio, target=target, met=met)
        )
    return rows


def print_table(rows: list[Row], args: argparse.Namespace) -> None:
    print(
        f"wrk: {args.duration}s, {args.connections} connections, {args.threads} threads; "
        f"granian: {args.workers} workers, ASGI, {HOST}; {os.cpu_count()} CPUs shared; "
        f"the {args.way}'s way"
    )
    width = max(42, *(len(row.endpoint) for row in rows))
    print(
        f"{'endpoint':{width}} {'req/s':>9} {'p99 ms':>8} {'x ceiling':>9} {'target':>10}"
        f" {'x POST':>7} {'non-2xx':>8} {'sock err':>8}"
    )
    for row in rows:
        result = row.result
        if row.target is None:
            target = ""
        else:
            target = f">={row.target:.1f} " + ("ok" if row.met else "MISS")
        ratio = "" if row.ratio is None else f"{row.ratio:.3f}"
        post_ratio = "" if row.post_ratio is None else f"{row.post_ratio:.3f}"
        print(
            f"{row.endpoint:{width}} {result.requests_per_sec:9.0f} {result.p99_ms:8.2f} {ratio:>9}"
            f" {target:>10} {post_ratio:>7} {result.non_2xx:8d} {result.socket_errors:8d}"
        )
    by_key = {row.key: row for row in rows}
    references = [by_key[key] for key in ("ceiling", "bare_post") if key in by_key]
    if all(len(row.readings) == 2 for row in references) and references:
        read = "; ".join(
            f"{row.endpoint.partition(' (')[0]} {row.readings[0]:.0f} and {row.readings[1]:.0f}"
            for row in references
        )
        print("the references, before and after the service's rows (a row: their mean):", read)
    if "daily" in by_key and "daily_quiet" in by_key:
        log_on, log_off = by_key["daily"].result, by_key["daily_quiet"].result
        cost = 1 - log_on.requests_per_sec / log_off.requests_per_sec
        print(f"the request log costs the feed {cost:.0%} of its throughput (goal: at most 10%)")
    runs = [row for row in rows if row.new_players is not None]
    if runs:
        print("new players' runs, every answer expected 201 (first official run):")
    for row in runs:
        counts = row.new_players
        assert counts is not None
        statuses = [f"{counts.created} x 201"]
        if counts.reused:
            statuses.append(f"{counts.reused} x 200 (REUSED PLAYERS)")
        statuses += [
            f"{n} x {s}" for s, n in sorted(counts.statuses.items()) if s not in (200, 201)
        ]
        load = "full load" if row.paced_at is None else f"paced at {row.paced_at:.0f}/s"
        line = f"  {load}: {', '.join(statuses)}; tokens {counts.tokens_handed_out}"
        line += f" of {counts.tokens} sent"
        if counts.threads_out_of_tokens:
            line += f", {counts.threads_out_of_tokens} wrk threads RAN OUT (stopped)"
        if row.paced_at is not None:
            line += f"; at most {counts.behind_schedule_ms:.1f} ms behind schedule"
        print(line)
        if row.cpu is not None and row.result.requests_per_sec > 0:
            print("    " + cpu_per_request(row.cpu, row.result.requests_per_sec))


def cpu_per_request(cpu: dict[str, float], requests_per_sec: float) -> str:
    """The CPU time each party spent per request (CPUs used / requests a second), and the
    most requests a second this machine's CPUs could serve at that cost, wrk included."""
    spent = {
        group: cpu.get(group, 0.0) / requests_per_sec * 1e6
        for group in ("server", "postgres", "redis", "wrk")
    }
    whole = max(sum(spent.values()), 1e-9)
    cpus = os.cpu_count() or 1
    shown = ", ".join(f"{group} {us:.0f}" for group, us in spent.items())
    return (
        f"CPU per run, us: {shown}: {whole:.0f} in all, so {cpus} CPUs serve at most"
        f" {cpus / whole * 1e6:.0f}/s; the machine {cpu['busy']:.0%} busy"
    )


def faults(rows: list[Row]) -> list[str]:
    """Why the figures are not valid, if they are not."""
    found = []
    if any(row.result.non_2xx for row in rows):
        found.append("some responses were not 2xx")
    for row in rows:
        counts = row.new_players
        if counts is None:
            continue
        if counts.reused:
            found.append(f"{row.key}: {counts.reused} answers were 200: a player was reused")
        if counts.others:
            found.append(f"{row.key}: {counts.others} answers were neither 201 nor 200")
        if counts.threads_out_of_tokens:
            found.append(
                f"{row.key}: {counts.threads_out_of_tokens} wrk threads ran out of players"
                " (raise --players-per-second)"
            )
    return found


class _HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The docstring as written, and each option's default."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=_HelpFormatter)
    parser.add_argument("--duration", type=positive, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=positive, default=32, help="wrk connections")
    parser.add_argument("--threads", type=positive, default=1, help="wrk threads")
    parser.add_argument("--workers", type=positive, default=1, help="granian worker processes")
    parser.add_argument("--warmup", type=int, default=2, help="seconds of discarded load first")
    parser.add_argument(
        "--date",
        type=date.fromisoformat,
        default=date.today() - timedelta(days=1),
        help="the Daily Dice date (yesterday: open everywhere)",
    )
    parser.add_argument(
        "--postgres",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="a PostgreSQL URL allowed to create and drop databases",
    )
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0", help="the Redis URL")
    parser.add_argument(
        "--rate-limit",
        default=UNREACHED_RATE_LIMIT,
        help="the service's rate limits, per address and per token (N/s, N/m, N/h or off)",
    )
    parser.add_argument(
        "--players-per-second",
        type=positive,
        default=5000,
        help="new players supplied per second of the full-load runs of POST /v1/daily/{date}/runs"
        " (a wrk thread out of them stops, and the figures are flagged)",
    )
    parser.add_argument(
        "--way",
        choices=tuple(SERVE),
        default="front",
        help="front: the product; framework: no answers before the framework",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.threads > args.connections:
        parser.error("--threads cannot exceed --connections")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if shutil.which("wrk") is None:
        print(
            "http_bench: wrk is not installed (Debian/Ubuntu: apt-get install -y wrk)",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="shutbox-http-bench-") as scratch:
        rows = rows_of(run(args, Path(scratch)))
    if args.json:
        names: tuple[str, ...] = ("duration", "warmup", "connections", "threads", "workers")
        names += ("rate_limit", "players_per_second")
        config = {name: getattr(args, name) for name in names} | {"date": args.date.isoformat()}
        print(json.dumps({"config": config, "results": [asdict(r) for r in rows]}, indent=2))
    else:
        print_table(rows, args)
    found = faults(rows)
    for fault in found:
        print(f"http_bench: {fault}: the figures are not valid", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
