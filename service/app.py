"""create_app(): settings → lifespan (pool, cache) → routes → errors."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import date
from typing import TYPE_CHECKING, Any, Final, cast

import asyncpg
from litestar import Litestar, Router
from litestar.config.cors import CORSConfig
from litestar.enums import ScopeType
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin
from litestar.openapi.spec import Components, License, OpenAPI, SecurityScheme, Server
from litestar.plugins import PluginProtocol
from litestar.types import (
    ASGIApp,
    ControllerRouterHandler,
    HTTPScope,
    LifeSpanReceive,
    LifeSpanScope,
    LifeSpanSend,
    Message,
    Receive,
    Scope,
    Send,
)

from service.api import ops, problems
from service.api.bodies import StrictBodyRequest, describe_request_bodies
from service.api.boxes import BoxesController
from service.api.daily import DailyController
from service.api.deps import DEPENDENCIES, Services
from service.api.document import finish_document
from service.api.friends import FriendsController
from service.api.front.hot import (
    FRONT,
    MATCHED,
    HotRoute,
    hot_route,
    hot_routes,
    last_resort,
)
from service.api.front.litestar import RoutedBehind, options_of_whole_paths, use_document
from service.api.front.ratelimit import NOT_LIMITED, unrouted_rate_limit
from service.api.front.reading import body_in_time, name_query_parameters
from service.api.front.stack import framework_middleware, service_middleware
from service.api.game import GameController
from service.api.headers import describe_headers
from service.api.ops import MetricsController, OpsController
from service.api.players import PlayersController
from service.api.practice import PracticeController
from service.api.series import PlayersSeriesController, SeriesController
from service.caching import LRU
from service.rules.ruleset import Rules
from service.rules.solver import LOADED
from service.store import daily, embedded, idempotency
from service.store.cache import Cache
from service.store.db import create_pool, migrate
from service.store.solving import Solver
from service.support import logs, tracing
from service.support.clock import Clock, SystemClock
from service.support.settings import Settings
from service.web import play_router

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

VERSION = "1.0.0"
DOCS: Final = "/schema"
"""Where the API's document and its pages are served."""


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Shut the Box Challenge",
        version=VERSION,
        description=(
            "Daily Dice, Friend Box codes, verified runs and the exact solution for the dice "
            "you actually got. Errors are RFC 9457 problem details."
        ),
        # Not open source: no licence is granted (npm's "UNLICENSED", as the TypeScript
        # client says); SPDX has no identifier for that but a reference of one's own.
        license=License(name="Proprietary", identifier="LicenseRef-Proprietary"),
        path=DOCS,
        openapi_router=Router(
            DOCS,
            route_handlers=[],
            include_in_schema=False,
            dto=None,
            return_dto=None,
            opt={NOT_LIMITED: docs_page},
        ),
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


def docs_page(scope: Scope) -> bool:
    """Whether a request of the docs' router is one of their pages (a GET of no path
    parameter): not rate limited, the same pages for everyone. The 404 page Litestar
    answers for any other name under them is, and so is another method."""
    return scope.get("method") == "GET" and not scope["path_params"]


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
        ops.POOLS.add(pool)
        try:
            async with pool.acquire() as connection:
                await migrate(connection)
            await daily.make_partitions_ahead(pool, settings.launch_date, clock.now())
            services = app.state.services = Services(pool, cache, clock, settings)
            LOADED.limit = settings.solver_tables
            solver = app.state.solver = Solver(
                pool,
                processes=settings.solver_processes,
                queue=settings.solver_queue,
                stored=settings.solver_stored,
                per_client=settings.solver_limit,
                limiter=services.limiter,
            )
            await solver.tables(Rules())  # the standard tables, warm before the first request
            chores = [asyncio.create_task(housekeeping(pool, cache, clock, settings.launch_date))]
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
                # The tokens of requests let through at first sight, taken in Redis now.
                await services.limiter.reconciled()
                await solver.close()
                logs.request_log.flush()
                logs.request_metrics.flush()
        finally:
            ops.POOLS.discard(pool)
            await cache.close()
            await pool.close()

    return manage


class App(RoutedBehind):
    """Litestar with six things of its own.

    The request log and metrics (``logs.observe_middleware``) take every request as it
    comes, whatever answers it: the framework's own answers (a 404, a 500) too.

    It answers HEAD wherever it answers GET (RFC 9110: a general-purpose server supports
    both): the GET is made, its status and headers sent (Content-Length included), its
    body not. The request log and metrics still say HEAD.

    It can run the service's middleware straight from the server for the hottest routes,
    those whose handlers name their own answerer in their ``opt``
    (``serve_before_framework``, ``service.api.front.hot``).

    A request's body must arrive within ``body_timeout`` seconds, whichever way reads it
    (``service.api.front.reading``).

    Its OPTIONS answer's ``Allow`` names every method of the path, as the OpenAPI
    document does (``service.api.front.litestar.options_of_whole_paths``).

    Every request meets the rate limits, whatever answers it: a request routed to a
    handler (a hot route, or the route the framework's router chose) as its handler
    says, first of the service's middleware (``rate_limit_middleware``); one the router
    finds no handler for (404, 405) around the router (``unrouted_rate_limit``, within
    the framework's exception and CORS layers), so that it costs a token as any answer
    does."""

    def __init__(self, *args: Any, body_timeout: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        options_of_whole_paths(self.routes)
        self.body_timeout = body_timeout
        self.hot_routes: Sequence[HotRoute] = hot_routes(self.routes)
        self.front: ASGIApp | None = None
        self.observed = logs.observe_middleware(self.route)
        telemetry = self._telemetry()
        if telemetry is not None:
            # A request's span around all of it, whichever way it is answered: its log
            # line and metrics, the service's middleware before the framework, the framework.
            self.observed = telemetry.middleware(app=self.observed)

    def _telemetry(self) -> Any:
        """Litestar's OpenTelemetry plugin, when the app has it (traces on)."""
        try:
            return self.plugins.get("OpenTelemetryPlugin")
        except KeyError:
            return None

    def _create_asgi_handler(self) -> ASGIApp:
        """The framework's layers, without the OpenTelemetry plugin's: that one wraps the
        whole app instead (``__init__``), the requests answered before the framework too."""
        handler = super()._create_asgi_handler()
        if self._telemetry() is None:
            return handler
        return cast("ASGIApp", handler.app)  # type: ignore[attr-defined]

    def before_router(self, router: ASGIApp) -> ASGIApp:
        """The rate limits of a request no handler takes, around the router."""
        return unrouted_rate_limit(router)

    def serve_before_framework(self, middleware: Callable[[ASGIApp], ASGIApp]) -> None:
        """Requests on the hot routes go through ``middleware`` before the framework,
        which gets what they do not answer (``service.api.front.hot``)."""
        self.front = last_resort(middleware(self.framework))

    async def __call__(
        self,
        scope: Scope | LifeSpanScope,
        receive: Receive | LifeSpanReceive,
        send: Send | LifeSpanSend,
    ) -> None:
        if scope["type"] != ScopeType.HTTP:
            await super().__call__(scope, receive, send)
            return
        http, send = cast("HTTPScope", scope), cast("Send", send)
        if http["method"] == "HEAD":
            http = cast("HTTPScope", {**http, "method": "GET", logs.HEAD_REQUEST: True})
            send = _without_body(send)
        receive, send = body_in_time(http, cast("Receive", receive), send, self.body_timeout)
        await self.observed(http, receive, send)

    async def route(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request, under way in the log: to the service's middleware before the
        framework, or to the framework."""
        hot = hot_route(self.hot_routes, scope, self.cors_config is not None)
        if hot is None or self.front is None:
            if self.cors_config is not None:
                send = _vary_restored(send)
            await super().__call__(scope, receive, send)
            return
        route, path = hot
        cast("dict[str, object]", scope)[MATCHED] = hot  # what the middleware asks (matched)
        scope["app"] = scope["litestar_app"] = self
        scope.setdefault("state", {})
        # What the router would set: the service's middleware reads the same either way.
        scope["path_template"] = route.template
        scope["route_handler"] = route.handler
        scope["path_params"] = path.groupdict()
        await self.front(scope, receive, send)

    async def framework(self, scope: Scope, receive: Receive, send: Send) -> None:
        """What the service's middleware did not answer before the framework, to it."""
        cast("dict[str, object]", scope)[FRONT] = True
        await super().__call__(scope, receive, send)


# What an answer with the header on the left varies by (the request header on the right).
_VARIED_BY: Final = (
    (b"content-language", b"Accept-Language"),
    (b"content-encoding", b"Accept-Encoding"),
)


def _vary_restored(send: Send) -> Send:
    """The framework's CORS layer sets ``Vary: Origin`` in place of the ``Vary`` an answer
    has: an answer that says its language varies by ``Accept-Language`` again, and one
    compressed (a page file, ``service.web.files``) by ``Accept-Encoding``."""

    async def send_varied(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            names = [name.lower() for name, _ in headers]
            varied_by = [by for header, by in _VARIED_BY if header in names]
            if varied_by:
                vary = b", ".join(v for n, v in headers if n.lower() == b"vary")
                for by in varied_by:
                    if by.lower() not in vary.lower():
                        vary = by + b", " + vary if vary else by
                headers = [(n, v) for n, v in headers if n.lower() != b"vary"]
                message["headers"] = [*headers, (b"vary", vary)]
        await send(message)

    return send_varied


def _without_body(send: Send) -> Send:
    async def send_head(message: Message) -> None:
        if message["type"] == "http.response.body":
            if message.get("more_body", False):
                return
            message = {"type": "http.response.body", "body": b"", "more_body": False}
        await send(message)

    return send_head


def route_handlers() -> list[ControllerRouterHandler]:
    """The service's routes: the API's resources, operations, the page."""
    return [
        PlayersController,
        DailyController,
        PracticeController,
        BoxesController,
        FriendsController,
        SeriesController,
        PlayersSeriesController,
        GameController,
        OpsController,
        MetricsController,
        play_router(),
    ]


def telemetry_plugin(provider: TracerProvider) -> PluginProtocol:
    """Litestar's OpenTelemetry plugin: a span per request, named by its method and route
    template (``tracing.name_request_span``), whose children are the request's statements
    and Redis calls. No spans of their own for the ASGI messages received and sent: a
    dozen a request, of no use here."""
    from litestar.plugins.opentelemetry import OpenTelemetryConfig, OpenTelemetryPlugin

    return OpenTelemetryPlugin(
        OpenTelemetryConfig(
            tracer_provider=provider,
            exclude_spans=["receive", "send"],
            scope_span_details_extractor=tracing.request_span_details,
        )
    )


def create_app(
    settings: Settings | None = None,
    clock: Clock | None = None,
    handlers: Sequence[ControllerRouterHandler] | None = None,
    tracer_provider: TracerProvider | None = None,
) -> Litestar:
    """The application; with no settings, from the environment (embedded database if
    none); with no handlers, of the service's routes (``route_handlers``). Traced with
    ``tracer_provider``, or as the ``OTEL_*`` variables say (``support.tracing``)."""
    settings = embedded.resolve(settings or Settings.from_env())
    logs.configure(settings.log_level)
    provider = tracer_provider or tracing.from_environment(os.environ)
    plugins: list[PluginProtocol] = [problems.plugin()]
    if provider is not None:
        tracing.install(provider)
        plugins.append(telemetry_plugin(provider))
    app = App(
        route_handlers=list(handlers if handlers is not None else route_handlers()),
        dependencies=DEPENDENCIES,
        lifespan=[lifespan(settings, clock or SystemClock())],
        middleware=[framework_middleware],
        plugins=plugins,
        exception_handlers={Exception: problems.internal_error},
        openapi_config=openapi_config(),
        request_max_body_size=settings.max_body_bytes,
        body_timeout=settings.body_timeout,
        request_class=StrictBodyRequest,  # bodies decoded strictly into their structs
        cors_config=cors_config(settings),
        logging_config=None,  # service.support.logs configures JSON logging
        debug=False,
    )
    app.serve_before_framework(service_middleware)
    kept = DOCUMENT.get(None) if handlers is None else None
    if kept is not None:
        use_document(app, kept)
    else:
        describe_request_bodies(app)
        describe_headers(app)
        finish_document(app)
        if handlers is None:
            DOCUMENT.put(None, app.openapi_schema)
    name_query_parameters(app)
    return app


# The OpenAPI document of the service's routes, made by the first app of a process (about
# 0.7 s of CPU: Litestar's generation, then ours) and used as it is by the next: the same
# handlers, the same document, whatever the settings. A test process makes hundreds of apps.
DOCUMENT: Final[LRU[None, OpenAPI]] = LRU("openapi_document", 1)
