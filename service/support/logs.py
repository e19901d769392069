"""Observability: JSON logs (one object a line), a request id for every request, and
Prometheus metrics by route."""

from __future__ import annotations

import asyncio
import atexit
import bisect
import itertools
import logging
import secrets
import sys
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, Final

import msgspec
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send
from prometheus_client import Counter, Gauge, Histogram

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
span_ids: Callable[[], tuple[str, str] | None] | None = None
"""The current span's trace and span ids, when traces are on (``tracing.install``): None
otherwise, so that a log line costs nothing more with them off."""
request_traced: Callable[[str, str], None] | None = None
"""Names the current request's span as its metrics are labelled (method, route template),
when traces are on (``tracing.install``): a span's name is never the path a client wrote."""
access_log = logging.getLogger("shutbox.access")

_STANDARD: Final = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message"}
_encoder = msgspec.json.Encoder(enc_hook=repr)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = request_id.get()
        if rid:
            entry["request_id"] = rid
        ids = span_ids() if span_ids is not None else None
        if ids is not None:
            entry["trace_id"], entry["span_id"] = ids
        entry.update({k: v for k, v in record.__dict__.items() if k not in _STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return _encoder.encode(entry).decode()


def configure(level: str) -> None:
    handler = logging.StreamHandler(sys.stdout)
    formatter = JsonFormatter()
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


class RequestLine(msgspec.Struct, gc=False):
    """One request in the request log, with the fields of the other JSON log lines (made
    by position: a few hundred a flush)."""

    time: str
    level: str
    logger: str
    message: str
    request_id: str
    method: str
    path: str
    status: int
    ms: float


class TracedRequestLine(RequestLine, gc=False):
    """A request's line when traces are on: its span's ids after the rest."""

    trace_id: str
    span_id: str


PATH_LOGGED: Final = 512  # characters: a longer path is cut, it is somebody's junk
METHOD_LOGGED: Final = 32  # characters: WebDAV's longest has 16; anything longer is junk


FLUSH_SECONDS: Final = 0.05


def _flush_later(flush: Callable[[], None]) -> bool:
    """``flush`` called in ``FLUSH_SECONDS`` on the running loop; False if there is none."""
    try:
        asyncio.get_running_loop().call_later(FLUSH_SECONDS, flush)
    except RuntimeError:
        return False
    return True


Logged = tuple[float, str, str, str, int, float, tuple[str, str] | None]
"""A request as the log keeps it until written: when it ended (epoch seconds), its id,
method (cut to ``METHOD_LOGGED``), path (cut to ``PATH_LOGGED``), status, duration
(seconds) and its span's trace and span ids (traces on). The id is the client's only
when short (``_incoming_id``)."""


class RequestLog:
    """The request log, one JSON line a request, written in batches: the requests that
    end within ``FLUSH_SECONDS`` (or the first ``FLUSH_LINES`` of them) are kept as they
    are, then made into lines and written at once, so that logging a request costs a
    tuple, and no system call of its own. What waits is written at shutdown too (the
    app's lifespan, and at exit)."""

    FLUSH_LINES: Final = 512

    def __init__(self) -> None:
        self._kept: list[Logged] = []
        self._second = self._millisecond = -1
        self._second_stamp = self._stamp = ""
        self._encode_lines = msgspec.json.Encoder().encode_lines
        atexit.register(self.flush)

    def _time(self, now: float) -> str:
        """``now`` as the log writes it (milliseconds, UTC), made once a millisecond (a
        busy process logs several requests in each), its second once a second."""
        millisecond = int(now * 1000)
        if millisecond != self._millisecond:
            second = millisecond // 1000
            if second != self._second:
                self._second = second
                self._second_stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._millisecond = millisecond
            self._stamp = f"{self._second_stamp}.{millisecond % 1000:03d}Z"
        return self._stamp

    def request(
        self,
        rid: str,
        method: str,
        path: str,
        status: int,
        seconds: float,
        ids: tuple[str, str] | None = None,
    ) -> None:
        first = not self._kept
        kept = (
            time.time(),
            rid,
            method[:METHOD_LOGGED],
            path[:PATH_LOGGED],
            status,
            seconds,
            ids,
        )
        self._kept.append(kept)
        if (first and not _flush_later(self.flush)) or len(self._kept) >= self.FLUSH_LINES:
            self.flush()  # the timer set for them finds nothing, or the next ones

    def lines(self, kept: list[Logged]) -> bytes:
        """The kept requests as the log's JSON lines, each ending with a newline (a traced
        request's with its trace and span ids last)."""
        lines: list[RequestLine] = []
        for ended, rid, method, path, status, seconds, ids in kept:
            said = "client closed request" if status == CLIENT_CLOSED else "request"
            fields = (self._time(ended), "info", "shutbox.access", said, rid, method, path)
            taken = round(seconds * 1000, 2)
            if ids is None:
                lines.append(RequestLine(*fields, status, taken))
            else:
                lines.append(TracedRequestLine(*fields, status, taken, *ids))
        return self._encode_lines(lines)

    def flush(self) -> None:
        if not self._kept:
            return
        data = self.lines(self._kept)
        self._kept = []
        stream = sys.stdout
        try:
            if hasattr(stream, "buffer"):
                stream.buffer.write(data)
            else:  # a text stream only (a test's capture, say)
                stream.write(data.decode())
            stream.flush()
        except (OSError, ValueError):
            pass  # the output is gone (closed at shutdown): nothing to write to


request_log = RequestLog()


HTTP_METHODS: Final = frozenset(
    ("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH")
)
"""The methods of RFC 9110 and PATCH: the metrics' ``method`` labels, with ``other`` for
any other (every label is a series kept for good: a client must not make them)."""
OTHER_METHOD: Final = "other"


def method_label(method: str) -> str:
    """The method as the metrics and traces name it: one of ``HTTP_METHODS``, or ``other``."""
    return method if method in HTTP_METHODS else OTHER_METHOD


UNMATCHED: Final = "unmatched"
"""The metrics' ``path`` of a request no route took (a 404, a 405): by template only."""

REQUESTS: Final = Counter(
    "shutbox_requests_total", "HTTP requests answered", ["method", "path", "status"]
)
DURATION: Final = Histogram(
    "shutbox_request_duration_seconds", "Time to answer an HTTP request", ["method", "path"]
)

WORKER_STARTS: Final = Counter(
    "shutbox_worker_starts", "Worker processes started since the service started"
)
WORKERS: Final = Gauge(
    "shutbox_workers",
    "Worker processes the service runs (SHUTBOX_WORKERS)",
    multiprocess_mode="max",
)


def worker_started(workers: int) -> None:
    """A worker process of ``workers`` began: counted, so that the starts beyond the
    ``workers`` of the service's start say a worker died and was replaced (the counts
    of a dead worker's file stay in the sum)."""
    WORKERS.set(workers)
    WORKER_STARTS.inc()


class RequestMetrics:
    """The requests' count and duration metrics, kept here and written to Prometheus's
    in batches (every ``FLUSH_SECONDS``, and before a scrape of this process): with
    several workers each write is to a shared file under a lock, three a request
    otherwise, and the same few keys take every request."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str, int], int] = {}
        self._times: dict[tuple[str, str], list[float]] = {}

    def add(self, method: str, path: str, status: int, seconds: float) -> None:
        first = not self._counts
        key = (method, path, status)
        self._counts[key] = self._counts.get(key, 0) + 1
        self._times.setdefault((method, path), []).append(seconds)
        if first and not _flush_later(self.flush):
            self.flush()

    def flush(self) -> None:
        counts, times = self._counts, self._times
        self._counts, self._times = {}, {}
        for labels, count in counts.items():
            REQUESTS.labels(*labels).inc(count)
        for (method, path), observed in times.items():
            _observe_all(DURATION.labels(method, path), observed)


def _observe_all(histogram: Histogram, values: list[float]) -> None:
    """``histogram.observe(value)`` for each value, with one write a bucket: to the
    histogram's own sum and bucket values, which ``observe`` writes (prometheus_client
    keeps them private; ``tests/integration/test_metrics.py`` holds this to ``observe``)."""
    bounds = histogram._upper_bounds
    counts = [0] * len(bounds)
    for value in values:
        counts[bisect.bisect_left(bounds, value)] += 1  # the first bound at or above it
    histogram._sum.inc(sum(values))
    for bucket, count in zip(histogram._buckets, counts, strict=True):
        if count:
            bucket.inc(count)


request_metrics = RequestMetrics()
_PROCESS_TAG: Final = secrets.token_hex(4)
_numbers = itertools.count()
CLIENT_CLOSED: Final = 499  # nginx's status for a client that hung up before the answer
HEAD_REQUEST: Final = "shutbox.head"
"""In a scope: the request was a HEAD, answered as its GET without the body (``app``)."""


class ClientClosedRequest(Exception):
    """The client hung up before its request was read: not a server error."""


def _method(scope: Scope) -> str:
    return "HEAD" if scope.get(HEAD_REQUEST) else str(scope.get("method", ""))


def _labels(scope: Scope) -> tuple[str, str]:
    """A request's method and route as its metrics label them and its span is named."""
    return method_label(_method(scope)), str(scope.get("path_template", UNMATCHED))


def observe_middleware(app: ASGIApp) -> ASGIApp:
    """Per request, in one layer: an id (the client's ``X-Request-ID`` or a new one,
    echoed back), Prometheus metrics by route template, and a JSON access-log line.

    A client that hangs up before its request is read (mid-body) is counted and logged
    as 499, "client closed request": the read raises ``ClientClosedRequest`` instead of
    handing the app a disconnect it would report as a server error, and whatever the
    app answers then goes nowhere."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        rid = _incoming_id(scope) or f"{_PROCESS_TAG}-{next(_numbers)}"
        token = request_id.set(rid)
        started = time.perf_counter()
        status = 500
        client_gone = responded = False

        async def receive_or_raise() -> ReceiveMessage:
            nonlocal client_gone
            message = await receive()
            if message["type"] == "http.disconnect" and not (client_gone or responded):
                client_gone = True
                raise ClientClosedRequest
            return message

        async def send_with_id(message: Message) -> None:
            nonlocal status, responded
            if client_gone:
                return
            if message["type"] == "http.response.start":
                responded = True
                status = message["status"]
                if request_traced is not None:  # routed by now; the span still open
                    request_traced(*_labels(scope))
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await app(scope, receive_or_raise, send_with_id)
        except ClientClosedRequest:
            pass  # raised past the app's error handlers: nobody is there to answer
        finally:
            if client_gone:
                status = CLIENT_CLOSED
            elapsed = time.perf_counter() - started
            request_metrics.add(*_labels(scope), status, elapsed)
            if access_log.isEnabledFor(logging.INFO):
                ids = span_ids() if span_ids is not None else None
                request_log.request(rid, _method(scope), scope["path"], status, elapsed, ids)
            request_id.reset(token)

    return middleware


def _incoming_id(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"x-request-id":
            text = value.decode("latin-1")
            if 0 < len(text) <= 64 and text.isprintable():
                return text
    return None
