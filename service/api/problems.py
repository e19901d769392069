"""Every error a client can hit, as RFC 9457 problem details with a stable ``type``.

One registry: each problem type has its status, its title and the members it adds to
the four standard ones, so the handlers that raise it and the OpenAPI document that
describes it can't disagree. A handler raises ``ALREADY_PLAYED(detail, members)``; an
operation documents what it can answer with ``documented(ALREADY_PLAYED, ...)``
(``service.api.document``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Final, Literal, cast

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.plugins.problem_details import (
    ProblemDetailsConfig,
    ProblemDetailsException,
    ProblemDetailsPlugin,
)
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR
from litestar.types import Receive, Scope, Send
from msgspec import UNSET, Meta, UnsetType

from service.rules.dice import InvalidDice
from service.rules.errors import IllegalRun
from service.rules.ruleset import Roll, tiles_of
from service.store.db import TIMED_OUT, UNAVAILABLE
from service.support import codes
from service.support.i18n import LOCALISED, N_, _
from service.support.logs import ClientClosedRequest

log = logging.getLogger("shutbox.errors")

TYPE_PREFIX: Final = "/problems/"
DATABASE_RETRY_AFTER: Final = "5"
MEDIA_TYPE: Final = "application/problem+json"

Tiles = list[int]


# The members some problems add to type, title, status and detail.


_MOVE_INDEX: Final = (
    "The first offending move, 0-based: its index in `moves` (a run that stops too early: "
    "the index of the move missing, the number of moves sent)."
)
_REASON: Final = "Why that move is not legal. " + LOCALISED
_DICE_USED: Final = "The dice the move rolled: 1 or 2."
_ROLL: Final = (
    "The roll the move was played on, [d1, d2] (with one die, d1 is the die); absent when "
    "the move has no roll (a move past the last roll of the sequence)."
)
_IN_A_RUN: Final = " Only in a submitted run's problem, not in a position's (`open`)."


class MoveMembers(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Where a submitted run stopped being a legal turn."""

    move_index: Annotated[int, Meta(ge=0, description=_MOVE_INDEX)]
    reason: Annotated[str, Meta(description=_REASON)]
    dice_used: Annotated[int, Meta(ge=1, le=2, description=_DICE_USED)]
    roll: Annotated[Roll, Meta(description=_ROLL)] | UnsetType = UNSET


class MoveWithOptionsMembers(MoveMembers, kw_only=True, omit_defaults=True):
    """A roll that could still be played: the sets of tiles it could have closed."""

    possible: Annotated[list[Tiles], Meta(description="The sets of tiles the roll could close.")]


class TileMembers(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A bad tile, in a submitted run (with the move) or in a position (without)."""

    move_index: Annotated[int, Meta(description=_MOVE_INDEX + _IN_A_RUN)] | UnsetType = UNSET
    reason: Annotated[str, Meta(description=_REASON + _IN_A_RUN)] | UnsetType = UNSET
    dice_used: Annotated[int, Meta(description=_DICE_USED + _IN_A_RUN)] | UnsetType = UNSET
    roll: Annotated[Roll, Meta(description=_ROLL + _IN_A_RUN)] | UnsetType = UNSET


class AlreadyPlayedMembers(msgspec.Struct, kw_only=True, omit_defaults=True):
    official_run_id: Annotated[str, Meta(description="The id of the run that stands.")]
    official_run: (
        Annotated[str, Meta(description="Where to read the official run (Daily Dice).")] | UnsetType
    ) = UNSET


class DealUsedMembers(msgspec.Struct, kw_only=True):
    code: Annotated[str, Meta(description="The code of the box the deal made.")]


class DealExpiredMembers(msgspec.Struct, kw_only=True):
    expired_at: Annotated[datetime, Meta(description="When the deal expired.")]


class TimeZoneMembers(msgspec.Struct, kw_only=True):
    possible_at: Annotated[datetime, Meta(description="When the time zone may change again.")]


class DateNotClosedMembers(msgspec.Struct, kw_only=True):
    closes_at: Annotated[
        datetime,
        Meta(
            description="When the date will have closed everywhere on Earth (its end at "
            "UTC-12, and the 15 minutes' grace): it can be practised from then on."
        ),
    ]


_literal: Any = Literal  # a Literal of values known only at run time
_TYPE: Final = (
    "What went wrong, as a stable URI reference relative to the service: tell the problems "
    "apart by it (the title and detail are for people)."
)
_TITLE: Final = "The problem type in a few words, the same for every problem of it. " + LOCALISED
_STATUS: Final = "The HTTP status of the answer, repeated."


@dataclass(frozen=True)
class ProblemType:
    """One kind of problem: ``/problems/<slug>`` with its status, title and members."""

    slug: str
    status: int
    title: str
    members: type[msgspec.Struct] | None = None
    schema: type[msgspec.Struct] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        name = "".join(part.title() for part in self.slug.split("-")) + "Problem"
        schema = msgspec.defstruct(
            name,
            [
                ("type", Annotated[_literal[self.uri], Meta(description=_TYPE)]),
                ("title", Annotated[str, Meta(description=_TITLE)]),
                ("status", Annotated[_literal[self.status], Meta(description=_STATUS)]),
                ("detail", Annotated[str, Meta(description="What happened. " + LOCALISED)]),
            ],
            bases=(self.members,) if self.members is not None else None,
            kw_only=True,
        )
        schema.__doc__ = f"{self.title} ({self.uri})."
        object.__setattr__(self, "schema", schema)

    @property
    def uri(self) -> str:
        return TYPE_PREFIX + self.slug

    def __call__(
        self,
        detail: str,
        members: msgspec.Struct | None = None,
        *,
        headers: dict[str, str] | None = None,
    ) -> ProblemDetailsException:
        """The exception to raise: this problem with a detail a person can act on."""
        if members is not None and type(members) is not self.members:
            raise TypeError(f"{self.slug} takes {self.members}, not {type(members)}")
        return ProblemDetailsException(
            status_code=self.status,
            type_=self.uri,
            title=_(self.title),
            detail=detail,
            headers=headers,
            extra=msgspec.to_builtins(members) if members is not None else None,
        )


PROBLEMS: Final[dict[str, ProblemType]] = {}


def _register(
    slug: str, status: int, title: str, members: type[msgspec.Struct] | None = None
) -> ProblemType:
    assert slug not in PROBLEMS, slug
    PROBLEMS[slug] = kind = ProblemType(slug, status, title, members)
    return kind


# Any request.
INVALID_REQUEST = _register("invalid-request", 400, N_("The request is malformed"))
UNAUTHORIZED = _register("unauthorized", 401, N_("A valid bearer token is required"))
FORBIDDEN = _register("forbidden", 403, N_("Not visible to you yet"))
NOT_FOUND = _register("not-found", 404, N_("No such resource"))
METHOD_NOT_ALLOWED = _register("method-not-allowed", 405, N_("Method not allowed"))
REQUEST_TIMEOUT = _register("request-timeout", 408, N_("The request body arrived too slowly"))
CONFLICT = _register("conflict", 409, N_("Conflicts with stored state"))
BODY_TOO_LARGE = _register("body-too-large", 413, N_("The request body is too large"))
URI_TOO_LONG = _register("uri-too-long", 414, N_("The URI is too long"))
UNSUPPORTED_MEDIA_TYPE = _register(
    "unsupported-media-type", 415, N_("The request body must be JSON")
)
RULES_VIOLATION = _register("rules-violation", 422, N_("The request breaks the game's rules"))
RATE_LIMITED = _register("rate-limited", 429, N_("Too many requests"))
HEADERS_TOO_LARGE = _register("headers-too-large", 431, N_("The request headers are too large"))
CLIENT_CLOSED_REQUEST = _register("client-closed-request", 499, N_("Client closed request"))
INTERNAL_ERROR = _register("internal-error", 500, N_("Server error"))
UNAVAILABLE_DEPENDENCY = _register("unavailable", 503, N_("A dependency is unavailable"))
DATABASE_UNAVAILABLE = _register("database-unavailable", 503, N_("The database is unavailable"))
DATABASE_TIMEOUT = _register("database-timeout", 503, N_("The database timed out"))
SOLVER_BUSY = _register("solver-busy", 503, N_("The solver is busy"))
INVALID_IDEMPOTENCY_KEY = _register("invalid-idempotency-key", 400, N_("Invalid Idempotency-Key"))
IDEMPOTENCY_KEY_REUSED = _register(
    "idempotency-key-reused", 422, N_("The Idempotency-Key was used with another request")
)

# Players.
UNKNOWN_TIME_ZONE = _register("unknown-time-zone", 422, N_("Unknown time zone"))
INVALID_NAME = _register("invalid-name", 422, N_("The name shows nothing"))
WEAK_TOKEN = _register("weak-token", 422, N_("The token is not random enough"))
TOKEN_NOT_KEPT = _register("token-not-kept", 409, N_("The token was shown once and is not kept"))
TOKEN_TAKEN = _register("token-taken", 409, N_("The token belongs to another player"))
TIME_ZONE_CHANGE_TOO_SOON = _register(
    "time-zone-change-too-soon",
    409,
    N_("The time zone changed less than 24 hours ago"),
    TimeZoneMembers,
)
MISTYPED_CODE = _register("mistyped-code", 400, N_("The code was mistyped"))
INVALID_CODE = _register("invalid-code", 400, N_("That is not a code"))
UNKNOWN_TRANSFER_CODE = _register("unknown-transfer-code", 404, N_("No such live transfer code"))

# Daily Dice and Friend Box.
INVALID_DATE = _register("invalid-date", 400, N_("That is not a calendar date"))
UNKNOWN_DATE = _register("unknown-date", 404, N_("No Daily Dice for that date"))
DATE_NOT_OPEN = _register("date-not-open", 422, N_("The date is not open for you"))
ALREADY_PLAYED = _register("already-played", 409, N_("Already played"), AlreadyPlayedMembers)
NO_OFFICIAL_RUN = _register("no-official-run", 404, N_("No official run of that date"))
LEADERBOARD_HIDDEN = _register("leaderboard-hidden", 403, N_("The ranking is not shown yet"))
DATE_NOT_CLOSED = _register(
    "date-not-closed", 422, N_("The date is still open somewhere"), DateNotClosedMembers
)
UNKNOWN_BOX = _register("unknown-box", 404, N_("No such box"))
RESULTS_HIDDEN = _register("results-hidden", 403, N_("The results of the box are not shown yet"))
NO_BOX_RUN = _register("no-box-run", 404, N_("No run of that box by the player"))

# Playing together: friends.
UNKNOWN_FRIEND_CODE = _register("unknown-friend-code", 404, N_("No such friend code"))
NO_FRIEND_CODE = _register("no-friend-code", 404, N_("No friend code made yet"))
OWN_FRIEND_CODE = _register("own-friend-code", 422, N_("That is your own friend code"))
TOO_MANY_FRIENDS = _register("too-many-friends", 409, N_("Too many friends"))
NOT_A_FRIEND = _register("not-a-friend", 404, N_("Not one of your friends"))

# Playing together: series.
UNKNOWN_SERIES = _register("unknown-series", 404, N_("No such series"))
SERIES_HIDDEN = _register("series-hidden", 403, N_("The series is shown to its players only"))
SERIES_STARTED = _register("series-started", 409, N_("The series has begun"))
SERIES_FULL = _register("series-full", 409, N_("Every seat of the series is taken"))
ROUND_NOT_REACHED = _register("round-not-reached", 422, N_("You have not reached that round"))
OUT_OF_SERIES = _register("out-of-series", 422, N_("You are out of the series"))
SERIES_FINISHED = _register("series-finished", 422, N_("The series is over"))

# The game: dice, positions and runs.
BAD_DEAL = _register("bad-deal", 422, N_("That is not a deal of this service"))
DEAL_EXPIRED = _register("deal-expired", 422, N_("The deal has expired"), DealExpiredMembers)
DEAL_OR_DICE = _register("deal-or-dice", 422, N_("Send a deal, or dice and rules, not both"))
NOT_DEALT = _register("not-dealt", 422, N_("The dice were not dealt by this service"))
DEAL_USED = _register("deal-used", 409, N_("The deal has made a box already"), DealUsedMembers)
INVALID_DICE = _register("invalid-dice", 422, N_("The dice do not fit the rules"))
_ILLEGAL_RUN: Final = N_("The run is not a legal turn")
NOT_A_TILE = _register("not-a-tile", 422, N_("Not a tile of the box"), TileMembers)
TILE_REPEATED = _register("tile-repeated", 422, N_("A tile is listed twice"), TileMembers)
ONE_DIE_NOT_ALLOWED = _register(
    "one-die-not-allowed", 422, N_("One die is not allowed"), TileMembers
)
TWO_DICE_NOT_ALLOWED = _register(
    "two-dice-not-allowed", 422, N_("One die must be rolled here"), TileMembers
)
# A run's own causes, one per IllegalRun of the rules core (the four above as well).
MALFORMED_MOVE = _register("malformed-move", 422, _ILLEGAL_RUN, MoveMembers)
TILE_NOT_OPEN = _register("tile-not-open", 422, _ILLEGAL_RUN, MoveMembers)
WRONG_TOTAL = _register("wrong-total", 422, _ILLEGAL_RUN, MoveMembers)
MOVE_RULE_VIOLATION = _register("move-rule-violation", 422, _ILLEGAL_RUN, MoveMembers)
MOVE_AFTER_END = _register("move-after-end", 422, _ILLEGAL_RUN, MoveMembers)
PLAYABLE_ROLL_SKIPPED = _register(
    "playable-roll-skipped", 422, _ILLEGAL_RUN, MoveWithOptionsMembers
)
RUN_ENDS_EARLY = _register("run-ends-early", 422, _ILLEGAL_RUN, MoveWithOptionsMembers)
ILLEGAL_RUN: Final = (
    NOT_A_TILE,
    TILE_REPEATED,
    ONE_DIE_NOT_ALLOWED,
    TWO_DICE_NOT_ALLOWED,
    MALFORMED_MOVE,
    TILE_NOT_OPEN,
    WRONG_TOTAL,
    MOVE_RULE_VIOLATION,
    MOVE_AFTER_END,
    PLAYABLE_ROLL_SKIPPED,
    RUN_ENDS_EARLY,
)

# What many operations can answer, to document with ``documented(...)``.
BODY: Final = (INVALID_REQUEST, REQUEST_TIMEOUT, BODY_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE)
CREATING: Final = (*BODY, INVALID_IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_REUSED)
STORED: Final = (DATABASE_UNAVAILABLE, DATABASE_TIMEOUT)
LIMITED: Final = (RATE_LIMITED, *STORED)
AUTHENTICATED: Final = (UNAUTHORIZED, *LIMITED)
SOLVED: Final = (SOLVER_BUSY, *LIMITED)
DATE: Final = (INVALID_DATE, UNKNOWN_DATE)
BOX_CODE: Final = (INVALID_REQUEST, MISTYPED_CODE, INVALID_CODE, UNKNOWN_BOX)
SERIES_CODE: Final = (INVALID_REQUEST, MISTYPED_CODE, INVALID_CODE, UNKNOWN_SERIES)
FRIEND_CODE: Final = (INVALID_REQUEST, MISTYPED_CODE, INVALID_CODE, UNKNOWN_FRIEND_CODE)
QUERY: Final = (INVALID_REQUEST,)
"""What every operation answers to a query string that gives a parameter twice or one
the operation does not take (``service.api.front.reading``). ``documented`` adds it."""
PROXY: Final = (
    INVALID_REQUEST,
    REQUEST_TIMEOUT,
    BODY_TOO_LARGE,
    URI_TOO_LONG,
    RATE_LIMITED,
    HEADERS_TOO_LARGE,
    INTERNAL_ERROR,
    UNAVAILABLE_DEPENDENCY,
)
"""What the shipped proxy (``deploy/nginx.conf``) answers of its own, on every operation
(``documented`` adds them): a request it cannot read (or in a transfer coding or HTTP
version it does not take), one too slow, a body, a URI or headers too large, too many
requests in flight from one address, its own failure, no replica up. (Its 405, to a
TRACE, is on no operation; its 404 only at the URIs of these answers.)"""

# The problem of a generic HTTP error, by status.
_BY_STATUS: Final = {
    kind.status: kind
    for kind in (
        INVALID_REQUEST,
        UNAUTHORIZED,
        FORBIDDEN,
        NOT_FOUND,
        METHOD_NOT_ALLOWED,
        CONFLICT,
        BODY_TOO_LARGE,
        UNSUPPORTED_MEDIA_TYPE,
        RULES_VIOLATION,
        RATE_LIMITED,
        CLIENT_CLOSED_REQUEST,
        INTERNAL_ERROR,
        UNAVAILABLE_DEPENDENCY,
    )
}


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
    if isinstance(exc, ValidationException):
        return INVALID_REQUEST(_validation_detail(exc), headers=exc.headers)
    status = exc.status_code
    if status >= 500:
        log.error("server error", exc_info=exc)
        return INTERNAL_ERROR("Something went wrong on our side.")
    kind = _BY_STATUS.get(status)
    if kind is None:
        return ProblemDetailsException(
            status_code=status, type_=TYPE_PREFIX + "error", title="Error", detail=exc.detail
        )
    detail = exc.detail if exc.detail and exc.detail != kind.title else kind.title
    if kind is BODY_TOO_LARGE:
        detail = "The request body is larger than this service accepts."
    return kind(detail, headers=exc.headers)


def _said(template: str, values: dict[str, object]) -> str:
    """A sentence of the rules core in the request's language; its words too."""
    return _(template, **{name: _(v) if isinstance(v, str) else v for name, v in values.items()})


def from_illegal_run(exc: IllegalRun) -> ProblemDetailsException:
    kind = PROBLEMS[exc.code]
    reason = _said(exc.template, exc.values)
    if exc.roll is None:
        detail = _("Move {number}: {reason}", number=exc.index + 1, reason=reason)
    else:
        a, b = exc.roll
        shown = _("one die: {die}", die=a) if exc.dice == 1 else f"{a} + {b} = {a + b}"
        detail = _(
            "Move {number} (roll {roll}): {reason}", number=exc.index + 1, roll=shown, reason=reason
        )
    roll = exc.roll if exc.roll is not None else UNSET
    where: dict[str, Any] = {"move_index": exc.index, "reason": reason, "dice_used": exc.dice}
    options = getattr(exc, "options", None)
    members: msgspec.Struct
    if kind.members is MoveWithOptionsMembers and options is not None:
        possible = [list(tiles_of(o)) for o in options]
        members = MoveWithOptionsMembers(**where, roll=roll, possible=possible)
    elif kind.members is TileMembers:
        members = TileMembers(**where, roll=roll)
    else:
        members = MoveMembers(**where, roll=roll)
    return kind(detail, members)


def from_invalid_dice(exc: InvalidDice) -> ProblemDetailsException:
    return INVALID_DICE(_said(exc.template, exc.values))


def parsed_code(text: str, length: int = codes.LENGTH, what: str = codes.BOX_CODE) -> str:
    """The canonical code typed as ``text`` (``codes.parse``), else the problem: 400
    ``mistyped-code`` (its check symbol fails) or ``invalid-code`` (not a code at all)."""
    try:
        return codes.parse(text, length, what)
    except codes.MistypedCode as error:
        raise MISTYPED_CODE(str(error)) from None
    except codes.MalformedCode as error:
        raise INVALID_CODE(str(error)) from None


def from_database_error(exc: Exception) -> ProblemDetailsException:
    log.error("database unavailable", extra={"error": repr(exc)})
    return DATABASE_UNAVAILABLE(
        "The database is unavailable; try again shortly.",
        headers={"Retry-After": DATABASE_RETRY_AFTER},
    )


def from_database_timeout(exc: Exception) -> ProblemDetailsException:
    log.error("database statement timed out", extra={"error": repr(exc)})
    return DATABASE_TIMEOUT(
        "The database took too long to answer; try again shortly.",
        headers={"Retry-After": DATABASE_RETRY_AFTER},
    )


def database_problem(exc: Exception) -> ProblemDetailsException:
    """The 503 of a database error (``UNAVAILABLE`` or ``TIMED_OUT``), as the handlers'."""
    return from_database_timeout(exc) if isinstance(exc, TIMED_OUT) else from_database_error(exc)


def from_client_closed(exc: ClientClosedRequest) -> ProblemDetailsException:
    """Nobody reads it: it only lets the access log and the metrics count a 499."""
    return CLIENT_CLOSED_REQUEST("The client closed the connection mid-request.")


async def answer(
    problem: ProblemDetailsException, scope: Scope, receive: Receive, send: Send
) -> None:
    """Answer a problem straight to the server, as the framework's exception layer
    would: for middleware that answers before (or without) the framework."""
    request: Request[Any, Any, Any] = Request(scope, receive)
    await problem.to_response(request).to_asgi_response(None, request)(scope, receive, send)


def internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.exception("unhandled error", exc_info=exc)
    return from_http_exception(
        HTTPException(status_code=HTTP_500_INTERNAL_SERVER_ERROR)
    ).to_response(request)


_CLIENTS_OWN: Final[dict[type[Exception], Any]] = {
    HTTPException: from_http_exception,
    IllegalRun: from_illegal_run,
    InvalidDice: from_invalid_dice,
}
ANSWERED: Final[tuple[type[Exception], ...]] = (ProblemDetailsException, *_CLIENTS_OWN)
"""What a handler raises to answer a client's problem (a request to mend, not a fault
of the service's): the fast path hands a request that meets one on to the handler."""


def encoded(problem: ProblemDetailsException) -> bytes:
    """A problem's body as the framework's exception layer sends it, member for member
    (for an answer made once and sent many times: the 429)."""
    return msgspec.json.encode(problem.to_response(cast("Any", None)).content)


def plugin() -> ProblemDetailsPlugin:
    mapping: dict[type[Exception], Any] = dict(_CLIENTS_OWN)
    for error in UNAVAILABLE:
        mapping[error] = from_database_error
    for error in TIMED_OUT:  # more specific than UNAVAILABLE: found first
        mapping[error] = from_database_timeout
    mapping[ClientClosedRequest] = from_client_closed
    return ProblemDetailsPlugin(ProblemDetailsConfig(exception_to_problem_detail_map=mapping))
