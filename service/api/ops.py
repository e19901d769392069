"""Operations: liveness, readiness, metrics and the interactive docs.

Readiness is open to anyone (health checkers), and costs a crowd one check: the checks
asked while one is under way share it (``Services.readiness``). The metrics are for the
operator's scrapers only: a client address in ``SHUTBOX_METRICS_ALLOW`` (loopback by
default) or a bearer of ``SHUTBOX_METRICS_TOKEN``; anyone else gets the 404 of a path
that is not there. One rendering at a time per process, off the event loop, shared by the
scrapes that ask meanwhile. Beside the requests' counts and durations, every in-process
cache's entries and bound (``service.caching``), the PostgreSQL pool's use, and whether
the database and Redis answer (the readiness check), read at the scrape: those of the
worker that answers it (each worker keeps its own).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
from collections.abc import Iterator
from typing import Annotated, Final, Literal

import asyncpg
import msgspec
from litestar import Controller, Response, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.types import Scope
from msgspec import Meta
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from service.api import problems
from service.api.deps import AnyRequest, ServicesDep
from service.api.document import documented
from service.api.front.addresses import LOOPBACK, ip_of
from service.api.front.hot import header
from service.api.front.ratelimit import NOT_LIMITED, RateLimiter
from service.api.front.reading import bearer_token
from service.caching import registered
from service.store.batch import SharedFlight
from service.store.cache import Cache, RedisState
from service.store.db import TIMED_OUT, UNAVAILABLE
from service.support import logs
from service.support.i18n import _
from service.support.settings import Settings

DatabaseState = Literal["up", "down"]

log = logging.getLogger("shutbox.ops")


class Health(msgspec.Struct, frozen=True):
    """The process answers."""

    status: Annotated[Literal["ok"], Meta(description="Always `ok`.")]


class Readiness(msgspec.Struct, frozen=True):
    """Whether this process can serve: the database answers."""

    status: Annotated[
        Literal["ready", "unavailable"],
        Meta(description="`ready` (200) when the database answers, else `unavailable` (503)."),
    ]
    database: Annotated[
        DatabaseState,
        Meta(description="`up`: PostgreSQL answered a query within a second; else `down`."),
    ]
    redis: Annotated[
        RedisState,
        Meta(
            description="Redis as this process sees it; not required (without it the service "
            "answers the same, from PostgreSQL): `not configured` when no REDIS_URL is set."
        ),
    ]


class OpsController(Controller):
    tags = ["Operations"]
    include_in_schema = True

    @get(
        "/healthz",
        opt={NOT_LIMITED: True},
        operation_id="healthz",
        summary="The process is alive",
        responses=documented(),  # a strange query's and the proxy's answers only
    )
    async def healthz(self) -> Health:
        return Health(status="ok")

    @get(
        "/readyz",
        opt={NOT_LIMITED: True},
        operation_id="readyz",
        summary="Ready to serve: the database answers (Redis is reported, not required)",
        description="503 when the database does not answer; Redis is optional: only reported.",
        responses={
            **documented(),  # a strange query's and the proxy's; its 503 beside this one
            503: ResponseSpec(
                data_container=Readiness,
                description="Not ready: the database does not answer",
                generate_examples=False,
            ),
        },
    )
    async def readyz(self, services: ServicesDep) -> Response[Readiness]:
        pool, cache = services.pool, services.cache
        database, redis = await services.readiness(lambda: readiness(pool, cache))
        ready = database == "up"
        return Response(
            Readiness(status="ready" if ready else "unavailable", database=database, redis=redis),
            status_code=200 if ready else 503,
        )


async def readiness(pool: asyncpg.Pool, cache: Cache) -> tuple[DatabaseState, RedisState]:
    """Whether the database answers (on one pooled connection, for a second at most),
    and Redis as it answers now."""
    try:
        async with pool.acquire(timeout=1) as connection:
            await connection.fetchval("SELECT 1", timeout=1)
        database: DatabaseState = "up"
    except (*UNAVAILABLE, *TIMED_OUT, asyncpg.PostgresError, TimeoutError) as error:
        # The answer says down; the log says why (an operator reads it, not the prober).
        log.warning("readiness: the database is down", extra={"error": repr(error)})
        database = "down"
    except Exception:  # a bug: the probe still answers (not ready), the log says so loudly
        log.exception("readiness: the database check failed")
        database = "down"
    return database, await cache.state()


class MetricsController(Controller):
    """Prometheus text at /metrics: for operators, not part of the client API document.
    What this process counted and has not written yet is written first."""

    path = "/metrics"
    include_in_schema = False

    @get()
    async def get(self, request: AnyRequest, services: ServicesDep) -> Response[bytes]:
        if not may_scrape(request.scope, services.settings, services.limiter):
            raise problems.NOT_FOUND(_("No such resource"))
        logs.request_metrics.flush()
        pool, cache = services.pool, services.cache
        # What /readyz would answer now (the checks asked meanwhile share it): Prometheus
        # sees the database and Redis as the health checks do, at every scrape.
        database, redis = await services.readiness(lambda: readiness(pool, cache))
        _DEPENDENCIES.seen(database, redis)
        body = await _rendering(lambda: asyncio.to_thread(_render))
        return Response(body, status_code=200, headers={"Content-Type": CONTENT_TYPE_LATEST})


_rendering: SharedFlight[bytes] = SharedFlight()  # the process's metrics: one registry


class CacheSizes(Collector):
    """``shutbox_cache_entries`` and ``shutbox_cache_bound`` by cache, from the registry
    of caches as it stands (caches of one name, such as each sequence's graded rolls,
    added up)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        entries = GaugeMetricFamily(
            "shutbox_cache_entries", "Entries an in-process cache holds", labels=["cache"]
        )
        bounds = GaugeMetricFamily(
            "shutbox_cache_bound", "The most entries an in-process cache holds", labels=["cache"]
        )
        sizes: dict[str, tuple[int, int]] = {}
        for cache in registered():
            held, bound = sizes.get(cache.name, (0, 0))
            sizes[cache.name] = (held + len(cache), bound + cache.bound)
        for name, (held, bound) in sizes.items():
            entries.add_metric([name], held)
            bounds.add_metric([name], bound)
        yield entries
        yield bounds


_CACHE_SIZES: Final = CacheSizes()
REGISTRY.register(_CACHE_SIZES)

POOLS: Final[set[asyncpg.Pool]] = set()
"""The PostgreSQL pools of this process's apps while they run (the lifespan adds and
removes its own): one in a served process."""


class PoolUse(Collector):
    """``shutbox_db_pool_connections`` by ``state`` (``busy``: lent to a request;
    ``idle``) and ``shutbox_db_pool_max``, read at the scrape: a pool whose busy
    connections reach its bound makes requests wait for one."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        connections = GaugeMetricFamily(
            "shutbox_db_pool_connections",
            "PostgreSQL connections of the pool, busy (lent) or idle",
            labels=["state"],
        )
        bound = GaugeMetricFamily(
            "shutbox_db_pool_max", "The most PostgreSQL connections the pool opens"
        )
        pools = [pool for pool in POOLS if not pool.is_closing()]
        idle = sum(pool.get_idle_size() for pool in pools)
        connections.add_metric(["busy"], sum(pool.get_size() for pool in pools) - idle)
        connections.add_metric(["idle"], idle)
        bound.add_metric([], sum(pool.get_max_size() for pool in pools))
        yield connections
        yield bound


_POOL_USE: Final = PoolUse()
REGISTRY.register(_POOL_USE)


class Dependencies(Collector):
    """``shutbox_database_up`` and ``shutbox_redis_up``: 1 when it answered the check of
    the latest scrape, 0 when not (``readiness``); Redis has no sample when none is
    configured. The database down is the service down (``/readyz`` answers 503); Redis
    down is the service slower, answering the same from PostgreSQL."""

    def __init__(self) -> None:
        self._database: float | None = None
        self._redis: float | None = None

    def seen(self, database: DatabaseState, redis: RedisState) -> None:
        self._database = 1.0 if database == "up" else 0.0
        self._redis = None if redis == "not configured" else 1.0 if redis == "up" else 0.0

    def collect(self) -> Iterator[GaugeMetricFamily]:
        database = GaugeMetricFamily(
            "shutbox_database_up", "PostgreSQL answered the readiness check (1) or not (0)"
        )
        redis = GaugeMetricFamily(
            "shutbox_redis_up", "Redis answered the readiness check (1) or not (0)"
        )
        if self._database is not None:
            database.add_metric([], self._database)
        if self._redis is not None:
            redis.add_metric([], self._redis)
        yield database
        yield redis


_DEPENDENCIES: Final = Dependencies()
REGISTRY.register(_DEPENDENCIES)


def _render() -> bytes:
    """The metrics of this process, or of every worker's (``PROMETHEUS_MULTIPROC_DIR``),
    and this process's caches."""
    registry = REGISTRY
    if "PROMETHEUS_MULTIPROC_DIR" in os.environ or "prometheus_multiproc_dir" in os.environ:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        registry.register(_CACHE_SIZES)
        registry.register(_POOL_USE)
        registry.register(_DEPENDENCIES)
    rendered: bytes = generate_latest(registry)
    return rendered


def may_scrape(scope: Scope, settings: Settings, limiter: RateLimiter) -> bool:
    """Whether a request may read the metrics: it sends the metrics token as its bearer,
    or comes from a client address the settings allow (through the trusted proxies, as
    the limits read it). A connection not over IP (a unix socket, an in-process client)
    is the host's own: allowed with loopback; an address a proxy gives that is no IP is
    nobody's."""
    token = settings.metrics_token
    if token is not None:
        sent = bearer_token(header(scope, b"authorization") or "")
        if sent is not None and hmac.compare_digest(sent.encode("latin-1"), token.encode()):
            return True
    peer = str((scope.get("client") or ("", 0))[0])
    ip = ip_of(limiter.client_address(scope))
    if ip is None and ip_of(peer) is None:
        ip = ip_of(LOOPBACK)
    return ip is not None and any(ip in network for network in settings.metrics_networks)
