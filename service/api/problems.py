"""Every error a client can hit, as RFC 9457 problem details with a stable ``type``."""

from __future__ import annotations

import logging
from typing import Any, Final

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.plugins.problem_details import (
    ProblemDetailsConfig,
    ProblemDetailsException,
    ProblemDetailsPlugin,
)
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from service.logs import ClientClosedRequest
from service.rules.dice import InvalidDice
from service.rules.errors import IllegalRun
from service.rules.ruleset import tiles_of
from service.store.db import TIMED_OUT, UNAVAILABLE

log = logging.getLogger("shutbox.errors")

TYPE_PREFIX: Final = "/problems/"
DATABASE_RETRY_AFTER: Final = "5"

# Types of the generic HTTP errors, by status; each has a title a client can show.
_BY_STATUS: Final[dict[int, tuple[str, str]]] = {
    400: ("invalid-request", "The request is malformed"),
    401: ("unauthorized", "A valid bearer token is required"),
    403: ("forbidden", "Not visible to you yet"),
    404: ("not-found", "No such resource"),
    405: ("method-not-allowed", "Method not allowed"),
    409: ("conflict", "Conflicts with stored state"),
    413: ("body-too-large", "The request body is too large"),
    415: ("unsupported-media-type", "The request body must be JSON"),
    422: ("rules-violation", "The request breaks the game's rules"),
    429: ("rate-limited", "Too many requests"),
    499: ("client-closed-request", "Client closed request"),
    503: ("unavailable", "A dependency is unavailable"),
}


def problem(
    status: int,
    slug: str,
    detail: str,
    *,
    title: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> ProblemDetailsException:
    """A problem to raise from a handler: ``/problems/<slug>`` is its stable type."""
    return ProblemDetailsException(
        status_code=status,
        type_=TYPE_PREFIX + slug,
        title=title or _BY_STATUS.get(status, ("", "Error"))[1],
        detail=detail,
        headers=headers,
        extra=extra or None,
    )


def _validation_detail(exc: ValidationException) -> str:
    errors = exc.extra if isinstance(exc.extra, list) else []
    if errors and isinstance(errors[0], dict):
        first = errors[0]
        if first.get("key") == "data" and first.get("message") == "'data'":
            return "The request needs a JSON body."
        where = f" (at {first['key']})" if first.get("key") else ""
        return f"{first.get('message', exc.detail)}{where}"
    return str(exc.detail)


def from_http_exception(exc: HTTPException) -> ProblemDetailsException:
    if isinstance(exc, ProblemDetailsException):
        return exc
    status = exc.status_code
    slug, title = _BY_STATUS.get(status, ("error", "Error"))
    if isinstance(exc, ValidationException):
        return problem(400, "invalid-request", _validation_detail(exc), headers=exc.headers)
    if status >= 500:
        log.error("server error", exc_info=exc)
        return problem(
            status, "internal-error", "Something went wrong on our side.", title="Server error"
        )
    detail = exc.detail if exc.detail and exc.detail != title else title
    if status == 413:
        detail = "The request body is larger than this service accepts."
    return problem(status, slug, detail, title=title, headers=exc.headers)


def from_illegal_run(exc: IllegalRun) -> ProblemDetailsException:
    extra: dict[str, Any] = {"move_index": exc.index, "reason": exc.reason, "dice_used": exc.dice}
    if exc.roll is not None:
        extra["roll"] = list(exc.roll)
    options = getattr(exc, "options", None)
    if options is not None:
        extra["possible"] = [list(tiles_of(o)) for o in options]
    return problem(422, exc.code, exc.detail, title="The run is not a legal turn", **extra)


def from_invalid_dice(exc: InvalidDice) -> ProblemDetailsException:
    return problem(422, "invalid-dice", str(exc), title="The dice do not fit the rules")


def from_database_error(exc: Exception) -> ProblemDetailsException:
    log.error("database unavailable", extra={"error": repr(exc)})
    return problem(
        503,
        "database-unavailable",
        "The database is unavailable; try again shortly.",
        headers={"Retry-After": DATABASE_RETRY_AFTER},
    )


def from_database_timeout(exc: Exception) -> ProblemDetailsException:
    log.error("database statement timed out", extra={"error": repr(exc)})
    return problem(
        503,
        "database-timeout",
        "The database took too long to answer; try again shortly.",
        title="The database timed out",
        headers={"Retry-After": DATABASE_RETRY_AFTER},
    )


def from_client_closed(exc: ClientClosedRequest) -> ProblemDetailsException:
    """Nobody reads it: it only lets the access log and the metrics count a 499."""
    return problem(499, "client-closed-request", "The client closed the connection mid-request.")


def internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.exception("unhandled error", exc_info=exc)
    return from_http_exception(
        HTTPException(status_code=HTTP_500_INTERNAL_SERVER_ERROR)
    ).to_response(request)


def plugin() -> ProblemDetailsPlugin:
    mapping: dict[type[Exception], Any] = {
        HTTPException: from_http_exception,
        IllegalRun: from_illegal_run,
        InvalidDice: from_invalid_dice,
    }
    for error in UNAVAILABLE:
        mapping[error] = from_database_error
    for error in TIMED_OUT:  # more specific than UNAVAILABLE: found first
        mapping[error] = from_database_timeout
    mapping[ClientClosedRequest] = from_client_closed
    return ProblemDetailsPlugin(ProblemDetailsConfig(exception_to_problem_detail_map=mapping))


class Problem(msgspec.Struct):
    """RFC 9457 problem details (some problems add fields, e.g. ``move_index``)."""

    type: str
    title: str
    status: int
    detail: str


_DESCRIPTIONS: Final = {
    400: "Malformed request (problem details)",
    401: "Missing or bad bearer token (problem details)",
    403: "Not visible to this player yet (problem details)",
    404: "Unknown resource (problem details)",
    409: "Conflicts with stored state (problem details)",
    413: "Request body too large (problem details)",
    422: "Breaks the game's rules (problem details)",
    429: "Rate limited, see Retry-After (problem details)",
    503: "A dependency is down, see Retry-After (problem details)",
}


def documented(*statuses: int) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the problems an operation can answer (400 and 503 always)."""
    return {
        status: ResponseSpec(
            data_container=Problem,
            description=_DESCRIPTIONS[status],
            media_type="application/problem+json",
            generate_examples=False,
        )
        for status in sorted({400, 503, *statuses})
    }


def resubmitted(result: type[msgspec.Struct]) -> ResponseSpec:
    """The 200 of a creating POST whose identical request was accepted before."""
    return ResponseSpec(
        data_container=result,
        description="The identical run again: the stored result, as first returned",
        generate_examples=False,
    )


def not_modified() -> ResponseSpec:
    return ResponseSpec(
        data_container=None,
        description="Not modified: the ETag sent in If-None-Match still holds",
        generate_examples=False,
    )
