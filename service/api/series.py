"""Series: a game night over several rounds behind a code (PRODUCT.md §9). Players join
by code before the first round is complete, and each plays every round's dice, one turn
a round, at their own pace; the computer players may take seats."""

from __future__ import annotations

import re
from typing import Annotated, Any, Final

import msgspec
from litestar import Controller, Response, get, post
from litestar.params import JSONBody, PathParameter, QueryParameter
from litestar.plugins.problem_details import ProblemDetailsException
from msgspec import UNSET, Meta, UnsetType

from service.api import problems
from service.api.deps import BEARER, AnyRequest, PlayerDep, ServicesDep
from service.api.document import created, documented, resubmitted
from service.api.front.ratelimit import OWN_LIMIT, STORES
from service.api.idempotency import respond_once
from service.api.schemas import (
    CODE_TEXT,
    DICE,
    NAME,
    PAGE_SIZE,
    LimitQuery,
    MovesIn,
    OffsetQuery,
    RulesIn,
    RulesOut,
    StoredRunResult,
    move_in,
    rules_out,
    run_result,
)
from service.api.tables import holding
from service.rules.ruleset import Roll, Rules
from service.store.db import Connection
from service.store.runs import AlreadyPlayed
from service.support import codes
from service.support.i18n import N_, _
from service.usecases import series as use_cases
from service.usecases.series import PlayedRound
from service.usecases.standings import (
    MAX_ROUNDS,
    MAX_SEATS,
    Computer,
    Elimination,
    Format,
    OutWhen,
    Rounds,
    SeriesView,
    Status,
    ToScore,
)

SERIES_CODE: Final = N_("series code")
COMPUTER_NAMES: Final[dict[Computer, str]] = {
    "easy": N_("Easy"),
    "medium": N_("Medium"),
    "hard": N_("Hard"),
}

# Read by problems.parsed_code, which answers 400 invalid-code or mistyped-code.
CodePath = Annotated[
    str,
    PathParameter(
        description="A series code, e.g. 7M3Q-K2ZD2 (any case, spaces and hyphens)",
        schema_extra=CODE_TEXT,
    ),
]
ROUND: Final = re.compile("^(?:[1-9][0-9]?|1[0-9]{2}|200)$")
"""A round as a path writes it: 1..``MAX_ROUNDS``, no leading zero."""
# Read by parse_round, which answers 400 for anything else.
RoundPath = Annotated[
    str,
    PathParameter(
        description=f"The round, 1..{MAX_ROUNDS}, e.g. 1", schema_extra={"pattern": ROUND.pattern}
    ),
]


class NewSeries(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A series to make: its rules, format and computer seats."""

    format: Annotated[
        Format,
        Meta(
            description="How the series is played and won: `rounds` (a fixed number of "
            "rounds), `to_score` (until a total reaches the target) or `elimination` (a "
            "player whose total reaches the limit is out). The lowest total wins."
        ),
    ]
    rules: RulesIn = msgspec.field(default_factory=Rules)
    shut_wins: Annotated[
        bool,
        Meta(
            description="Whether a player who shuts the box wins the series at once, when "
            "that round is complete (several who shut in it share the win)."
        ),
    ] = False
    computers: Annotated[
        list[Computer],
        Meta(
            max_length=MAX_SEATS - 1,
            description="The computer players who take seats: `easy`, `medium`, `hard` "
            f"(they count among the {MAX_SEATS} seats). They play each round's dice as soon "
            "as it is issued.",
        ),
    ] = msgspec.field(default_factory=list)


class RoundsOut(msgspec.Struct, frozen=True, tag_field="kind", tag="rounds"):
    """A fixed number of rounds; the lowest total wins."""

    rounds: Annotated[int, Meta(description="How many rounds.")]


class ToScoreOut(msgspec.Struct, frozen=True, tag_field="kind", tag="to_score"):
    """Rounds until, at a complete round, some player's total reaches the target; the
    lowest total then wins."""

    target: Annotated[int, Meta(description="The total that ends the series.")]


class EliminationOut(msgspec.Struct, frozen=True, tag_field="kind", tag="elimination"):
    """After each complete round a player whose total reaches (or exceeds) the limit is
    out; the last player left wins (players out in the same last round: by total)."""

    limit: Annotated[int, Meta(description="The total that puts a player out.")]
    out_when: Annotated[
        OutWhen,
        Meta(
            description="`reached`: out at a total of `limit` or more; `exceeded`: out at a "
            "total above it."
        ),
    ]


FormatOut = RoundsOut | ToScoreOut | EliminationOut
"""A format as answers show it: every field given (the request's ``Format`` may leave
``out_when`` out)."""


class Bounds(msgspec.Struct, frozen=True):
    """The whole numbers a field takes, both ends included."""

    minimum: Annotated[int, Meta(description="The lowest it takes.")]
    maximum: Annotated[int, Meta(description="The highest it takes.")]


class SeriesBounds(msgspec.Struct, frozen=True, kw_only=True):
    """What `POST /v1/series` takes: the number of each format, and the seats (`computers`
    takes one fewer: the creator's seat)."""

    rounds: Annotated[Bounds, Meta(description="`rounds` of the `rounds` format.")]
    target: Annotated[Bounds, Meta(description="`target` of the `to_score` format.")]
    limit: Annotated[Bounds, Meta(description="`limit` of the `elimination` format.")]
    seats: Annotated[int, Meta(description="The seats of a series, the computers' counted.")]


def checked_bounds(struct: type[msgspec.Struct], name: str) -> Bounds:
    """The bounds msgspec checks a whole-number field against (its ``Meta``): what the
    answers state is what the requests are held to."""
    info = msgspec.inspect.type_info(struct)
    if isinstance(info, msgspec.inspect.StructType):
        for field in info.fields:
            checked = field.type
            if isinstance(checked, msgspec.inspect.Metadata):
                checked = checked.type
            if (
                field.name == name
                and isinstance(checked, msgspec.inspect.IntType)
                and checked.ge is not None
                and checked.le is not None
            ):
                return Bounds(checked.ge, checked.le)
    raise TypeError(f"{struct.__name__}.{name}: not a whole number with both bounds")


SERIES_BOUNDS: Final = SeriesBounds(
    rounds=checked_bounds(Rounds, "rounds"),
    target=checked_bounds(ToScore, "target"),
    limit=checked_bounds(Elimination, "limit"),
    seats=MAX_SEATS,
)


def format_out(format: Format) -> FormatOut:
    if isinstance(format, Rounds):
        return RoundsOut(rounds=format.rounds)
    if isinstance(format, ToScore):
        return ToScoreOut(target=format.target)
    return EliminationOut(limit=format.limit, out_when=format.out_when)


_SEAT: Final = "The seat, 0-based: its index in `players` (0: the creator)."
_ID: Final = "The player's id; absent for a computer player."
_COMPUTER: Final = "Which computer player holds the seat; absent for a player."


class SeatOwner(msgspec.Struct, frozen=True):
    """A player, by name."""

    name: Annotated[str | None, Meta(description=NAME)]


class SeatOut(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Who holds a seat of a series."""

    seat: Annotated[int, Meta(description=_SEAT)]
    id: Annotated[str, Meta(description=_ID)] | UnsetType = UNSET
    name: Annotated[
        str | None, Meta(description=NAME + " A computer player's is its level, in words.")
    ]
    computer: Annotated[Computer, Meta(description=_COMPUTER)] | UnsetType = UNSET


class SeriesPlayerOut(SeatOut, frozen=True, kw_only=True, omit_defaults=True):
    """A seat of a series and its scores, as the player asking is shown them."""

    total: Annotated[int, Meta(description="The sum of the scores shown in `rounds`.")]
    rounds: Annotated[
        list[int | None],
        Meta(
            description="A score per round issued so far (once finished: per round played "
            "in the series). null: not played, played after going out or after the series "
            "ended, or not shown yet: another player's score in a round is shown only to "
            "a player who has played that round (to everyone once the series is finished)."
        ),
    ]
    played: Annotated[
        int,
        Meta(
            description="How many rounds the seat has played (rounds 1 to `played`: a "
            "player plays them in order). Shown to every player of the series, even where "
            "the scores in `rounds` are not shown yet."
        ),
    ]
    out: Annotated[bool, Meta(description="Whether the seat is out of the series (`elimination`).")]
    place: (
        Annotated[
            int,
            Meta(description="The seat's place once the series is finished: 1 is first; "
                 "ties share a place."),
        ]
        | UnsetType
    ) = UNSET  # fmt: skip


class NextRoundOut(msgspec.Struct, frozen=True):
    """The round the player plays next, with its dice."""

    round: Annotated[int, Meta(description="The round's number, 1-based.")]
    dice: Annotated[list[Roll], Meta(description=DICE)]


class SeriesOut(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A series as one of its players sees it."""

    code: Annotated[
        str,
        Meta(description="The series code: 8 symbols and a check symbol (Crockford base32)."),
    ]
    display_code: Annotated[
        str, Meta(description="The code as people read and type it, grouped: e.g. 7M3Q-K2ZD2.")
    ]
    rules: Annotated[RulesOut, Meta(description="The rules of every round.")]
    format: Annotated[FormatOut, Meta(description="How the series is played and won.")]
    shut_wins: Annotated[
        bool, Meta(description="Whether shutting the box wins the series at once.")
    ]
    status: Annotated[
        Status,
        Meta(
            description="`open`: players may join (its first round is not complete); "
            "`playing`; `finished`: `winners` and every `place` are decided."
        ),
    ]
    rounds_complete: Annotated[
        int,
        Meta(
            description="The rounds every player still in has played (once finished: the "
            "rounds the series lasted)."
        ),
    ]
    next: (
        Annotated[
            NextRoundOut,
            Meta(
                description="The round this player plays next, with its dice; absent when "
                "there is none (played every round, out, or the series finished). No later "
                "round's dice are shown."
            ),
        ]
        | UnsetType
    ) = UNSET
    players: Annotated[
        list[SeriesPlayerOut],
        Meta(
            description="Every seat, in seat order: the creator's, the computers', then "
            "the players' in the order they joined."
        ),
    ]
    winners: Annotated[
        list[SeatOut],
        Meta(description="Who won, once the series is finished (ties share); else empty."),
    ]


class SeriesRunSubmission(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The player's run of a round."""

    moves: MovesIn


class SeriesRunResult(StoredRunResult, frozen=True, kw_only=True):
    """A player's run of a round, verified and analysed, and the series after it."""

    series: Annotated[SeriesOut, Meta(description="The series as it stood after the run.")]


_CODE: Final = "The series code: 8 symbols and a check symbol (Crockford base32)."
_DISPLAY_CODE: Final = "The code as people read and type it, grouped: e.g. 7M3Q-K2ZD2."
_STATUS: Final = (
    "`open`: players may join (its first round is not complete); `playing`; `finished`."
)


class SeriesOfPlayerOut(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One of the player's series, in brief: where it stands for them."""

    code: Annotated[str, Meta(description=_CODE)]
    display_code: Annotated[str, Meta(description=_DISPLAY_CODE)]
    format: Annotated[FormatOut, Meta(description="How the series is played and won.")]
    status: Annotated[Status, Meta(description=_STATUS)]
    rounds_complete: Annotated[
        int,
        Meta(
            description="The rounds every player still in has played (once finished: the "
            "rounds the series lasted)."
        ),
    ]
    next_round: (
        Annotated[
            int,
            Meta(
                description="The round the player plays next; absent when there is none "
                "(played every round issued to them, out, or the series finished)."
            ),
        ]
        | UnsetType
    ) = UNSET
    place: (
        Annotated[
            int,
            Meta(description="The player's place once the series is finished: 1 is first; "
                 "ties share a place."),
        ]
        | UnsetType
    ) = UNSET  # fmt: skip


class InvitedSeatOut(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Who holds a seat, as the series' invitation shows it: a name, no score."""

    name: Annotated[
        str | None, Meta(description=NAME + " A computer player's is its level, in words.")
    ]
    computer: Annotated[Computer, Meta(description=_COMPUTER)] | UnsetType = UNSET


class SeriesInviteOut(msgspec.Struct, frozen=True, kw_only=True):
    """A series as whoever holds its code is shown it before joining: who made it, how it
    is played, and, while anyone may join it, who sits at it. No score, no dice."""

    code: Annotated[str, Meta(description=_CODE)]
    display_code: Annotated[str, Meta(description=_DISPLAY_CODE)]
    owner: Annotated[SeatOwner, Meta(description="Who made the series (its first seat).")]
    rules: Annotated[RulesOut, Meta(description="The rules of every round.")]
    format: Annotated[FormatOut, Meta(description="How the series is played and won.")]
    shut_wins: Annotated[
        bool, Meta(description="Whether shutting the box wins the series at once.")
    ]
    status: Annotated[Status, Meta(description=_STATUS + " Only an open series can be joined.")]
    seats: Annotated[
        int, Meta(description=f"The seats taken, the computers' counted ({MAX_SEATS} at most).")
    ]
    players: Annotated[
        list[InvitedSeatOut],
        Meta(
            description="Every seat in seat order (the creator's first) while the series "
            "is open, as anyone joining would see them; empty once it has begun."
        ),
    ]
    joined: Annotated[bool, Meta(description="Whether the caller is in the series already.")]


def series_out(found: SeriesView) -> SeriesOut:
    """The series as the API shows it: a computer seat named by its level (numbered where
    there are several of one level)."""
    levels = [p.computer for p in found.players if p.computer is not None]
    seen: dict[Computer, int] = {}
    seats: list[SeriesPlayerOut] = []
    for player in found.players:
        seats.append(
            SeriesPlayerOut(
                seat=player.seat,
                id=str(player.player_id) if player.player_id is not None else UNSET,
                name=_computer_name(player.computer, levels, seen)
                if player.computer is not None
                else player.name,
                computer=player.computer if player.computer is not None else UNSET,
                total=player.total,
                rounds=list(player.rounds),
                played=player.played,
                out=player.out,
                place=player.place if player.place is not None else UNSET,
            )
        )
    coming = found.next
    return SeriesOut(
        code=found.code,
        display_code=codes.display(found.code),
        rules=rules_out(found.rules),
        format=format_out(found.format),
        shut_wins=found.shut_wins,
        status=found.status,
        rounds_complete=found.rounds_complete,
        next=NextRoundOut(round=coming.round, dice=list(coming.dice)) if coming else UNSET,
        players=seats,
        winners=[
            SeatOut(seat=s.seat, id=s.id, name=s.name, computer=s.computer)
            for s in (seats[w] for w in found.winners)
        ],
    )


def invite_out(found: use_cases.SeriesInvite) -> SeriesInviteOut:
    levels = [p.computer for p in found.players if p.computer is not None]
    seen: dict[Computer, int] = {}
    return SeriesInviteOut(
        code=found.code,
        display_code=codes.display(found.code),
        owner=SeatOwner(name=found.owner),
        rules=rules_out(found.rules),
        format=format_out(found.format),
        shut_wins=found.shut_wins,
        status=found.status,
        seats=found.seats,
        players=[
            InvitedSeatOut(name=_computer_name(p.computer, levels, seen), computer=p.computer)
            if p.computer is not None
            else InvitedSeatOut(name=p.name)
            for p in found.players
        ],
        joined=found.joined,
    )


def _computer_name(level: Computer, levels: list[Computer], seen: dict[Computer, int]) -> str:
    seen[level] = seen.get(level, 0) + 1
    name = _(COMPUTER_NAMES[level])
    return f"{name} {seen[level]}" if levels.count(level) > 1 else name


def parse_round(text: str) -> int:
    """The round a path names: a whole number 1..``MAX_ROUNDS``, else 400."""
    if len(text) > 3 or not ROUND.fullmatch(text):
        raise problems.INVALID_REQUEST(
            _("A round is a whole number, 1 to {last}.", last=MAX_ROUNDS)
        )
    return int(text)


def parse_code(text: str) -> str:
    """The canonical series code a path names, else 400."""
    return problems.parsed_code(text, what=SERIES_CODE)


def series_problem(error: Exception) -> ProblemDetailsException:
    """The problem of a use case's refusal."""
    if isinstance(error, use_cases.UnknownSeries):
        return problems.UNKNOWN_SERIES(
            _("There is no series {code}.", code=codes.display(str(error)))
        )
    if isinstance(error, use_cases.NotAPlayer):
        return problems.SERIES_HIDDEN(
            _("A series is shown to its players only: join it with its code first.")
        )
    if isinstance(error, use_cases.SeriesStarted):
        return problems.SERIES_STARTED(
            _("This series' first round is complete: nobody can join it any more.")
        )
    if isinstance(error, use_cases.SeriesFull):
        return problems.SERIES_FULL(
            _("Every seat of this series is taken ({seats} at most).", seats=MAX_SEATS)
        )
    if isinstance(error, use_cases.SeriesFinished):
        return problems.SERIES_FINISHED(_("This series is over: no round is played any more."))
    if isinstance(error, use_cases.OutOfSeries):
        return problems.OUT_OF_SERIES(
            _("You are out of this series: your total reached its limit.")
        )
    if isinstance(error, use_cases.RoundNotReached):
        if error.next is None:
            return problems.ROUND_NOT_REACHED(
                _("There is no round {round} for you: you have played your last.",
                  round=error.round)
            )  # fmt: skip
        return problems.ROUND_NOT_REACHED(
            _(
                "You have not reached round {round}: play round {next} first.",
                round=error.round,
                next=error.next,
            )
        )
    raise error


REFUSALS: Final = (
    use_cases.UnknownSeries,
    use_cases.NotAPlayer,
    use_cases.SeriesStarted,
    use_cases.SeriesFull,
    use_cases.SeriesFinished,
    use_cases.OutOfSeries,
    use_cases.RoundNotReached,
)

_encoder = msgspec.json.Encoder()


class SeriesController(Controller):
    path = "/v1/series"
    tags = ["Series"]

    @post(
        "/",
        opt={OWN_LIMIT: STORES},  # SHUTBOX_RATE_LIMIT_STORES: a series, its round, a seat
        operation_id="createSeries",
        summary="Create a series: a game night over several rounds",
        description=(
            "A series under any rules variant (standard by default), with a format and "
            "computer seats, behind a code to share. The creator is its first player, and "
            "its first round is issued: the computer seats play it at once. Honours "
            "Idempotency-Key. Counts against the client address's limit of requests that "
            "store (429)."
        ),
        security=BEARER,
        responses={
            **documented(problems.CREATING, problems.AUTHENTICATED, problems.SOLVER_BUSY),
            201: created(SeriesOut, "The series"),
        },
        status_code=201,
    )
    async def create(
        self,
        request: AnyRequest,
        data: JSONBody[NewSeries],
        player: PlayerDep,
        services: ServicesDep,
    ) -> Response[bytes]:
        async def produce(connection: Connection | None) -> tuple[int, bytes]:
            found = await use_cases.create(
                connection or services.pool,
                services.cache,
                services.settings.secret_bytes,
                player.id,
                data.rules,
                data.format,
                data.shut_wins,
                data.computers,
                holding(request.scope),
                services.clock.now(),
            )
            return 201, _encoder.encode(series_out(found))

        return await respond_once(request, services, f"player:{player.id}", produce)

    @post(
        "/{code:str}/players",
        opt={OWN_LIMIT: STORES},  # SHUTBOX_RATE_LIMIT_STORES: a seat a request
        operation_id="joinSeries",
        summary="Join a series",
        description=(
            f"Takes the next free seat ({MAX_SEATS} at most, the computers' counted) until the "
            "series' first round is complete; 409 from then on, or when every seat is "
            "taken. A player already in gets the series again (200). Honours "
            "Idempotency-Key. Counts against the client address's limit of requests that "
            "store (429)."
        ),
        security=BEARER,
        responses={
            **documented(
                problems.CREATING,
                problems.AUTHENTICATED,
                problems.SERIES_CODE,
                problems.SERIES_STARTED,
                problems.SERIES_FULL,
            ),
            201: created(SeriesOut, "The series, with the player in it"),
            200: created(SeriesOut, "The player was in the series already"),
        },
        status_code=201,
    )
    async def join(
        self, request: AnyRequest, player: PlayerDep, services: ServicesDep, code: CodePath
    ) -> Response[bytes]:
        canonical = parse_code(code)

        async def produce(connection: Connection | None) -> tuple[int, bytes]:
            try:
                joined, found = await use_cases.join(
                    connection or services.pool,
                    services.cache,
                    canonical,
                    player.id,
                    services.clock.now(),
                )
            except REFUSALS as refused:
                raise series_problem(refused) from None
            return (201 if joined else 200), _encoder.encode(series_out(found))

        return await respond_once(request, services, f"player:{player.id}", produce)

    @get(
        "/{code:str}",
        operation_id="getSeries",
        summary="A series: its standings, and the dice of the round the player plays next",
        description=(
            "For the series' players; 403 for anyone else. Another player's score in a "
            "round is shown only to a player who has played that round (to everyone once "
            "the series is finished); no round's dice are shown before the player reaches it."
        ),
        security=BEARER,
        responses=documented(problems.SERIES_CODE, problems.SERIES_HIDDEN, problems.AUTHENTICATED),
    )
    async def get_series(
        self, player: PlayerDep, services: ServicesDep, code: CodePath
    ) -> SeriesOut:
        try:
            found = await use_cases.show(services.pool, services.cache, parse_code(code), player.id)
        except REFUSALS as refused:
            raise series_problem(refused) from None
        return series_out(found)

    @get(
        "/{code:str}/invite",
        operation_id="getSeriesInvite",
        summary="A series as its invitation shows it, before joining",
        description=(
            "For anyone holding the code: who made it, its rules and format, its status, "
            "the seats taken and, while it is open (anyone may join it then), who sits at "
            "it. No score and no dice: those are for its players (GET /v1/series/{code})."
        ),
        security=BEARER,
        responses=documented(problems.SERIES_CODE, problems.AUTHENTICATED),
    )
    async def get_invite(
        self, player: PlayerDep, services: ServicesDep, code: CodePath
    ) -> SeriesInviteOut:
        try:
            found = await use_cases.invite(services.pool, parse_code(code), player.id)
        except REFUSALS as refused:
            raise series_problem(refused) from None
        return invite_out(found)

    @post(
        "/{code:str}/rounds/{round:str}/runs",
        opt={OWN_LIMIT: STORES},  # SHUTBOX_RATE_LIMIT_STORES: a run (and the next round) a request
        operation_id="submitSeriesRun",
        summary="Submit the player's run of a round of a series",
        description=(
            "Verified, scored and analysed on the round's dice and the series' rules. A "
            "player plays round k + 1 once they have played round k: a round not reached, "
            "a series the player is out of or that is over, is 422. One run per player per "
            "round: the identical run again is 200 with the same body, another run 409. "
            "`series` is the series as it stood after the run. Honours Idempotency-Key. "
            "Counts against the client address's limit of requests that store (429)."
        ),
        security=BEARER,
        responses={
            **documented(
                problems.CREATING,
                problems.AUTHENTICATED,
                problems.SERIES_CODE,
                problems.SERIES_HIDDEN,
                problems.ALREADY_PLAYED,
                problems.ROUND_NOT_REACHED,
                problems.OUT_OF_SERIES,
                problems.SERIES_FINISHED,
                problems.ILLEGAL_RUN,
                problems.SOLVER_BUSY,
            ),
            201: created(SeriesRunResult, "The run, verified and analysed"),
            200: resubmitted(SeriesRunResult),
        },
        status_code=201,
    )
    async def submit(
        self,
        request: AnyRequest,
        data: JSONBody[SeriesRunSubmission],
        player: PlayerDep,
        services: ServicesDep,
        code: CodePath,
        round: RoundPath,
    ) -> Response[bytes]:
        canonical, number = parse_code(code), parse_round(round)
        moves = [move_in(m) for m in data.moves]

        def respond(played: PlayedRound) -> bytes:
            result = run_result(played.verified, played.sequence)
            extra: dict[str, Any] = {
                "run_id": str(played.run_id),
                "official": True,
                "series": series_out(played.series),
            }
            return _encoder.encode(SeriesRunResult(**msgspec.structs.asdict(result) | extra))

        async def produce(connection: Connection | None) -> tuple[int, bytes]:
            try:
                accepted = await use_cases.submit(
                    connection or services.pool,
                    services.cache,
                    services.settings.secret_bytes,
                    canonical,
                    number,
                    player.id,
                    moves,
                    holding(request.scope),
                    services.clock.now(),
                    respond,
                )
            except REFUSALS as refused:
                raise series_problem(refused) from None
            except AlreadyPlayed as played:
                raise problems.ALREADY_PLAYED(
                    _(
                        "You already played round {round} of series {code}; your run stands.",
                        round=number,
                        code=codes.display(canonical),
                    ),
                    problems.AlreadyPlayedMembers(official_run_id=str(played.official_id)),
                ) from None
            return (201 if accepted.created else 200), accepted.body

        return await respond_once(request, services, f"player:{player.id}", produce)


StatusQuery = Annotated[
    Status | None,
    QueryParameter(description="Only the series of this status: `open`, `playing`, `finished`."),
]


class PlayersSeriesController(Controller):
    path = "/v1/players/me"
    tags = ["Series"]

    @get(
        "/series",
        operation_id="listMySeries",
        summary="The series the player is in, newest first",
        description=(
            "Each in brief, as it stands for the player: its status, the rounds complete, "
            "the round the player plays next, and the player's place once it is finished. "
            "Only those of `status` when it is given. Page on with `offset` set to the "
            "number of series read."
        ),
        security=BEARER,
        responses=documented(problems.INVALID_REQUEST, problems.AUTHENTICATED),
    )
    async def mine(
        self,
        player: PlayerDep,
        services: ServicesDep,
        status: StatusQuery = None,
        limit: LimitQuery = PAGE_SIZE,
        offset: OffsetQuery = 0,
    ) -> list[SeriesOfPlayerOut]:
        page = await use_cases.of_player(services.pool, player.id, status, limit, offset)
        return [
            SeriesOfPlayerOut(
                code=found.code,
                display_code=codes.display(found.code),
                format=format_out(found.format),
                status=found.status,
                rounds_complete=found.rounds_complete,
                next_round=found.next_round if found.next_round is not None else UNSET,
                place=found.place if found.place is not None else UNSET,
            )
            for found in page
        ]
