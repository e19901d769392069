"""create_app(): settings → lifespan (pool, cache) → routes → errors."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import date
from typing import cast

import asyncpg
from litestar import Litestar, Response, get
from litestar.config.cors import CORSConfig
from litestar.enums import ScopeType
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme, Server
from litestar.plugins.prometheus import PrometheusController
from litestar.types import (
    LifeSpanReceive,
    LifeSpanScope,
    LifeSpanSend,
    Message,
    Receive,
    Scope,
    Send,
)

from service import logs
from service.api import problems
from service.api.bodies import StrictBodyRequest, describe_request_bodies
from service.api.boxes import BoxesController
from service.api.daily import (
    RUNS_PATH,
    DailyController,
    daily_feed_middleware,
    official_run_answer,
)
from service.api.deps import DEPENDENCIES, Services
from service.api.game import ANALYZE_PATH, GameController, analyze_answer
from service.api.headers import describe_headers
from service.api.hot import hot_posts
from service.api.ops import OpsController
from service.api.players import PlayersController
from service.clock import Clock, SystemClock
from service.i18n import language_middleware
from service.ratelimit import RateLimiter, rate_limit_middleware
from service.rules.ruleset import Rules
from service.rules.solver import LOADED
from service.settings import Settings
from service.solving import Solver
from service.store import daily, embedded, idempotency
from service.store.cache import Cache
from service.store.db import create_pool, migrate
from service.web import play_router

VERSION = "1.0.0"


class MetricsController(PrometheusController):
    """Prometheus text at /metrics: for operators, not part of the client API document.
    What this process counted and has not written yet is written first."""

    include_in_schema = False

    @get()
    async def get(self) -> Response[bytes]:
        logs.request_metrics.flush()
        response: Response[bytes] = await PrometheusController.get.fn(self)
        return response


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Shut the Box Challenge",
        version=VERSION,
        description=(
            "Daily Dice, Friend Box codes, verified runs and the exact solution for the dice "
            "you actually got. Errors are RFC 9457 problem details."
        ),
        path="/schema",
        render_plugins=[ScalarRenderPlugin()],
        servers=[Server(url="/")],
        components=Components(
            security_schemes={
                "bearer": SecurityScheme(
                    type="http", scheme="bearer", description="The token from POST /v1/players"
                )
            }
        ),
    )


def cors_config(settings: Settings) -> CORSConfig | None:
    if not settings.cors_origins:
        return None
    return CORSConfig(
        allow_origins=settings.cors_origins,
        allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "X-Request-ID"],
        expose_headers=["ETag", "Retry-After", "X-Request-ID"],
    )


async def housekeeping(pool: asyncpg.Pool, cache: Cache, clock: Clock, launch: date) -> None:
    """Every ten minutes: drop expired entries of the in-process cache (so its memory
    stays flat), forget idempotency keys past their 24 hours, and make the partitions of
    daily runs two months ahead."""
    while True:
        await cache.local.delete_expired()
        try:
            await idempotency.expire(pool, clock.now())
            await daily.make_partitions_ahead(pool, launch, clock.now())
        except Exception:  # the database may be away for a moment: next round, then
            logging.getLogger("shutbox").warning("housekeeping failed", exc_info=True)
        await asyncio.sleep(600)


def lifespan(
    settings: Settings, clock: Clock
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def manage(app: Litestar) -> AsyncIterator[None]:
        assert settings.database_url is not None
        pool = await create_pool(
            settings.database_url, statement_timeout=settings.statement_timeout
        )
        cache = Cache.connect(settings.redis_url, settings.redis_prefix)
        try:
            async with pool.acquire() as connection:
                await migrate(connection)
            await daily.make_partitions_ahead(pool, settings.launch_date, clock.now())
            app.state.services = Services(pool, cache, clock, settings)
            app.state.rate_limiter = RateLimiter(
                cache,
                settings.address_limit,
                settings.token_limit,
                settings.trusted_proxies,
                settings.operation_limits,
            )
            LOADED.limit = settings.solver_tables
            solver = app.state.solver = Solver(
                pool,
                processes=settings.solver_processes,
                queue=settings.solver_queue,
                per_client=settings.solver_limit,
                limiter=app.state.rate_limiter,
            )
            await solver.tables(Rules())  # the standard tables, warm before the first request
            services: Services = app.state.services
            await services.dice_in_play.learn_boxes()
            chores = [
                asyncio.create_task(housekeeping(pool, cache, clock, settings.launch_date)),
                asyncio.create_task(services.dice_in_play.follow_boxes()),
            ]
            # What start-up made lives as long as the app: out of every garbage collection
            # from now on (a full one took some 10 ms of a worker, a stall for every request
            # in flight), back in at shutdown.
            gc.collect()
            gc.freeze()
            try:
                yield
            finally:
                gc.unfreeze()
                for chore in chores:
                    chore.cancel()
                await solver.close()
                logs.request_log.flush()
                logs.request_metrics.flush()
        finally:
            await cache.close()
            await pool.close()

    return manage


class App(Litestar):
    """Litestar that answers HEAD wherever it answers GET (RFC 9110: a general-purpose
    server supports both): the GET is made, its status and headers sent (Content-Length
    included), its body not. The request log and metrics still say HEAD."""

    async def __call__(
        self,
        scope: Scope | LifeSpanScope,
        receive: Receive | LifeSpanReceive,
        send: Send | LifeSpanSend,
    ) -> None:
        if scope["type"] == ScopeType.HTTP and scope.get("method") == "HEAD":
            as_get = cast("Scope", {**scope, "method": "GET", logs.HEAD_REQUEST: True})
            await super().__call__(as_get, receive, _without_body(cast("Send", send)))
            return
        await super().__call__(scope, receive, send)


def _without_body(send: Send) -> Send:
    async def send_head(message: Message) -> None:
        if message["type"] == "http.response.body":
            if message.get("more_body", False):
                return
            message = {"type": "http.response.body", "body": b"", "more_body": False}
        await send(message)

    return send_head


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> Litestar:
    """The application; with no settings, from the environment (embedded database if none)."""
    settings = embedded.resolve(settings or Settings.from_env())
    logs.configure(settings.log_level)
    app = App(
        route_handlers=[
            PlayersController,
            DailyController,
            BoxesController,
            GameController,
            OpsController,
            MetricsController,
            play_router(),
        ],
        dependencies=DEPENDENCIES,
        lifespan=[lifespan(settings, clock or SystemClock())],
        middleware=[
            logs.observe_middleware,
            daily_feed_middleware,  # the hottest path, with no text: before the language
            language_middleware,
            rate_limit_middleware,
            hot_posts({ANALYZE_PATH: analyze_answer, RUNS_PATH: official_run_answer}),
        ],
        plugins=[problems.plugin()],
        exception_handlers={Exception: problems.internal_error},
        openapi_config=openapi_config(),
        request_max_body_size=settings.max_body_bytes,
        request_class=StrictBodyRequest,  # bodies decoded strictly into their structs
        cors_config=cors_config(settings),
        logging_config=None,  # service.logs configures JSON logging
        debug=False,
    )
    describe_request_bodies(app)
    describe_headers(app)
    return app
