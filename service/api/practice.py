"""The archive: practice runs of Daily Dice dates that have closed everywhere.

Anyone may practise a closed date: the run is verified and analysed as an official run
is and told where it would have ranked among the date's official runs; it is never
official (no streak, no rank, never in the history or a leaderboard). A player's
practice run (sent with a bearer token) is kept, one per date, the latest, and listed
newest date first, paged as the history is.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

import msgspec
from litestar import Controller, Response, get, post
from litestar.params import JSONBody
from msgspec import Meta

from service.api import problems
from service.api.daily import DatePath, RunSubmission, parse_date, refused
from service.api.deps import (
    BEARER,
    MAYBE_BEARER,
    AnyRequest,
    PlayerDep,
    ServicesDep,
    optional_player,
)
from service.api.document import created, documented
from service.api.front.ratelimit import OWN_LIMIT, stores_for_a_player
from service.api.idempotency import JSON, Keyed, answer_keyed, keyed
from service.api.schemas import (
    PAGE_SIZE,
    SCORE,
    SHUT,
    BeforeQuery,
    LimitQuery,
    RunResult,
    move_in,
    run_result,
)
from service.store.db import Connection
from service.store.ranks import Rank
from service.support.i18n import _, long_date
from service.usecases.daily import UnknownDate, check_begun
from service.usecases.practice import DateNotClosed, Practice, PracticeEntry


class WouldRank(msgspec.Struct, frozen=True):
    """Where a practice run's score would have ranked among the date's official runs,
    the practice run counted as one more player (it is never one of them)."""

    position: Annotated[
        int,
        Meta(
            description="1 + the date's official runs with a better (lower) score: the same "
            "score as official runs, their position."
        ),
    ]
    players: Annotated[
        int,
        Meta(description="The players with an official run of the date, and this run: + 1."),
    ]
    percentile: Annotated[
        float,
        Meta(
            description="The share of those players (this run counted) with a worse (higher) "
            "score, in percent, two decimals, as in a rank: last (or alone) is 0."
        ),
    ]


class PracticeRunResult(RunResult, frozen=True, kw_only=True):
    """A practice run of a closed date: verified and analysed as an official run is,
    never official."""

    official: Annotated[
        Literal[False],
        Meta(description="Always false: a practice run has no streak, no rank, no history."),
    ]
    kept: Annotated[
        bool,
        Meta(
            description="Whether the run is kept as the player's practice run of the date (sent "
            "with a bearer token: in place of the one before); false: nobody's, kept nowhere."
        ),
    ]
    would_rank: Annotated[
        WouldRank,
        Meta(description="Where the score would have ranked among the date's official runs."),
    ]


class PracticeListed(msgspec.Struct, frozen=True):
    """The player's practice run of a date (the latest played)."""

    date: Annotated[date, Meta(description="The Daily Dice date practised.")]
    score: Annotated[int, Meta(description=SCORE)]
    shut: Annotated[bool, Meta(description=SHUT)]
    best_possible: Annotated[
        int,
        Meta(description="The lowest score any line of choices reaches on the date's dice."),
    ]
    would_rank: Annotated[
        WouldRank,
        Meta(
            description="Where the score would rank among the date's official runs, as they "
            "stand now."
        ),
    ]
    played_at: Annotated[datetime, Meta(description="When the practice run was sent.")]


def would_rank_out(rank: Rank) -> WouldRank:
    return WouldRank(position=rank.position, players=rank.players, percentile=rank.percentile)


_encoder = msgspec.json.Encoder()


def practised(done: Practice) -> bytes:
    """A practice run's answer, encoded: its run result, never official, and its rank."""
    result = run_result(done.verified, done.sequence)
    return _encoder.encode(
        PracticeRunResult(
            **msgspec.structs.asdict(result),
            official=False,
            kept=done.kept,
            would_rank=would_rank_out(done.would_rank),
        )
    )


def listed(entry: PracticeEntry) -> PracticeListed:
    return PracticeListed(
        date=entry.day,
        score=entry.score,
        shut=entry.score == 0,
        best_possible=entry.best_possible,
        would_rank=would_rank_out(entry.would_rank),
        played_at=entry.played_at,
    )


class PracticeController(Controller):
    path = "/v1"

    @post(
        "/daily/{day:str}/practice",
        # SHUTBOX_RATE_LIMIT_STORES: a run kept a request, for a player
        opt={OWN_LIMIT: stores_for_a_player},
        tags=["Daily Dice"],
        operation_id="practiseDailyDate",
        summary="Practise a date that has closed everywhere",
        description=(
            "Verifies and analyses the run on the date's dice as an official run is, and "
            "says where its score would have ranked among the date's official runs (this "
            "run counted as one more player). Never official: no streak, no rank, no "
            "history, no leaderboard. With a bearer token it is kept as the player's "
            "practice run of the date (one a date: the latest replaces the one before, "
            "`GET /v1/players/me/practice`) and Idempotency-Key is honoured; without one it "
            "is answered and kept nowhere. A date still open somewhere on Earth (until "
            "12:15 UTC the next day): 422 `date-not-closed`, saying when it closes. Rate "
            "limited as `POST /v1/analyze`, and with a bearer token against the client "
            "address's limit of requests that store too (429)."
        ),
        security=MAYBE_BEARER,
        responses={
            **documented(
                problems.CREATING,
                problems.AUTHENTICATED,
                problems.DATE,
                problems.DATE_NOT_CLOSED,
                problems.ILLEGAL_RUN,
            ),
            201: created(PracticeRunResult, "The practice run, verified, analysed and ranked"),
        },
        status_code=201,
    )
    async def practise(
        self,
        request: AnyRequest,
        data: JSONBody[RunSubmission],
        services: ServicesDep,
        day: DatePath,
    ) -> Response[bytes]:
        when = parse_date(day)
        player = await optional_player(request, services)
        try:
            check_begun(when, services.settings.launch_date, services.clock.now())
        except UnknownDate as unknown:
            raise refused(unknown) from None
        moves = [move_in(m) for m in data.moves]

        async def produce(connection: Connection | None) -> tuple[int, bytes]:
            now = services.clock.now()
            done = await services.practice.practise(player, when, moves, now, connection)
            return 201, practised(done)

        # Only a player's run is kept, under the player's keys; without a token nothing
        # is kept, and the same request is answered the same again.
        if player is None:
            sent = Keyed(None, request.method, request.url.path, b"")
            scope = ""
        else:
            sent, scope = await keyed(request), f"player:{player.id}"
        try:
            answer = await answer_keyed(sent, services, scope, produce)
        except DateNotClosed as still_open:
            raise problems.DATE_NOT_CLOSED(
                _(
                    "{date} is still open somewhere on Earth; it can be practised once it "
                    "has closed everywhere, from {closes_at} UTC.",
                    date=long_date(when),
                    closes_at=still_open.closes_at.strftime("%Y-%m-%d %H:%M"),
                ),
                problems.DateNotClosedMembers(closes_at=still_open.closes_at),
            ) from None
        return Response(content=answer.body, status_code=answer.status, media_type=JSON)

    @get(
        "/players/me/practice",
        tags=["Players"],
        operation_id="getMyPractice",
        summary="The player's practice runs, newest date first, with where they would rank",
        description=(
            "One a date (the latest played). Page back with `before` set to the oldest date "
            "of the previous page."
        ),
        security=BEARER,
        responses=documented(problems.INVALID_REQUEST, problems.AUTHENTICATED),
    )
    async def kept(
        self,
        player: PlayerDep,
        services: ServicesDep,
        before: BeforeQuery = None,
        limit: LimitQuery = PAGE_SIZE,
    ) -> list[PracticeListed]:
        entries = await services.practice.kept(player.id, before or date.max, limit)
        return [listed(entry) for entry in entries]
