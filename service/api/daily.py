"""Daily Dice: one sequence per calendar date, the same for everyone; one official
run per player and date; ranks, leaderboards and a spoiler-free share text.

Share text format (one line each)::

    Shut the Box Challenge November 29, 2026     (in the language of the request or player)
    Score 7 in 6 rolls                (or: Shut the box in 8 rolls!)
    🟩🟩🟨🟩🟥⬛

One symbol per roll used, grading each choice against the expected-score optimum:
🟩 best, 🟨 inaccuracy, 🟧 mistake, 🟥 blunder; ⬛ the roll that could not be played.
No tiles and no dice: it spoils nothing for a friend who has not played yet.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date, datetime
from functools import lru_cache
from typing import Annotated, Final, NamedTuple

import msgspec
from litestar import Controller, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import JSONBody, PathParameter, QueryParameter
from litestar.response.base import ASGIResponse
from litestar.types import ASGIApp, Receive, Scope, Send

from service.api import problems
from service.api.bodies import decode
from service.api.deps import (
    BEARER,
    MAYBE_BEARER,
    AnyRequest,
    PlayerDep,
    Services,
    ServicesDep,
    optional_player,
    player_of_header,
)
from service.api.hot import DATABASE_DOWN, Answer, content_length, header, send_whole
from service.api.idempotency import HEADER as IDEMPOTENCY_KEY
from service.api.idempotency import JSON, Keyed, answer_keyed, keyed
from service.api.problems import created, documented, not_modified, resubmitted
from service.api.schemas import (
    DICE,
    NAME,
    SCORE,
    DailyRunResult,
    MovesIn,
    OfficialRunResult,
    RulesOut,
    RunResult,
    move_in,
    rules_out,
)
from service.api.tables import held_tables
from service.calendar import has_begun, has_closed_everywhere, local_today
from service.daily import DateNotOpen
from service.i18n import LOCALISED, _, long_date, ngettext, number
from service.rules.analysis import Hindsight
from service.rules.ruleset import Roll
from service.settings import Settings
from service.store import daily
from service.store.daily import DailyRun, UnknownToken
from service.store.db import Connection
from service.store.players import PlayerRow, token_hash
from service.store.runs import AlreadyPlayed

CACHE_CONTROL: Final = b"public, max-age=86400"
FEED_PREFIX: Final = "/v1/daily/"
FEED_DATES_KEPT: Final = 1000
_ISO_DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
SYMBOLS: Final = {"best": "🟩", "inaccuracy": "🟨", "mistake": "🟧", "blunder": "🟥"}
UNPLAYABLE: Final = "⬛"

DatePath = Annotated[str, PathParameter(description="A calendar date, YYYY-MM-DD.")]


class DailyDice(msgspec.Struct, frozen=True):
    """The dice of a date: the same for everyone."""

    date: Annotated[date, msgspec.Meta(description="The date, YYYY-MM-DD.")]
    sequence: Annotated[
        str, msgspec.Meta(description="The dice sequence's id: `daily/YYYY-MM-DD`.")
    ]
    rules: Annotated[
        RulesOut, msgspec.Meta(description="The rules: the Daily Dice are the standard game.")
    ]
    dice: Annotated[list[Roll], msgspec.Meta(description=DICE)]


class RunSubmission(msgspec.Struct, forbid_unknown_fields=True):
    """The player's run of the dice."""

    moves: MovesIn


class TopEntry(msgspec.Struct, frozen=True):
    """One of the date's best official runs."""

    rank: Annotated[
        int,
        msgspec.Meta(
            description="1 + the runs with a better score: the same score, the same rank."
        ),
    ]
    name: Annotated[str | None, msgspec.Meta(description=NAME)]
    score: Annotated[int, msgspec.Meta(description=SCORE)]


class Leaderboard(msgspec.Struct, frozen=True):
    """A date's official runs taken together."""

    date: Annotated[date, msgspec.Meta(description="The date, YYYY-MM-DD.")]
    players: Annotated[
        int, msgspec.Meta(description="The players with an official run of the date.")
    ]
    histogram: Annotated[
        dict[int, int],
        msgspec.Meta(
            description="How many official runs ended on each score (JSON object keys are "
            'strings: "0", "1", ...); scores no run ended on are left out.'
        ),
    ]
    mean: Annotated[
        float | None, msgspec.Meta(description="The mean score of the runs; null: no run yet.")
    ]
    shut_rate: Annotated[
        float | None,
        msgspec.Meta(description="The share of runs that shut the box, 0..1; null: no run yet."),
    ]
    best_possible: Annotated[
        int,
        msgspec.Meta(
            description="The lowest score any line of choices reaches on the date's dice."
        ),
    ]
    top: Annotated[
        list[TopEntry],
        msgspec.Meta(description="The best runs, best first (`limit` of them at most)."),
    ]


class ShareText(msgspec.Struct, frozen=True):
    """A text to share that gives nothing of the dice away."""

    text: Annotated[
        str,
        msgspec.Meta(
            description="The date, the score (or a shut box) and one symbol per roll; no "
            "tiles, no dice. " + LOCALISED
        ),
    ]


def _calendar_date(text: str) -> date | None:
    """The date a path segment names, or None. Only text shaped as a date reaches the
    cache: anything else a client sends is refused before it costs memory."""
    if len(text) != 10 or not _ISO_DATE.fullmatch(text):
        return None
    return _date_of(text)


@lru_cache(maxsize=4096)
def _date_of(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def parse_date(text: str) -> date:
    """A path's date, or 400 saying why it is not one (without repeating the text)."""
    day = _calendar_date(text)
    if day is None:
        raise problems.INVALID_DATE(
            _("That is not a calendar date; use YYYY-MM-DD, e.g. {example}.", example="2026-11-29")
        )
    return day


def check_begun(day: date, settings: Settings, now: datetime) -> None:
    """404 for a date before launch or not begun anywhere on Earth."""
    if day < settings.launch_date:
        raise problems.UNKNOWN_DATE(
            _("The Daily Dice began on {date}.", date=long_date(settings.launch_date))
        )
    if not has_begun(day, now):
        raise problems.UNKNOWN_DATE(
            _("{date} has not begun anywhere on Earth yet.", date=long_date(day))
        )


CachedHeaders = tuple[tuple[bytes, bytes], ...]


class Feed(NamedTuple):
    """A date's Daily Dice answer, encoded once, and its ETag; the headers of a 200 and
    of a 304 made once too, immutable: every answer sends a list of its own
    (``feed_answer``), so no layer that edits a response's headers in place (the
    framework's CORS) edits the next request's."""

    body: bytes
    etag: bytes
    headers: CachedHeaders
    not_modified: CachedHeaders


async def _daily_answer(services: Services, when: date, now: datetime) -> Feed:
    """The Daily Dice of a date, encoded, and its ETag."""
    issued = await services.daily.dice(when, now)
    body = _encoder.encode(
        DailyDice(
            date=when, sequence=issued.id, rules=rules_out(issued.rules), dice=list(issued.dice)
        )
    )
    etag = b'"' + hashlib.blake2b(body, digest_size=12).hexdigest().encode() + b'"'
    cached = ((b"etag", etag), (b"cache-control", CACHE_CONTROL))
    json = ((b"content-type", b"application/json"), content_length(body))
    return Feed(body, etag, (*cached, *json), cached)


async def official_run(services: Services, player: PlayerRow, when: date) -> DailyRun:
    """The player's official run of a date, or 404."""
    stored = await services.daily.official(player.id, when)
    if stored is None:
        raise problems.NO_OFFICIAL_RUN(
            _("You have no official run of {date}.", date=long_date(when))
        )
    return stored


def share_text(day: date, result: RunResult) -> str:
    """The share text in the request's language (else the player's), the date and
    numbers written as that language writes them."""
    symbols = "".join(SYMBOLS[m.label] if m.chosen else UNPLAYABLE for m in result.analysis.moves)
    rolls = result.rolls_used
    outcome = (
        ngettext("Shut the box in {count} roll!", "Shut the box in {count} rolls!", rolls)
        if result.shut
        else ngettext(
            "Score {score} in {count} roll",
            "Score {score} in {count} rolls",
            rolls,
            score=number(result.score),
        )
    )
    title = _("Shut the Box Challenge {date}", date=long_date(day))
    return f"{title}\n{outcome}\n{symbols}"


_encoder = msgspec.json.Encoder()


def feed_answer(feed: Feed, scope: Scope) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """A date's Daily Dice as they are (past response rendering), or 304 when the client
    holds them already: the status, headers (a new list, the answer's own) and body."""
    if any(k == b"if-none-match" and feed.etag in v for k, v in scope["headers"]):
        return 304, [*feed.not_modified], b""
    return 200, [*feed.headers], feed.body


def daily_feed_middleware(app: ASGIApp) -> ASGIApp:
    """``GET /v1/daily/{date}`` for a date this process has served before: answered
    from its encoded copy before the handler (no parameters parsed, no dependencies
    resolved: the hottest path of the service, and the dice of a date never change).
    Any other request, and the first for a date, goes on to ``DailyController.daily``.
    (Litestar runs app middleware after routing: the route template is set already.)"""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        if scope.get("method") == "GET" and path.startswith(FEED_PREFIX):
            day = _calendar_date(path[len(FEED_PREFIX) :])
            services: Services | None = getattr(scope["app"].state, "services", None)
            feed = services.daily_feed.get(day) if day and services else None
            if feed and day and services and has_begun(day, services.clock.now()):
                await send_whole(send, *feed_answer(feed, scope))
                return
        await app(scope, receive, send)

    return middleware


async def submit_run(
    services: Services, player: PlayerRow, day: str, data: RunSubmission, request: Keyed
) -> Answer:
    """``DailyController.submit``'s answer, or the problem it raises (nothing stored)."""
    when = parse_date(day)
    now = services.clock.now()
    check_begun(when, services.settings, now)
    moves = [move_in(m) for m in data.moves]

    async def produce(connection: Connection | None) -> Answer:
        created, body = await services.daily.submit(
            player, when, moves, services.clock.now(), connection
        )
        return (201 if created else 200), body

    try:
        answer = await answer_keyed(request, services, f"player:{player.id}", produce)
    except DateNotOpen:
        now = services.clock.now()
        raise problems.DATE_NOT_OPEN(
            _(
                "{date} is not open for you: in {time_zone} it is {today}, a date stays "
                "open until 15 minutes after its local midnight, and a date that closed "
                "for you stays closed after a change of time zone.",
                date=long_date(when),
                time_zone=player.time_zone,
                today=long_date(local_today(now, player.time_zone)),
            ),
        ) from None
    except AlreadyPlayed as played:
        official = f"/v1/daily/{when.isoformat()}/runs/me"
        raise problems.ALREADY_PLAYED(
            _(
                "You already played {date}; your official run stands (GET {official_run}).",
                date=long_date(when),
                official_run=official,
            ),
            problems.AlreadyPlayedMembers(
                official_run_id=str(played.official_id), official_run=official
            ),
        ) from None
    return answer.status, answer.body


_submission = msgspec.json.Decoder(RunSubmission, strict=True)


async def official_run_answer(scope: Scope, body: bytes, path: re.Match[str]) -> Answer | None:
    """``POST /v1/daily/{date}/runs`` when all goes well (``service.api.hot``): a known
    player's run, verified, stored and answered (201, or 200 for the identical run
    again, with or without an idempotency key). Else None, nothing stored: the handler
    answers (problems included); a database that cannot answer raises."""
    services: Services = scope["app"].state.services
    try:
        authorization = header(scope, b"authorization") or ""
        key = header(scope, IDEMPOTENCY_KEY.encode())
        if key is None:
            return await _submit_by_token(services, authorization, path[1], body)
        player = await player_of_header(authorization, services)
        data = decode(_submission, body)
        request = Keyed(key, "POST", scope.get("root_path", "") + scope["path"], body)
        return await submit_run(services, player, path[1], data, request)
    except DATABASE_DOWN:
        raise
    except Exception:
        return None


async def _submit_by_token(services: Services, authorization: str, day: str, body: bytes) -> Answer:
    """A run without an idempotency key, its player looked up with the batch that
    stores it (``DailyRuns.submit_by_token``). Raises what the handler answers better:
    it answers again from the start (a bad token before a bad run, as always)."""
    scheme, _space, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise UnknownToken
    data = decode(_submission, body)
    when = parse_date(day)
    now = services.clock.now()
    check_begun(when, services.settings, now)
    _player, created, body = await services.daily.submit_by_token(
        token_hash(token.strip()), when, [move_in(m) for m in data.moves], now
    )
    return (201 if created else 200), body


class DailyController(Controller):
    path = "/v1/daily"
    tags = ["Daily Dice"]

    @get(
        "/{day:str}",
        operation_id="getDailyDice",
        summary="The Daily Dice of a date",
        description=(
            "The same dice for everyone, from the moment the date begins somewhere on Earth "
            "(UTC+14). Cacheable: the dice of a date never change (ETag, Cache-Control). "
            "Not rate limited, but for a path that is not a date."
        ),
        responses={
            **documented(problems.DATE, problems.STORED, problems.RATE_LIMITED),
            200: ResponseSpec(
                data_container=DailyDice,
                description="The dice of the date",
                generate_examples=False,
            ),
            304: not_modified(),
        },
    )
    async def daily(self, request: AnyRequest, day: DatePath) -> ASGIResponse:
        # The first request for a date in this process (``daily_feed_middleware`` answers
        # the others): the services come straight from the app state.
        services: Services = request.app.state.services
        when = parse_date(day)
        now = services.clock.now()
        check_begun(when, services.settings, now)
        # The dice of a date never change once issued: keep the encoded answer per date.
        feed = services.daily_feed.get(when)
        if feed is None:
            feed = await _daily_answer(services, when, now)
            if len(services.daily_feed) >= FEED_DATES_KEPT:
                services.daily_feed.pop(next(iter(services.daily_feed)))
            services.daily_feed[when] = feed
        status, headers, body = feed_answer(feed, request.scope)
        return ASGIResponse(
            body=body, status_code=status, headers=[(k.decode(), v.decode()) for k, v in headers]
        )

    @post(
        "/{day:str}/runs",
        operation_id="submitDailyRun",
        summary="Submit the official run of a date",
        description=(
            "Verifies, scores and analyses the run; the first accepted run per player and date "
            "is the official one (201). The identical run again: 200 with the same body. "
            "Another run for a played date: 409 pointing at the official run. A date not open "
            "for the player (today in their time zone, or yesterday during the 15 minutes "
            "after local midnight): 422. Honours Idempotency-Key."
        ),
        security=BEARER,
        responses={
            **documented(
                problems.CREATING,
                problems.AUTHENTICATED,
                problems.DATE,
                problems.DATE_NOT_OPEN,
                problems.ALREADY_PLAYED,
                problems.ILLEGAL_RUN,
            ),
            201: created(DailyRunResult, "The official run, verified, analysed and ranked"),
            200: resubmitted(DailyRunResult),
        },
        status_code=201,
    )
    async def submit(
        self,
        request: AnyRequest,
        data: JSONBody[RunSubmission],
        player: PlayerDep,
        services: ServicesDep,
        day: DatePath,
    ) -> Response[bytes]:
        status, body = await submit_run(services, player, day, data, await keyed(request))
        return Response(content=body, status_code=status, media_type=JSON)

    @get(
        "/{day:str}/runs/me",
        operation_id="getMyDailyRun",
        summary="The player's official run of a date, with its rank as it stands now",
        security=BEARER,
        responses=documented(
            problems.INVALID_DATE, problems.NO_OFFICIAL_RUN, problems.AUTHENTICATED
        ),
    )
    async def mine(
        self, player: PlayerDep, services: ServicesDep, day: DatePath
    ) -> OfficialRunResult:
        when = parse_date(day)
        stored = await official_run(services, player, when)
        return await services.daily.shown_now(stored, services.clock.now())

    @get(
        "/{day:str}/leaderboard",
        operation_id="getDailyLeaderboard",
        summary="The day's ranking, histogram and best possible score",
        description=(
            "Visible to a player who has played that date, or to anyone once the date has "
            "closed everywhere on Earth; otherwise 403. Ties share a rank."
        ),
        security=MAYBE_BEARER,
        responses=documented(
            problems.INVALID_REQUEST,
            problems.DATE,
            problems.LEADERBOARD_HIDDEN,
            problems.AUTHENTICATED,
        ),
    )
    async def leaderboard(
        self,
        request: AnyRequest,
        services: ServicesDep,
        day: DatePath,
        limit: Annotated[
            int, QueryParameter(ge=1, le=daily.TOP_MOST, description="How many top runs.")
        ] = 10,
    ) -> Leaderboard:
        when = parse_date(day)
        now = services.clock.now()
        check_begun(when, services.settings, now)
        if not has_closed_everywhere(when, now):
            viewer = await optional_player(request, services)
            if viewer is None or await services.daily.official(viewer.id, when) is None:
                raise problems.LEADERBOARD_HIDDEN(
                    _(
                        "The ranking of {date} is shown once you have played it, or to "
                        "everyone once the date has ended everywhere on Earth.",
                        date=long_date(when),
                    ),
                )
        issued = await services.daily.dice(when, now)
        rules = issued.rules
        tables = await held_tables(request, rules)
        best_possible = Hindsight(tables, issued.dice).best(rules.start_position, 0)
        board = await daily.leaderboard(services.pool, when, limit)
        histogram = board.histogram
        players = sum(histogram.values())
        top = [
            TopEntry(rank=board.rank_of(score), name=name, score=score) for name, score in board.top
        ]
        return Leaderboard(
            date=when,
            players=players,
            histogram=histogram,
            mean=sum(s * n for s, n in histogram.items()) / players if players else None,
            shut_rate=histogram.get(0, 0) / players if players else None,
            best_possible=best_possible,
            top=top,
        )

    @get(
        "/{day:str}/share",
        operation_id="getDailyShareText",
        summary="A spoiler-free share text of the player's official run",
        description="Date, score (or a shut box), one symbol per roll; no tiles, no dice.",
        security=BEARER,
        responses=documented(
            problems.INVALID_DATE, problems.NO_OFFICIAL_RUN, problems.AUTHENTICATED
        ),
    )
    async def share(self, player: PlayerDep, services: ServicesDep, day: DatePath) -> ShareText:
        when = parse_date(day)
        stored = await official_run(services, player, when)
        return ShareText(
            text=share_text(when, await services.daily.replayed(stored, services.clock.now()))
        )
