"""Operations: liveness, readiness, metrics and the interactive docs."""

from __future__ import annotations

from typing import Literal

import msgspec
from litestar import Controller, Response, get
from litestar.openapi.datastructures import ResponseSpec

from service.api.deps import ServicesDep
from service.store.cache import RedisState


class Health(msgspec.Struct, frozen=True):
    status: Literal["ok"]


class Readiness(msgspec.Struct, frozen=True):
    status: Literal["ready", "unavailable"]
    database: Literal["up", "down"]
    redis: RedisState


class OpsController(Controller):
    tags = ["Operations"]
    include_in_schema = True

    @get("/healthz", operation_id="healthz", summary="The process is alive")
    async def healthz(self) -> Health:
        return Health(status="ok")

    @get(
        "/readyz",
        operation_id="readyz",
        summary="Ready to serve: the database answers (Redis is reported, not required)",
        description="503 when the database does not answer; Redis is optional: only reported.",
        responses={
            503: ResponseSpec(
                data_container=Readiness,
                description="Not ready: the database does not answer",
                generate_examples=False,
            )
        },
    )
    async def readyz(self, services: ServicesDep) -> Response[Readiness]:
        pool, cache = services.pool, services.cache
        try:
            async with pool.acquire(timeout=1) as connection:
                await connection.fetchval("SELECT 1", timeout=1)
            database: Literal["up", "down"] = "up"
        except Exception:
            database = "down"
        redis = await cache.state()
        ready = database == "up"
        return Response(
            Readiness(status="ready" if ready else "unavailable", database=database, redis=redis),
            status_code=200 if ready else 503,
        )
