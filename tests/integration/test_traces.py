"""Traces: an official run's request is a span whose children are its SQL statements
(and Redis calls), whichever way the request is answered, and its log line names the
span; with tracing off nothing of OpenTelemetry is set up at all."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterable, AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Final

import httpx
import msgspec
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from service.support import logs, tracing
from service.support.clock import FixedClock
from service.support.settings import Settings
from tests.conftest import ROOT
from tests.integration.api.helpers import auth, daily_dice, new_player
from tests.runs import played, scripted

TODAY: Final = "2026-11-29"  # the test clock's date


@dataclass
class Traced:
    client: httpx.AsyncClient
    spans: InMemorySpanExporter
    provider: TracerProvider


@asynccontextmanager
async def traced_app(settings: Settings, clock: FixedClock) -> AsyncIterator[Traced]:
    """The app in-process, traced into memory, its request log on (INFO). Its lifespan
    runs on the test's loop, and requests go through httpx's own ASGI transport: a body
    of no known length reaches the app as one (the framework's test client reads a body
    whole and gives its length). Entered in the test itself: the lifespan's task group
    is left in the task it was entered in."""
    from service.app import create_app

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    app = create_app(msgspec.structs.replace(settings, log_level="INFO"), clock, None, provider)
    transport = httpx.ASGITransport(app=app)
    try:
        async with (
            app.lifespan(),
            httpx.AsyncClient(transport=transport, base_url="http://testserver.local") as client,
        ):
            yield Traced(client, exporter, provider)
    finally:
        tracing.uninstall()
        logs.configure(settings.log_level)


def trace_of(spans: Sequence[ReadableSpan], name: str) -> tuple[ReadableSpan, list[ReadableSpan]]:
    """The request span named ``name`` (a root) and every span of its trace below it."""
    [root] = [s for s in spans if s.name == name and s.parent is None]
    assert root.context is not None
    below = [
        s
        for s in spans
        if s is not root and s.context is not None and s.context.trace_id == root.context.trace_id
    ]
    return root, below


def descends_from(span: ReadableSpan, root: ReadableSpan, spans: Sequence[ReadableSpan]) -> bool:
    by_id = {s.context.span_id: s for s in spans if s.context is not None}
    assert root.context is not None
    parent = span.parent
    while parent is not None:
        if parent.span_id == root.context.span_id:
            return True
        above = by_id.get(parent.span_id)
        parent = above.parent if above is not None else None
    return False


def sql_of(spans: Sequence[ReadableSpan]) -> list[str]:
    return [
        str(s.attributes.get("db.statement") or s.attributes.get("db.query.text"))
        for s in spans
        if s.attributes is not None and s.attributes.get("db.system") == "postgresql"
    ]


def status_of(span: ReadableSpan) -> object:
    assert span.attributes is not None
    return span.attributes.get("http.status_code", span.attributes.get("http.response.status_code"))


async def chunks(body: bytes) -> AsyncIterable[bytes]:
    yield body


@pytest.mark.parametrize("length", ["content-length", "chunked"])
async def test_an_official_runs_trace_has_its_sql_under_the_request(
    settings: Settings, clock: FixedClock, capsys: pytest.CaptureFixture[str], length: str
) -> None:
    """Sent with its length, the run is answered before the framework (the hot path);
    sent in chunks, of no length known beforehand, by the framework's handler
    (``service.api.front.hot``). The request's span is the same either way, its
    statements below it, and its request-log line names it."""
    async with traced_app(settings, clock) as traced:
        await official_run(traced, capsys, length)


async def official_run(traced: Traced, capsys: pytest.CaptureFixture[str], length: str) -> None:
    client = traced.client
    player = await new_player(client)
    dice = await daily_dice(client, TODAY)
    body = msgspec.json.encode(
        {"moves": [m.as_json() for m in played(dice, policy=scripted([1, 0]))]}
    )
    logs.request_log.flush()
    capsys.readouterr()
    traced.spans.clear()

    headers = {**auth(player), "Content-Type": "application/json"}
    content = body if length == "content-length" else chunks(body)
    answer = await client.post(f"/v1/daily/{TODAY}/runs", content=content, headers=headers)
    assert ("content-length" in answer.request.headers) == (length == "content-length")
    assert answer.status_code == 201, answer.text

    spans = traced.spans.get_finished_spans()
    request, below = trace_of(spans, "POST /v1/daily/{day}/runs")
    assert status_of(request) == 201
    statements = sql_of(below)
    assert statements, [s.name for s in spans]
    assert any("official runs" in sql for sql in statements), statements
    assert all(descends_from(span, request, spans) for span in below)

    logs.request_log.flush()
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [line] = [line for line in lines if line.get("logger") == "shutbox.access"]
    assert request.context is not None
    assert line["trace_id"] == format(request.context.trace_id, "032x")
    assert line["span_id"] == format(request.context.span_id, "016x")


async def test_a_framework_routes_request_is_traced_with_its_redis_calls_too(
    settings: Settings, clock: FixedClock
) -> None:
    """A player's creation (the framework's way alone) and the dice of a date: their
    statements and Redis calls below their requests."""
    async with traced_app(settings, clock) as traced:
        await framework_requests(traced)


async def framework_requests(traced: Traced) -> None:
    await new_player(traced.client)
    await daily_dice(traced.client, TODAY)
    spans = traced.spans.get_finished_spans()
    created, below = trace_of(spans, "POST /v1/players")
    assert status_of(created) == 201
    assert any("INSERT" in sql for sql in sql_of(below)), [s.name for s in below]
    assert all(descends_from(span, created, spans) for span in below)
    every_below = [
        span
        for name in ("POST /v1/players", "GET /v1/daily/{day}")
        for span in trace_of(spans, name)[1]
    ]
    redis_calls = [
        s
        for s in every_below
        if s.attributes is not None and s.attributes.get("db.system") == "redis"
    ]
    assert redis_calls, [s.name for s in every_below]
    # Spans are named by route template: what a client writes in a path never names one.
    traced.spans.clear()
    for path in (f"/v1/daily/{TODAY}", "/v1/no-such-thing-a1b2", f"/v1//daily/{TODAY}"):
        await traced.client.get(path)
    names = [s.name for s in traced.spans.get_finished_spans() if s.parent is None]
    assert sorted(names) == ["GET /v1/daily/{day}", "GET /v1/daily/{day}", "GET unmatched"]
    routes = [
        s.attributes.get("http.route")
        for s in traced.spans.get_finished_spans()
        if s.parent is None and s.attributes
    ]
    assert sorted(routes) == ["/v1/daily/{day}", "/v1/daily/{day}", "unmatched"]


async def test_a_log_line_within_a_span_names_it(settings: Settings, clock: FixedClock) -> None:
    async with traced_app(settings, clock) as traced:
        log_line_within_a_span(traced)


def log_line_within_a_span(traced: Traced) -> None:
    tracer = traced.provider.get_tracer("test")
    with tracer.start_as_current_span("work") as span:
        record = logging.LogRecord("shutbox", logging.WARNING, "", 0, "inside", (), None)
        line = json.loads(logs.JsonFormatter().format(record))
    context = span.get_span_context()
    assert (line["trace_id"], line["span_id"]) == (
        format(context.trace_id, "032x"),
        format(context.span_id, "016x"),
    )
    outside = json.loads(logs.JsonFormatter().format(record))
    assert "trace_id" not in outside and "span_id" not in outside


OFF_CHECK: Final = """
import sys
import asyncpg
import redis.asyncio
from service.app import create_app
from service.support import logs, tracing
from service.support.settings import Settings

settings = Settings(database_url="postgresql://unused", secret="unused")
for exporter in (None, "none"):
    if exporter is not None:
        import os
        os.environ["OTEL_TRACES_EXPORTER"] = exporter
    app = create_app(settings)
    assert app._telemetry() is None, "a layer around the app"
from opentelemetry import trace
from opentelemetry.trace import ProxyTracerProvider
assert isinstance(trace.get_tracer_provider(), ProxyTracerProvider), "a tracer provider"
assert not hasattr(asyncpg.Connection.execute, "__wrapped__"), "asyncpg instrumented"
assert not hasattr(redis.asyncio.Redis.execute_command, "__wrapped__"), "redis instrumented"
assert not tracing.installed and logs.span_ids is None
assert "opentelemetry.sdk.trace" not in sys.modules, "the tracing SDK imported"
print("nothing set up")
"""


def test_with_tracing_off_nothing_is_set_up() -> None:
    """No exporter named (or ``none``): no tracer provider installed (the API's proxy
    is the process's), no library instrumented, no layer around the app, the tracing
    SDK not even imported. In a process of its own: a test's may have installed one."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", OFF_CHECK],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "nothing set up"


@pytest.mark.parametrize(
    ("environ", "wanted"),
    [
        ({}, []),
        ({"OTEL_TRACES_EXPORTER": "none"}, []),
        ({"OTEL_TRACES_EXPORTER": "console"}, ["console"]),
        ({"OTEL_TRACES_EXPORTER": "otlp,console"}, ["otlp", "console"]),
        ({"OTEL_TRACES_EXPORTER": "otlp_proto_http"}, ["otlp"]),
        ({"OTEL_TRACES_EXPORTER": "console", "OTEL_SDK_DISABLED": "true"}, []),
    ],
)
def test_the_exporters_the_environment_names(environ: dict[str, str], wanted: list[str]) -> None:
    assert tracing.exporters_wanted(environ) == wanted


@pytest.mark.parametrize(
    "environ",
    [
        {"OTEL_TRACES_EXPORTER": "jaeger"},
        {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
    ],
)
def test_an_exporter_not_installed_is_refused(environ: dict[str, str]) -> None:
    with pytest.raises(tracing.TracingError):
        tracing.exporters_wanted(environ)
