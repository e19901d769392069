"""What the benchmarks share: the servers and other processes they start, each in a
process group of its own with its output in a log file, waited for until they answer,
players put straight into their databases (free ports and throwaway databases are the
tests', ``tests.resources``), and the CPU time each party (server, PostgreSQL, Redis,
client, wrk) spends meanwhile."""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import secrets
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import suppress
from datetime import datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import asyncpg
import httpx
import msgspec
import psutil

from service.store.players import token_hash

ROOT: Final = Path(__file__).resolve().parents[1]
# The local PostgreSQL, as a role that may create the throwaway databases.
ADMIN_URL: Final = "postgresql://postgres@127.0.0.1:5432/postgres"
# Rate limits on, as in production, at a rate no benchmark's one client address reaches.
UNREACHED_RATE_LIMIT: Final = "1000000000/s"


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` quantile (0..1), interpolated between the nearest samples."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    at = (len(ordered) - 1) * share
    low = math.floor(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def log_tail(path: Path, lines: int = 30) -> str:
    if not path.exists():
        return ""
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(f"  | {line}" for line in text[-lines:])


class Spawned:
    """A subprocess in its own process group (a server's workers and solver processes
    with it), its output appended to a log file."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        env: dict[str, str],
        log: Path,
        stop_seconds: float = 20.0,
    ) -> None:
        self.name = name
        self.log = log
        self.stop_seconds = stop_seconds
        with log.open("ab") as output:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self.process.pid

    def check_alive(self) -> None:
        if self.process.poll() is not None:
            raise SystemExit(
                f"{self.name} exited with {self.process.returncode}\n" + log_tail(self.log)
            )

    def wait_until(
        self, ready: Callable[[], bool], failure: str, seconds: float, every: float
    ) -> None:
        """Ask ``ready()`` every ``every`` seconds while the process lives, until it holds;
        after ``seconds``, stop the process and exit with ``failure`` and the log's tail."""
        deadline = time.monotonic() + seconds
        while True:
            self.check_alive()
            if ready():
                return
            if time.monotonic() > deadline:
                self.stop()
                raise SystemExit(f"{failure}\n" + log_tail(self.log))
            time.sleep(every)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL to what is left of its group."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(self.stop_seconds)
            except subprocess.TimeoutExpired:
                print(f"{self.name} ignored SIGTERM, killing it", file=sys.stderr)
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


def answers_ok(url: str) -> bool:
    """Whether ``url`` answers 200 now (a server that is up and ready)."""
    with suppress(httpx.HTTPError):
        return httpx.get(url, timeout=1).status_code == 200
    return False


class TimedClient:
    """One keep-alive connection to a server, each request timed (ms) and its status
    checked: any other than the one expected ends the benchmark ``name`` with the answer."""

    def __init__(self, name: str, base_url: str, timeout: float) -> None:
        self.name = name
        self.http = httpx.Client(base_url=base_url, timeout=timeout)

    def close(self) -> None:
        self.http.close()

    def request(
        self, method: str, path: str, expected: int, token: str | None = None, body: Any = None
    ) -> tuple[float, httpx.Response]:
        """The request's time and its answer; ``body``: the bytes sent, or a value sent as
        JSON."""
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        if body is not None:
            headers["Content-Type"] = "application/json"
            if not isinstance(body, bytes):
                body = msgspec.json.encode(body)
        started = time.perf_counter()
        response = self.http.request(method, path, headers=headers, content=body)
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code != expected:
            raise SystemExit(
                f"{self.name}: {method} {path} answered {response.status_code}, not "
                f"{expected}: {response.text[:300]}"
            )
        return elapsed, response

    def json(
        self, method: str, path: str, expected: int, token: str | None = None, body: Any = None
    ) -> Any:
        return self.request(method, path, expected, token, body)[1].json()


def python_env(extra: dict[str, str]) -> dict[str, str]:
    """This process's environment with the repository on ``PYTHONPATH`` (``tests`` and
    ``benchmarks`` importable) and ``extra`` set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def service_env(
    database_url: str,
    redis_url: str,
    prefix: str,
    rate_limit: str = UNREACHED_RATE_LIMIT,
    secret: str | None = None,
) -> dict[str, str]:
    """``python_env`` for a service at its defaults on these data: a secret of its own
    (``secret``, else a random one), the request log at INFO (a line a request), rate
    limits on at ``rate_limit`` (a benchmark is one client address: at the production
    rate it would get 429s)."""
    return python_env(
        {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "SHUTBOX_SECRET": secret or secrets.token_urlsafe(32),
            "SHUTBOX_REDIS_PREFIX": prefix,
            "SHUTBOX_LOG_LEVEL": "INFO",
            "SHUTBOX_RATE_LIMIT_ADDRESS": rate_limit,
            "SHUTBOX_RATE_LIMIT_TOKEN": rate_limit,
            "SHUTBOX_RATE_LIMIT_ACCOUNTS": rate_limit,
            "SHUTBOX_RATE_LIMIT_STORES": rate_limit,
        }
    )


def frozen_clock_env(
    database_url: str, prefix: str, now: datetime, extra: dict[str, str] | None = None
) -> dict[str, str]:
    """``python_env`` for ``shutbox`` commands and a server (``tests.frozen_clock_app``)
    on a benchmark's own database, the clock frozen at ``now``: a secret of its own, rate
    limits on at a rate no load here reaches (one client address: at the production rate
    it would get 429s), Redis, the log level and the metrics directory at their defaults
    (whatever this shell has), and ``extra``."""
    env = python_env({})
    for variable in ("REDIS_URL", "SHUTBOX_LOG_LEVEL", "PROMETHEUS_MULTIPROC_DIR"):
        env.pop(variable, None)
    env.update(
        {
            "DATABASE_URL": database_url,
            "SHUTBOX_SECRET": secrets.token_urlsafe(32),
            "SHUTBOX_REDIS_PREFIX": prefix,
            "SHUTBOX_TEST_NOW": now.isoformat(),
            "SHUTBOX_RATE_LIMIT_ADDRESS": UNREACHED_RATE_LIMIT,
            "SHUTBOX_RATE_LIMIT_TOKEN": UNREACHED_RATE_LIMIT,
            "SHUTBOX_RATE_LIMIT_ACCOUNTS": UNREACHED_RATE_LIMIT,
            "SHUTBOX_RATE_LIMIT_STORES": UNREACHED_RATE_LIMIT,
            **(extra or {}),
        }
    )
    return env


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


PLAYER_COLUMNS: Final = ("id", "name", "time_zone", "token_hash", "created_at")


async def _copy_players(
    url: str, tokens: Sequence[str], created_at: datetime, zone: str, analyze: str
) -> None:
    records = [(uuid.uuid4(), None, zone, token_hash(token), created_at) for token in tokens]
    connection = await asyncpg.connect(url)
    try:
        await connection.copy_records_to_table("players", records=records, columns=PLAYER_COLUMNS)
        await connection.execute(analyze)
    finally:
        await connection.close()


def insert_players(
    url: str, count: int, created_at: datetime, zone: str, analyze: str = "ANALYZE players"
) -> list[str]:
    """``count`` new players in ``zone``, straight into the database (which keeps only the
    SHA-256 of their tokens, as the service does), then ``analyze`` for the planner: their
    bearer tokens."""
    tokens = [secrets.token_urlsafe(32) for _ in range(count)]
    asyncio.run(_copy_players(url, tokens, created_at, zone, analyze))
    return tokens


# CPU accounting -----------------------------------------------------------------------------


def pid_serving(url: str) -> int | None:
    """The process of this machine listening on the port of ``url``, if its host is this
    machine (loopback) and one does."""
    parts = urlsplit(url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1") or parts.port is None:
        return None
    with suppress(psutil.Error):
        for connection in psutil.net_connections(kind="tcp"):
            if connection.status == psutil.CONN_LISTEN and connection.laddr.port == parts.port:
                return connection.pid
    return None


CpuSnapshot = dict[str, dict[int, float]]


def _cpu_of(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def cpu_snapshot(server_pid: int, redis_pid: int | None) -> tuple[CpuSnapshot, float, float]:
    """CPU seconds so far of the server (granian and its workers), PostgreSQL's
    processes, the redis-server and this client, per process, and of this client's
    children that have ended (a wrk run: "wrk"); and the machine's busy and total CPU
    seconds."""
    groups: dict[str, list[psutil.Process]] = {"server": [], "postgres": [], "redis": []}
    with suppress(psutil.Error):
        root = psutil.Process(server_pid)
        groups["server"] = [root, *root.children(recursive=True)]
    if redis_pid is not None:
        with suppress(psutil.Error):
            groups["redis"] = [psutil.Process(redis_pid)]
    for process in psutil.process_iter(["name"]):
        if process.info["name"] in ("postgres", "postmaster"):
            groups["postgres"].append(process)
    groups["this client"] = [psutil.Process()]
    snapshot: CpuSnapshot = {}
    for group, processes in groups.items():
        snapshot[group] = {}
        for process in processes:
            with suppress(psutil.Error):
                snapshot[group][process.pid] = _cpu_of(process)
    ended = os.times()
    snapshot["wrk"] = {0: ended.children_user + ended.children_system}
    machine = psutil.cpu_times()
    total = float(sum(machine))
    return snapshot, total - float(machine.idle + getattr(machine, "iowait", 0.0)), total


def cpu_shares(
    before: tuple[CpuSnapshot, float, float], after: tuple[CpuSnapshot, float, float], wall: float
) -> dict[str, float]:
    """CPUs used on average over ``wall`` seconds, by group (a process that began in
    between counts from zero), and the machine's busy share ("busy", 0..1)."""
    shares = {}
    for group, processes in after[0].items():
        earlier = before[0].get(group, {})
        used = sum(max(cpu - earlier.get(pid, 0.0), 0.0) for pid, cpu in processes.items())
        shares[group] = used / wall if wall > 0 else 0.0
    total = after[2] - before[2]
    busy = (after[1] - before[1]) / total if total > 0 else 0.0
    shares["other processes"] = max(busy * (os.cpu_count() or 1) - sum(shares.values()), 0.0)
    shares["busy"] = busy
    return shares
