"""Traces (OpenTelemetry), off unless the environment asks for them.

On when ``OTEL_TRACES_EXPORTER`` names one or more exporters (``otlp``, ``console``,
comma-separated) and ``OTEL_SDK_DISABLED`` is not ``true``; off when it is unset or
``none``. Everything else is the SDK's own ``OTEL_*`` variables (``OTEL_SERVICE_NAME``,
``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_TRACES_SAMPLER``, ``OTEL_BSP_*``...).

Off, nothing of OpenTelemetry is imported: no tracer provider, no instrumented asyncpg
or redis, no layer around the app. On, each worker (the app's factory) gets a tracer
provider of its own, installed as the process's, with asyncpg's and redis-py's
instrumentations, and the app a span per request around everything it does
(``service.app``), so that the statements and the Redis calls of a request are its
span's children, and the log lines written within it carry its ids (``logs``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from service.support import logs

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

EXPORTERS: Final = ("otlp", "console")
"""The ``OTEL_TRACES_EXPORTER`` names this service knows: OTLP is over HTTP (protobuf),
the only transport installed; ``otlp_proto_http`` is taken as ``otlp``."""


installed = False
"""Whether a tracer provider is installed (``install``): what keeps a request's context
for later work (``service.store.batch``) asks, so that it costs nothing with traces off."""


class TracingError(ValueError):
    """An ``OTEL_*`` setting this service cannot follow."""


def exporters_wanted(environ: Mapping[str, str]) -> list[str]:
    """The exporters the environment asks for: none means tracing is off.

    >>> exporters_wanted({})
    []
    >>> exporters_wanted({"OTEL_TRACES_EXPORTER": "none"})
    []
    >>> exporters_wanted({"OTEL_TRACES_EXPORTER": "otlp, console"})
    ['otlp', 'console']
    >>> exporters_wanted({"OTEL_TRACES_EXPORTER": "console", "OTEL_SDK_DISABLED": "true"})
    []
    """
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    names = [
        "otlp" if name == "otlp_proto_http" else name
        for part in environ.get("OTEL_TRACES_EXPORTER", "").split(",")
        if (name := part.strip().lower())
    ]
    if names == ["none"]:
        return []
    unknown = [name for name in names if name not in EXPORTERS]
    if unknown:
        raise TracingError(
            f"OTEL_TRACES_EXPORTER: {', '.join(unknown)} is not one of "
            f"{', '.join(EXPORTERS)} or none"
        )
    protocol = environ.get(
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "")
    )
    if "otlp" in names and protocol.strip() not in ("", "http/protobuf"):
        raise TracingError(f"OTLP exporter: only http/protobuf is installed, not {protocol!r}")
    return names


def from_environment(environ: Mapping[str, str]) -> TracerProvider | None:
    """The tracer provider the environment asks for, its exporters attached; None if off."""
    names = exporters_wanted(environ)
    if not names:
        return None
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

    # The SDK's own variables (the process's environment) name the service if they say;
    # "shutbox" rather than the SDK's "unknown_service" otherwise.
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "shutbox"}))
    provider = TracerProvider(resource=resource)  # its sampler: OTEL_TRACES_SAMPLER
    for name in names:
        exporter: SpanExporter
        if name == "console":
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            exporter = ConsoleSpanExporter()
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()  # OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS...
        provider.add_span_processor(BatchSpanProcessor(exporter))  # OTEL_BSP_*
    return provider


def install(provider: TracerProvider) -> None:
    """``provider`` the process's, asyncpg and redis-py instrumented with it, and the log
    lines written within a span carrying its ids. Once a process: the instrumentations
    patch the libraries' classes."""
    from opentelemetry import trace
    from opentelemetry.instrumentation.asyncpg import AsyncPGInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    trace.set_tracer_provider(provider)
    # A statement's parameters are players' data (tokens' hashes, names): not exported.
    AsyncPGInstrumentor(capture_parameters=False).instrument(  # type: ignore[no-untyped-call]
        tracer_provider=provider
    )
    RedisInstrumentor().instrument(tracer_provider=provider)
    logs.span_ids = current_span_ids
    logs.request_traced = name_request_span
    global installed
    installed = True


def uninstall() -> None:
    """The libraries as they were before ``install`` (tests: the process goes on)."""
    from opentelemetry.instrumentation.asyncpg import AsyncPGInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    AsyncPGInstrumentor().uninstrument()  # type: ignore[no-untyped-call]
    RedisInstrumentor().uninstrument()
    logs.span_ids = None
    logs.request_traced = None
    global installed
    installed = False


def current_span_ids() -> tuple[str, str] | None:
    """The current span's trace and span ids as W3C trace context writes them (hex)."""
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return format(context.trace_id, "032x"), format(context.span_id, "016x")


def request_span_details(scope: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The request span's name as it starts: its method as the metrics label it (the
    route is not known yet; ``name_request_span`` adds it once the request is answered)."""
    return logs.method_label(str(scope.get("method", ""))), {}


def name_request_span(method: str, route: str) -> None:
    """The current request span named by its method and route template (``unmatched`` for
    a request no route took), as its metrics are labelled: names a client cannot multiply."""
    from opentelemetry import trace

    span = trace.get_current_span()
    if span.is_recording():
        span.update_name(f"{method} {route}")
        span.set_attribute("http.route", route)
