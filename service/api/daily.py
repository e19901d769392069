"""Daily Dice: one sequence per calendar date, the same for everyone; one official
run per player and date; ranks, leaderboards and a spoiler-free share text (its
format, and every rule of the feature: ``service.usecases.daily``)."""

from __future__ import annotations

import hashlib
import re
from datetime import date, datetime
from typing import Annotated, Final, Literal, NamedTuple

import msgspec
from litestar import Controller, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPIFormat
from litestar.params import JSONBody, PathParameter, QueryParameter
from litestar.plugins.problem_details import ProblemDetailsException
from litestar.response.base import ASGIResponse
from litestar.types import Scope

from service.api import problems
from service.api.bodies import decode
from service.api.deps import (
    BEARER,
    MAYBE_BEARER,
    AnyRequest,
    PlayerDep,
    Services,
    ServicesDep,
    no_such_player,
    optional_player,
    player_read,
)
from service.api.document import created, documented, not_modified, resubmitted
from service.api.front.answers import content_length
from service.api.front.hot import BEFORE_FRAMEWORK, Answer, ByBody, ByPath, Reply, header
from service.api.front.ratelimit import NOT_LIMITED, OWN_LIMIT, STORES
from service.api.front.reading import bearer_token
from service.api.idempotency import HEADER as IDEMPOTENCY_KEY
from service.api.idempotency import JSON, key_reused, run_key
from service.api.schemas import (
    DATE_TEXT,
    DICE,
    NAME,
    SCORE,
    DailyRunResult,
    MovesIn,
    OfficialRunResult,
    RulesOut,
    Streak,
    WeeklyStreak,
    move_in,
    rules_out,
    run_result,
)
from service.api.tables import holding
from service.caching import IdentityMemo
from service.rules.analysis import Report
from service.rules.ruleset import Roll
from service.store import daily
from service.store.daily import DailyRun, UnknownToken
from service.store.players import PlayerRow, token_hash
from service.store.ranks import Rank
from service.store.runs import AlreadyPlayed
from service.support.calendar import local_today, named_date
from service.support.i18n import LOCALISED, _, asked_for, current, long_date
from service.support.settings import Settings
from service.usecases import daily as use_cases
from service.usecases.daily import (
    DateNotOpen,
    NoOfficialRun,
    RankingHidden,
    Submission,
    TokenHash,
    UnknownDate,
)

CACHE_CONTROL: Final = b"public, max-age=86400"

# Read by parse_date, which answers 400 invalid-date for anything else.
DatePath = Annotated[
    str,
    PathParameter(
        description="A calendar date, YYYY-MM-DD.",
        format=OpenAPIFormat.DATE,
        schema_extra=DATE_TEXT,
    ),
]


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


def names_a_date(scope: Scope) -> bool:
    """Whether a request's path names a date (its ``day``): the feed's requests that
    are not rate limited."""
    return named_date(scope["path_params"]["day"]) is not None


def parse_date(text: str) -> date:
    """A path's date, or 400 saying why it is not one (without repeating the text)."""
    day = named_date(text)
    if day is None:
        raise problems.INVALID_DATE(
            _("That is not a calendar date; use YYYY-MM-DD, e.g. {example}.", example="2026-11-29")
        )
    return day


def refused(error: Exception) -> ProblemDetailsException:
    """The problem of a Daily Dice use case's refusal (a date's, a ranking's, a run's)."""
    if isinstance(error, UnknownDate):
        if error.launch is not None:
            return problems.UNKNOWN_DATE(
                _("The Daily Dice began on {date}.", date=long_date(error.launch))
            )
        return problems.UNKNOWN_DATE(
            _("{date} has not begun anywhere on Earth yet.", date=long_date(error.day))
        )
    if isinstance(error, RankingHidden):
        return problems.LEADERBOARD_HIDDEN(
            _(
                "The ranking of {date} is shown once you have played it, or to "
                "everyone once the date has ended everywhere on Earth.",
                date=long_date(error.day),
            ),
        )
    if isinstance(error, NoOfficialRun):
        return problems.NO_OFFICIAL_RUN(
            _("You have no official run of {date}.", date=long_date(error.day))
        )
    raise error


REFUSALS: Final = (UnknownDate, RankingHidden, NoOfficialRun)


def check_begun(day: date, settings: Settings, now: datetime) -> None:
    """404 for a date before launch or not begun anywhere on Earth
    (``use_cases.check_begun``)."""
    try:
        use_cases.check_begun(day, settings.launch_date, now)
    except UnknownDate as unknown:
        raise refused(unknown) from None


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


async def make_feed(services: Services, when: date, now: datetime) -> Feed:
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


_encoder = msgspec.json.Encoder()


def feed_answer(feed: Feed, scope: Scope) -> Reply:
    """A date's Daily Dice as they are (past response rendering), or 304 when the client
    holds them already: the status, headers (a new list, the answer's own) and body."""
    if any(k == b"if-none-match" and feed.etag in v for k, v in scope["headers"]):
        return 304, [*feed.not_modified], b""
    return 200, [*feed.headers], feed.body


async def feed_reply(scope: Scope, path: re.Match[str]) -> Reply | None:
    """The Daily Dice feed before the framework (``ByPath``): a date's dice from their
    encoded copy, or None on the date's problem (the handler answers it, in the
    request's language)."""
    try:
        feed = await daily_feed(scope["app"].state.services, path["day"])
    except problems.ANSWERED:
        return None
    return feed_answer(feed, scope)


async def daily_feed(services: Services, day: str) -> Feed:
    """The Daily Dice of the date a path names, encoded: made once a date and process,
    then kept (the dice of a date never change once issued). Raises the date's problem.
    The handler's and ``feed_reply``'s one way to them."""
    when = parse_date(day)
    now = services.clock.now()
    check_begun(when, services.settings, now)
    feed = services.daily_feed.get(when)
    if feed is None:
        feed = await make_feed(services, when, now)
        services.daily_feed.put(when, feed)
    return feed


async def submit_run(
    services: Services,
    runner: PlayerRow | TokenHash,
    day: str,
    data: RunSubmission,
    idempotency_key: str | None,
) -> Answer:
    """Submit an official run of ``day`` (``DailyRuns.submit``), the one use case both
    ways take (the handler and ``official_run_answer``): its status and encoded answer,
    or the problem it raises, nothing stored. A token's player is looked up with the
    batch that stores the run, and the run's Idempotency-Key is kept with it
    (``run_key``): the identical run again with its key is answered as it was first, in
    the language first asked for; another run with it, 422."""
    when = parse_date(day)
    now = services.clock.now()
    check_begun(when, services.settings, now)
    moves = [move_in(m) for m in data.moves]
    key = run_key(idempotency_key)
    try:
        done = await services.daily.submit(runner, when, moves, now, key)
    except UnknownToken:
        raise no_such_player() from None
    except DateNotOpen as refused:
        now = services.clock.now()
        raise problems.DATE_NOT_OPEN(
            _(
                "{date} is not open for you: in {time_zone} it is {today}, a date stays "
                "open until 15 minutes after its local midnight, and a date that closed "
                "for you stays closed after a change of time zone.",
                date=long_date(when),
                time_zone=refused.player.time_zone,
                today=long_date(local_today(now, refused.player.time_zone)),
            ),
        ) from None
    except AlreadyPlayed as played:
        if played.key_reused:
            raise key_reused() from None
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
    if done.created:
        return 201, submitted(done)
    if key is not None and done.run.answers(key.id):
        with asked_for(done.run.request_language):
            return 201, submitted(done)
    return 200, submitted(done)


class AddedBySubmission(msgspec.Struct, frozen=True):
    """What a ``DailyRunResult`` has beyond its ``RunResult``, in its order."""

    run_id: str
    official: Literal[True]
    streak: Streak
    rank: Rank


_results: IdentityMemo[Report, tuple[str, str], bytes] = IdentityMemo(
    "run_results_encoded",
    1024,
    lambda verified, shown: _encoder.encode(run_result(verified, shown[1])),
)
"""A kept run's result, encoded once per language (and sequence): ``submitted``."""


def submitted(done: Submission) -> bytes:
    """A submission's answer, encoded: its verified result, its id, the streak after it
    and its rank as it stood then. The run result is the same for every player who sent
    that run (``DailyRuns.verified``), so it is encoded once, and the submission's own
    fields joined to it: the bytes of the ``DailyRunResult`` (a test holds them to it)."""
    result = _results(done.verified, (current(), done.sequence))
    run = done.run
    added = AddedBySubmission(
        run_id=str(run.id), official=True, streak=streak_of(run), rank=run.rank_at_submission
    )
    return result[:-1] + b"," + _encoder.encode(added)[1:]


def streak_of(run: DailyRun) -> Streak:
    """The player's streak as it stood after the run."""
    return Streak(
        current=run.streak_current,
        best=run.streak_best,
        last_played=run.streak_last_played,
        played_today=run.played_today,
        freezes=run.streak_freezes,
        weekly=WeeklyStreak(current=run.weekly_current, best=run.weekly_best),
    )


_submission = msgspec.json.Decoder(RunSubmission, strict=True)


async def official_run_answer(scope: Scope, body: bytes, path: re.Match[str]) -> Answer | None:
    """``POST /v1/daily/{date}/runs`` before the framework (``service.api.front.hot``):
    ``submit_run``, as the handler calls it. A problem goes on to the handler, nothing
    stored, which answers it from the start (a bad token before a bad run, as always):
    None."""
    services: Services = scope["app"].state.services
    key = header(scope, IDEMPOTENCY_KEY.encode())
    try:
        token = bearer_token(header(scope, b"authorization") or "")
        if token is None:
            return None
        data = decode(_submission, body)
        return await submit_run(services, TokenHash(token_hash(token)), path[1], data, key)
    except problems.ANSWERED:
        return None


async def share_text(services: Services, player: PlayerRow, path: dict[str, str]) -> ShareText:
    """``GET /v1/daily/{day}/share``, both ways (``player_read``)."""
    when = parse_date(path["day"])
    try:
        text = await use_cases.share(services.daily, player, when, services.clock.now())
    except REFUSALS as refusal:
        raise refused(refusal) from None
    return ShareText(text=text)


class DailyController(Controller):
    path = "/v1/daily"
    tags = ["Daily Dice"]

    @get(
        "/{day:str}",
        # Answered before the framework by feed_reply; public, immutable and cacheable
        # (from memory, and from any HTTP cache in front): limiting it protects nothing,
        # but for a path that is no date (a 400 that costs a token).
        opt={BEFORE_FRAMEWORK: ByPath(feed_reply), NOT_LIMITED: names_a_date},
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
        # A request feed_reply did not answer (a date's problem, a browser's
        # request with CORS): the services come straight from the app state.
        feed = await daily_feed(request.app.state.services, day)
        status, headers, body = feed_answer(feed, request.scope)
        return ASGIResponse(
            body=body, status_code=status, headers=[(k.decode(), v.decode()) for k, v in headers]
        )

    @post(
        "/{day:str}/runs",
        # SHUTBOX_RATE_LIMIT_STORES: a run, or an Idempotency-Key's answer, a request
        opt={BEFORE_FRAMEWORK: ByBody(official_run_answer), OWN_LIMIT: STORES},
        operation_id="submitDailyRun",
        summary="Submit the official run of a date",
        description=(
            "Verifies, scores and analyses the run; the first accepted run per player and date "
            "is the official one (201). The identical run again: 200 with the same body. "
            "Another run for a played date: 409 pointing at the official run. A date not open "
            "for the player (today in their time zone, or yesterday during the 15 minutes "
            "after local midnight): 422. Honours Idempotency-Key. Counts against the client "
            "address's limit of requests that store (429)."
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
        key = request.headers.get(IDEMPOTENCY_KEY)
        status, body = await submit_run(services, player, day, data, key)
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
        try:
            shown = await use_cases.shown(services.daily, player, when, services.clock.now())
        except REFUSALS as refusal:
            raise refused(refusal) from None
        return OfficialRunResult(
            **msgspec.structs.asdict(run_result(shown.verified, shown.sequence)),
            run_id=str(shown.run.id),
            official=True,
            rank=shown.rank,
        )

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
        try:
            board = await use_cases.leaderboard(
                services.daily,
                services.settings.launch_date,
                when,
                services.clock.now(),
                lambda: optional_player(request, services),
                limit,
                holding(request.scope),
            )
        except REFUSALS as refusal:
            raise refused(refusal) from None
        return Leaderboard(
            date=when,
            players=board.players,
            histogram=board.histogram,
            mean=board.mean,
            shut_rate=board.shut_rate,
            best_possible=board.best_possible,
            top=[TopEntry(rank=rank, name=name, score=score) for rank, name, score in board.top],
        )

    @get(
        "/{day:str}/share",
        opt={BEFORE_FRAMEWORK: player_read(share_text)},
        operation_id="getDailyShareText",
        summary="A spoiler-free share text of the player's official run",
        description="Date, score (or a shut box), one symbol per roll; no tiles, no dice.",
        security=BEARER,
        responses=documented(
            problems.INVALID_DATE, problems.NO_OFFICIAL_RUN, problems.AUTHENTICATED
        ),
    )
    async def share(self, player: PlayerDep, services: ServicesDep, day: DatePath) -> ShareText:
        return await share_text(services, player, {"day": day})
