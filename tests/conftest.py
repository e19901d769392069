"""Fixtures: a database and a Redis key prefix of our own, the app in each Redis mode,
and a real server process.

Tests run against the real PostgreSQL and Redis of the machine
(``TEST_DATABASE_URL``, ``TEST_REDIS_URL`` override where they are). Every test
session creates its own database and Redis key prefix and removes them afterwards:
the tests never touch data they did not make.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import AbstractContextManager, asynccontextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
import redis
from litestar import Litestar

from service.support.clock import FixedClock
from service.support.settings import Settings
from tests.resources import free_port, throwaway_database

ADMIN_URL = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
UNREACHABLE_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
SECRET = "test-secret"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that take longest (servers, browsers, clients, the fuzzer) first: the
    processes that run the tests in parallel (scripts/test) then end together, not one
    alone with a browser scenario at the end."""
    slow = ("tests/system/", "tests/integration/test_fuzz.py")
    items.sort(key=lambda item: not item.nodeid.startswith(slow))


def own_database(prefix: str = "shutbox_test") -> AbstractContextManager[str]:
    """A new empty database, dropped when done: its URL."""
    return throwaway_database(ADMIN_URL, prefix)


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    """A database of this test session's own, dropped at the end."""
    with own_database() as url:
        yield url


@pytest.fixture(scope="session")
def redis_prefix() -> Iterator[str]:
    """A Redis key prefix of this session's own; its keys are deleted at the end."""
    prefix = f"shutbox-test-{secrets.token_hex(6)}:"
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    try:
        for key in client.scan_iter(match=f"{prefix}*", count=500):
            client.unlink(key)
    finally:
        client.close()


REDIS_MODES = ["redis", "no-redis", "redis-unreachable"]
# A test runs with the machine's Redis (``redis_mode``'s default); those whose subject is
# Redis (caching, limits, idempotency, ranks, outages) run in every mode, and some on a
# Redis Cluster too (``redis_cluster_url``, started on first use).
every_redis_mode = pytest.mark.parametrize("redis_mode", REDIS_MODES, indirect=True)
on_redis_cluster_too = pytest.mark.parametrize(
    "redis_mode", [*REDIS_MODES, "redis-cluster"], indirect=True
)


@pytest.fixture
def redis_mode(request: pytest.FixtureRequest) -> str:
    """How the app reaches Redis: the machine's (``redis``) unless a test is parametrized
    with another (``no-redis``, ``redis-unreachable``, ``redis-cluster``)."""
    mode: str = getattr(request, "param", "redis")
    return mode


@pytest.fixture(scope="session")
def redis_cluster_url() -> Iterator[str]:
    """A Redis Cluster of this session's own: three local primaries, stopped at the end."""
    from tests.redis_cluster import LocalRedisCluster

    with LocalRedisCluster() as cluster:
        yield cluster.url


@pytest.fixture(params=["redis", "redis-cluster"])
def shared_redis_url(request: pytest.FixtureRequest) -> str:
    """The machine's Redis, then the session's Redis Cluster."""
    if request.param == "redis":
        return REDIS_URL
    url: str = request.getfixturevalue("redis_cluster_url")
    return url


@pytest.fixture
def settings(
    database_url: str, redis_prefix: str, redis_mode: str, request: pytest.FixtureRequest
) -> Settings:
    redis_url = {"redis": REDIS_URL, "no-redis": None, "redis-unreachable": UNREACHABLE_REDIS_URL}
    if redis_mode == "redis-cluster":
        redis_url[redis_mode] = request.getfixturevalue("redis_cluster_url")
    return base_settings(
        database_url, redis_prefix, redis_url=redis_url[redis_mode], max_body_bytes=16384
    )


def base_settings(database_url: str, redis_prefix: str, **fields: Any) -> Settings:
    """The service's settings for a test: warnings only, every rate limit off (the
    rate-limit tests turn them on), and ``fields``."""
    return Settings(
        database_url=database_url,
        redis_prefix=redis_prefix,
        secret=SECRET,
        log_level="WARNING",
        rate_limit_address="off",
        rate_limit_token="off",
        rate_limit_accounts="off",
        rate_limit_claims="off",
        rate_limit_friends="off",
        rate_limit_stores="off",
        solver_rate_limit="off",
        **fields,
    )


_CLOCK = FixedClock(NOW)  # one a process, as the apps of ``client`` are


@pytest.fixture
def clock() -> FixedClock:
    """The game's time: NOW when a test starts, then as the test sets it."""
    _CLOCK.set(NOW)
    return _CLOCK


_APPS: dict[bytes, Litestar] = {}


@pytest.fixture
async def client(settings: Settings, clock: FixedClock) -> AsyncIterator[httpx.AsyncClient]:
    """The app in-process, with its lifespan (pool, migrations, cache, the services)
    running anew for the test; the app itself (its routes and middleware, some 0.2 s of
    CPU to make) made once a process for the same settings."""
    from litestar.testing import AsyncTestClient

    from service.app import create_app

    made = msgspec.json.encode(settings)
    app = _APPS.get(made)
    if app is None:
        app = _APPS[made] = create_app(settings, clock)
    async with AsyncTestClient(app) as test_client:
        yield test_client


@asynccontextmanager
async def app_with(settings: Settings, **changes: Any) -> AsyncIterator[httpx.AsyncClient]:
    """The app in-process with ``changes`` to ``settings``, on a Redis prefix of its own:
    nothing cached, every rate-limit bucket full."""
    from litestar.testing import AsyncTestClient

    from service.app import create_app

    prefix = f"{settings.redis_prefix}{secrets.token_hex(4)}:"
    changed = msgspec.structs.replace(settings, redis_prefix=prefix, **changes)
    async with AsyncTestClient(create_app(changed, FixedClock(NOW))) as test_client:
        yield test_client


@asynccontextmanager
async def served(settings: Settings, **changes: Any) -> AsyncIterator[Litestar]:
    """The app with ``changes`` to ``settings``, on a Redis prefix of its own (every
    bucket full), its lifespan running on this event loop: its clients (``from_address``)
    may send their requests at once (the framework's test client takes one at a time)."""
    from service.app import create_app

    prefix = f"{settings.redis_prefix}{secrets.token_hex(4)}:"
    changed = msgspec.structs.replace(settings, redis_prefix=prefix, **changes)
    app = create_app(changed, FixedClock(NOW))
    async with app.lifespan():
        yield app


def from_address(app: Litestar, host: str, **headers: str) -> httpx.AsyncClient:
    """A client of ``app`` whose connection comes from ``host``."""
    transport = httpx.ASGITransport(app=app, client=(host, 40_000))
    return httpx.AsyncClient(transport=transport, base_url="http://shutbox", headers=headers)


def declared(app: Any, key: str) -> dict[tuple[str, str], Any]:
    """What the app's route handlers declare under ``key`` in their ``opt``, by method and
    route path."""
    return {
        (method, route.path_format): handler.opt[key]
        for route in app.routes
        for handler in getattr(route, "route_handlers", ())
        if key in handler.opt
        for method in handler.http_methods
    }


async def fetchval(database_url: str, query: str, *args: object) -> Any:
    """One value read on a connection of its own (as another process sees the data)."""
    connection = await asyncpg.connect(database_url)
    try:
        return await connection.fetchval(query, *args)
    finally:
        await connection.close()


def wait_for_redis(
    port: int,
    ready: Callable[[redis.Redis], bool] = lambda node: bool(node.ping()),
    failure: str = "did not start",
) -> None:
    """Until the ``redis-server`` on ``port`` is ``ready`` (answers, unless told
    otherwise), for 30 s at the most."""
    node = redis.Redis(host="127.0.0.1", port=port, socket_timeout=1)
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            try:
                if ready(node):
                    return
            except redis.RedisError:
                pass
            time.sleep(0.05)
    finally:
        node.close()
    raise RuntimeError(f"redis-server on port {port} {failure}")


class ServerProcess:
    """``shutbox serve`` in a subprocess, as an operator runs it."""

    def __init__(
        self,
        env: dict[str, str],
        workers: int = 2,
        frozen_at: datetime | None = None,
        wrapper: Sequence[str] = (),
    ):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, **env}
        self.workers = workers
        self.process: subprocess.Popen[bytes] | None = None
        self.frozen_at = frozen_at
        self.wrapper = list(wrapper)  # a command that runs the server as its arguments
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()

    def start(self) -> ServerProcess:
        """Launched, once it answers ``/readyz`` (within 60 s)."""
        process = self.launch()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"server exited: {self.output()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        ServerProcess.stop(self)  # a shared server too: it never started
        raise RuntimeError("server did not become ready in 60 s")

    def launch(self) -> subprocess.Popen[bytes]:
        """The server's process, just started."""
        workers = ["--workers", str(self.workers)]
        if self.frozen_at is None:
            command = [sys.executable, "-m", "service.cli", "serve", "--port", str(self.port)]
            env = self.env
        else:
            # The same server (granian, ASGI, these workers) with the clock frozen.
            command = [sys.executable, "-m", "granian", "--interface", "asgi", "--factory"]
            command += ["--port", str(self.port), "tests.frozen_clock_app:create"]
            env = {**self.env, "SHUTBOX_TEST_NOW": self.frozen_at.isoformat()}
        self.process = subprocess.Popen(
            [*self.wrapper, *command, *workers],
            env=env,
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its workers and solver processes in its group
        )
        return self.process

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def output_with(self, text: str, seconds: float = 10.0) -> str:
        """The output once it holds ``text`` (the request log is written in batches,
        every 50 ms), or as it is when ``seconds`` have passed."""
        deadline = time.monotonic() + seconds
        while text not in (output := self.output()) and time.monotonic() < deadline:
            time.sleep(0.05)
        return output

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        # A worker the server did not stop in time outlives it otherwise (seen once:
        # an orphaned worker still serving after its test).
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process = None
        self.log.close()


def server_environment(database_url: str, redis_url: str = REDIS_URL) -> dict[str, str]:
    """What a test gives ``shutbox serve``: warnings only, every rate limit off (the
    rate-limit tests turn them on)."""
    return {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SHUTBOX_SECRET": SECRET,
        "SHUTBOX_LOG_LEVEL": "WARNING",
        "SHUTBOX_RATE_LIMIT_ADDRESS": "off",
        "SHUTBOX_RATE_LIMIT_TOKEN": "off",
        "SHUTBOX_RATE_LIMIT_ACCOUNTS": "off",
        "SHUTBOX_RATE_LIMIT_CLAIMS": "off",
        "SHUTBOX_RATE_LIMIT_FRIENDS": "off",
        "SHUTBOX_RATE_LIMIT_STORES": "off",
        "SHUTBOX_SOLVER_RATE_LIMIT": "off",
    }


@pytest.fixture
def server_env(database_url: str, redis_prefix: str) -> dict[str, str]:
    return {**server_environment(database_url), "SHUTBOX_REDIS_PREFIX": redis_prefix}


@pytest.fixture(scope="session")
def two_workers(redis_prefix: str) -> Iterator[SharedServer]:
    """A real server of two workers, shared by the tests that need a server but none of
    their own (its output holds all their requests), on a database of its own: its
    housekeeping runs on the real clock, the in-process apps' on ``NOW``
    (``two_workers.database_url``)."""
    with own_database("shutbox_shared") as url:
        env = {**server_environment(url), "SHUTBOX_REDIS_PREFIX": f"{redis_prefix}shared:"}
        # The request log on, as in production: the tests of what it says read it here.
        process = SharedServer({**env, "SHUTBOX_LOG_LEVEL": "INFO"}, workers=2)
        process.start()
        yield process
        process.end()


class SharedServer(ServerProcess):
    """A server the tests share: its fixture alone stops it."""

    @property
    def database_url(self) -> str:
        return self.env["DATABASE_URL"]

    def stop(self) -> None:
        raise RuntimeError("a shared server is stopped by its fixture, not by a test")

    def end(self) -> None:
        super().stop()
