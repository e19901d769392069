"""The start-up the database benchmarks share (``scale.py``, ``friends_board.py``): a
throwaway PostgreSQL database, migrated and filled by ``shutbox synth-day``, then vacuumed,
analysed and checkpointed; the service on it with its clock frozen (granian on
``tests.frozen_clock_app:create``, two workers, HTTP/1, the backlog and header timeout of
``shutbox serve``), against a ``redis-server`` of the benchmark's own (a port of its own,
no persistence, a key prefix of its own)."""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Final

import asyncpg
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.processes import (
    ROOT,
    Spawned,
    answers_ok,
    frozen_clock_env,
    log_tail,
)
from tests.resources import HOST, free_port, throwaway_database

NAME: Final = Path(sys.argv[0]).stem  # the benchmark run, to prefix what is said
WORKERS: Final = 2
BACKLOG: Final = 2048  # as in service.cli._serve
HEADER_TIMEOUT_MS: Final = 5000  # SHUTBOX_HEADER_TIMEOUT's default, as _serve passes it
STARTUP_SECONDS: Final = 90.0
STOP_SECONDS: Final = 20.0


def progress(message: str) -> None:
    print(f"{NAME}: {message}", file=sys.stderr, flush=True)


# Processes ----------------------------------------------------------------------------------


class RedisServer(Spawned):
    """A redis-server of the benchmark's own: loopback, a free port, no persistence."""

    def __init__(self, scratch: Path) -> None:
        self.port = free_port()
        self.url = f"redis://{HOST}:{self.port}/0"
        command = ["redis-server", "--bind", HOST, "--port", str(self.port)]
        command += ["--save", "", "--appendonly", "no", "--dir", str(scratch)]
        super().__init__(
            "redis-server", command, dict(os.environ), scratch / "redis.log", STOP_SECONDS
        )
        client = redis.Redis.from_url(self.url, socket_timeout=1, socket_connect_timeout=1)
        try:
            failure = f"{NAME}: redis-server did not answer PING"
            self.wait_until(lambda: pings(client), failure, STARTUP_SECONDS, every=0.05)
        finally:
            client.close()


def pings(client: redis.Redis) -> bool:
    with suppress(redis.RedisError):
        return bool(client.ping())
    return False


class Server(Spawned):
    """The service under granian, its clock frozen (``tests.frozen_clock_app``)."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        command = [sys.executable, "-m", "granian", "--interface", "asgi", "--factory"]
        command += ["--host", HOST, "--port", str(self.port), "--workers", str(WORKERS)]
        command += ["--backlog", str(BACKLOG), "--http", "1"]
        command += ["--http1-header-read-timeout", str(HEADER_TIMEOUT_MS)]
        command += ["tests.frozen_clock_app:create"]
        super().__init__("server", command, env, log, STOP_SECONDS)
        ready = f"{self.url}/readyz"
        failure = f"{NAME}: the server did not become ready"
        self.wait_until(lambda: answers_ok(ready), failure, STARTUP_SECONDS, every=0.2)


# The database -------------------------------------------------------------------------------


SIZES_SQL: Final = """
SELECT 'players' AS part, pg_total_relation_size('players') AS bytes
UNION ALL
SELECT 'daily_runs', coalesce(sum(pg_total_relation_size(inhrelid)), 0)::bigint
FROM pg_inherits WHERE inhparent = 'daily_runs'::regclass
UNION ALL
SELECT 'streaks', pg_total_relation_size('streaks')
UNION ALL
SELECT 'day_scores', pg_total_relation_size('day_scores')
"""
PARTS: Final = ("players", "daily_runs", "streaks", "day_scores")


async def _sizes(url: str) -> dict[str, int]:
    connection = await asyncpg.connect(url)
    try:
        return {row["part"]: int(row["bytes"]) for row in await connection.fetch(SIZES_SQL)}
    finally:
        await connection.close()


def relation_sizes(url: str) -> dict[str, int]:
    """pg_total_relation_size of players, each partition of daily_runs (summed), streaks
    and day_scores: tables, their indexes and TOAST."""
    return asyncio.run(_sizes(url))


async def _settle(url: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("VACUUM (ANALYZE)")
        await connection.execute("CHECKPOINT")
    finally:
        await connection.close()


def vacuum_analyze(url: str) -> float:
    """VACUUM (ANALYZE), then a CHECKPOINT: a fill's dirty pages (some 700 MB at 1M) are
    written out before the measurements, not by the checkpointer in the middle of them."""
    started = time.perf_counter()
    asyncio.run(_settle(url))
    return time.perf_counter() - started


# Fills --------------------------------------------------------------------------------------


def shutbox(arguments: Sequence[str], env: dict[str, str], timeout: float) -> str:
    """``shutbox ...`` (``python -m service.cli``) to its end: its output."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", *arguments],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise SystemExit(f"{NAME}: shutbox {' '.join(arguments)}: over {timeout:.0f} s") from None
    if done.returncode != 0:
        raise SystemExit(
            f"{NAME}: shutbox {' '.join(arguments)} exited with {done.returncode}\n"
            + done.stdout[-2000:]
            + done.stderr[-2000:]
        )
    return done.stdout.strip()


@dataclass(frozen=True)
class Fill:
    day: date
    runs: int
    seed: int
    seconds: float  # synth-day's wall time, the subprocess's start to its end
    said: str  # synth-day's own line
    vacuum_seconds: float
    before: dict[str, int]
    after: dict[str, int]

    @property
    def growth(self) -> int:
        return sum(self.after[part] - self.before[part] for part in PARTS)

    @property
    def bytes_per_run(self) -> float:
        return self.growth / self.runs


def fill(db_url: str, env: dict[str, str], day: date, runs: int, seed: int) -> Fill:
    before = relation_sizes(db_url)
    progress(f"synth-day {day}: {runs:,} runs (seed {seed})")
    started = time.perf_counter()
    arguments = ["synth-day", day.isoformat(), "--runs", str(runs), "--seed", str(seed)]
    said = shutbox(arguments, env, timeout=120 + runs / 1000)
    seconds = time.perf_counter() - started
    vacuum_seconds = vacuum_analyze(db_url)
    after = relation_sizes(db_url)
    said_last = said.splitlines()[-1] if said else ""
    return Fill(day, runs, seed, seconds, said_last, vacuum_seconds, before, after)


# Start-up -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prepared:
    scratch: Path  # a folder of the run's own: the logs, Redis's and the metrics' files
    db_url: str
    env: dict[str, str]  # ``frozen_clock_env``: for ``shutbox`` commands and the server


@contextmanager
def migrated(
    postgres: str, name: str, now: datetime, extra: dict[str, str] | None = None
) -> Iterator[Prepared]:
    """A scratch folder and a throwaway database ``name_...`` (both gone at the end), the
    database migrated; the environment freezes the clock at ``now``, with a Redis key
    prefix of the run's own and ``extra``. Exit code 2 without a redis-server to start."""
    if shutil.which("redis-server") is None:
        print(f"{NAME}: redis-server is not installed", file=sys.stderr)
        raise SystemExit(2)
    with (
        tempfile.TemporaryDirectory(prefix=f"{name.replace('_', '-')}-") as scratch,
        throwaway_database(postgres, name) as db_url,
    ):
        env = frozen_clock_env(db_url, f"{name}_{secrets.token_hex(4)}:", now, extra)
        progress(f"database {db_url.rpartition('/')[2]}: migrating")
        shutbox(["migrate"], env, timeout=120)
        yield Prepared(Path(scratch), db_url, env)


@contextmanager
def served(prepared: Prepared) -> Iterator[tuple[Server, RedisServer]]:
    """A redis-server of the run's own and the service on it, with a metrics directory as
    ``shutbox serve`` makes for several workers; both stopped at the end, the end of the
    server's log shown when the run fails."""
    own_redis = RedisServer(prepared.scratch)
    server: Server | None = None
    try:
        metrics = prepared.scratch / "metrics"
        metrics.mkdir()
        server_env = {
            **prepared.env,
            "REDIS_URL": own_redis.url,
            "PROMETHEUS_MULTIPROC_DIR": str(metrics),
        }
        server = Server(server_env, prepared.scratch / "server.log")
        try:
            yield server, own_redis
        except BaseException:
            progress("the server's log ends:\n" + log_tail(server.log))
            raise
    finally:
        if server is not None:
            server.stop()
        own_redis.stop()
