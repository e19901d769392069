"""Players: created by the app on first launch, identified by a bearer token."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Annotated, Final

import msgspec
from litestar import Controller, Response, get, patch, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import JSONBody
from litestar.plugins.problem_details import ProblemDetailsException
from msgspec import UNSET, Meta, UnsetType

from service.api import problems
from service.api.deps import (
    BEARER,
    AnyRequest,
    PlayerDep,
    Services,
    ServicesDep,
    player_read,
)
from service.api.document import documented
from service.api.front.hot import BEFORE_FRAMEWORK
from service.api.front.ratelimit import OWN_LIMIT
from service.api.idempotency import answer_once
from service.api.schemas import (
    NAME,
    PAGE_SIZE,
    SCORE,
    SHUT,
    BeforeQuery,
    LimitQuery,
    Streak,
    streak_out,
)
from service.store.db import Connection
from service.store.players import PlayerRow, token_hash
from service.store.ranks import Rank
from service.support import codes
from service.support.i18n import Language, _
from service.usecases import players as use_cases
from service.usecases.players import Figures

# A name and a time zone say more than their shape: checked_name and checked_time_zone
# answer 422 (invalid-name, unknown-time-zone) for what does not fit, the empty text and
# text outside the pattern among it.
NameIn = Annotated[
    str,
    Meta(
        max_length=200,
        extra_json_schema={"minLength": 1},
        description="Shown to friends; 1..40 characters.",
    ),
]
TIME_ZONE_PATTERN: Final = "^[A-Za-z][A-Za-z0-9_+/-]*$"
"""The characters of the time zone database's names (every zone a player may take)."""
TimeZoneIn = Annotated[
    str,
    Meta(
        max_length=64,
        extra_json_schema={"pattern": TIME_ZONE_PATTERN},
        description="An IANA time zone, e.g. Europe/Oslo.",
    ),
]
TokenIn = Annotated[
    str,
    Meta(
        min_length=43,
        max_length=128,
        pattern=r"^[A-Za-z0-9_-]+$",
        description=(
            "A bearer token the client generated for itself: 43 to 128 URL-safe base64 "
            "characters (e.g. 32 random bytes). The server keeps only its hash; with it, "
            "a retry that lost its answer finds the same player again."
        ),
    ),
]
_OWN_TOKEN: Final = (
    "The client's own bearer token (recommended: a retry finds the same player); null: the "
    "server makes one."
)


class NewPlayer(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A player to create; every field may be left out."""

    name: Annotated[
        NameIn | None, Meta(description="The name shown to friends, 1..40 characters; null: none.")
    ] = None
    time_zone: TimeZoneIn = "UTC"
    token: Annotated[TokenIn | None, Meta(description=_OWN_TOKEN)] = None


LanguageIn = Annotated[
    Language,
    Meta(
        description="The language the player reads: used when a request's Accept-Language "
        "names none of en, nb, nl, de (a share text in particular)."
    ),
]


class PlayerChange(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """What to change of the player; a field left out stays as it is."""

    name: (
        Annotated[
            NameIn | None,
            Meta(
                description="The new name shown to friends, 1..40 characters; null removes it; "
                "left out: unchanged."
            ),
        ]
        | UnsetType
    ) = UNSET
    time_zone: TimeZoneIn | UnsetType = UNSET
    language: LanguageIn | UnsetType = UNSET


class Claim(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A transfer code to claim on this device."""

    code: Annotated[
        str,
        Meta(
            # Read by problems.parsed_code, which answers 400 invalid-code or mistyped-code.
            extra_json_schema=codes.text_schema(codes.TRANSFER_LENGTH),
            description="The transfer code, e.g. 7M3Q-K2ZD-PX4T9 (any case, spaces and hyphens).",
        ),
    ]
    token: Annotated[TokenIn | None, Meta(description=_OWN_TOKEN)] = None


class Identity(msgspec.Struct, frozen=True):
    """Who a player is, without any secret: what an idempotent replay keeps."""

    id: uuid.UUID
    name: str | None
    time_zone: str


_ID: Final = "The player's id (a UUID): what friends and results know the player by."
_TIME_ZONE: Final = "The player's IANA time zone, e.g. Europe/Oslo: it decides their dates."


class CreatedPlayer(msgspec.Struct, frozen=True):
    """A player and the bearer token to act as them."""

    id: Annotated[uuid.UUID, Meta(description=_ID)]
    name: Annotated[str | None, Meta(description=NAME)]
    time_zone: Annotated[str, Meta(description=_TIME_ZONE)]
    token: Annotated[
        str,
        Meta(
            description="The bearer token: send it as `Authorization: Bearer <token>`. Shown "
            "here only (the server keeps its hash): keep it on the device."
        ),
    ]


class TransferCode(msgspec.Struct, frozen=True):
    """A one-time code that moves the player to a new device."""

    code: Annotated[
        str,
        Meta(description="The code: 12 symbols and a check symbol (Crockford base32)."),
    ]
    display_code: Annotated[
        str, Meta(description="The code as people read and type it: e.g. 7M3Q-K2ZD-PX4T9.")
    ]
    expires_at: Annotated[
        datetime, Meta(description="When the code stops working: 15 minutes after it was made.")
    ]


class Player(msgspec.Struct, frozen=True):
    """A player as they see themselves."""

    id: Annotated[uuid.UUID, Meta(description=_ID)]
    name: Annotated[str | None, Meta(description=NAME)]
    time_zone: Annotated[str, Meta(description=_TIME_ZONE)]
    created_at: Annotated[datetime, Meta(description="When the player was created.")]
    language: Annotated[
        Language | None,
        Meta(
            description="The language the player chose (`PATCH /v1/players/me`): used when a "
            "request's Accept-Language names none of ours; null: not chosen (English then)."
        ),
    ]


class PlayerWithStreak(Player, frozen=True):
    """A player with their daily streak."""

    streak: Annotated[Streak, Meta(description="The player's daily streak now.")]


_PLAYED_ONLY: Final = " Left out for a frozen date."


class HistoryEntry(msgspec.Struct, frozen=True):
    """One of the player's official daily runs, or a date a streak freeze covered."""

    date: Annotated[date, Meta(description="The Daily Dice date played, or frozen.")]
    score: Annotated[int, Meta(description=SCORE + _PLAYED_ONLY)] | UnsetType = UNSET
    shut: Annotated[bool, Meta(description=SHUT + _PLAYED_ONLY)] | UnsetType = UNSET
    rank: (
        Annotated[
            Rank,
            Meta(
                description="The run among the date's official runs, as it stands now."
                + _PLAYED_ONLY
            ),
        ]
        | UnsetType
    ) = UNSET
    frozen: Annotated[
        bool,
        Meta(
            description="true: a date the player missed that a streak freeze covered (no "
            "run: it neither counts nor breaks the streak)."
        ),
    ] = False


def history_entry(entry: use_cases.Played | use_cases.Frozen) -> HistoryEntry:
    if isinstance(entry, use_cases.Frozen):
        return HistoryEntry(date=entry.day, frozen=True)
    return HistoryEntry(date=entry.day, score=entry.score, shut=entry.shut, rank=entry.rank)


class Today(msgspec.Struct, frozen=True):
    """The player's today, for a phone to schedule its reminder before the date closes."""

    date: Annotated[
        date,
        Meta(
            description="Today's date in the player's time zone (the latest date open to "
            "them: after a move west, the date that stays theirs until it closes)."
        ),
    ]
    closes_at: Annotated[
        datetime,
        Meta(description="When that date closes for the player: local midnight plus the grace."),
    ]
    played: Annotated[bool, Meta(description="Whether the date has the player's official run.")]
    at_risk: Annotated[
        bool,
        Meta(
            description="Not played, and its closing would spend a freeze or break the "
            "streak (the streak's current is above 0)."
        ),
    ]
    streak: Annotated[Streak, Meta(description="The player's daily streak now.")]


def refused(error: Exception) -> ProblemDetailsException:
    """The problem of a use case's refusal."""
    if isinstance(error, use_cases.UnknownTimeZone):
        return problems.UNKNOWN_TIME_ZONE(
            _("time_zone: not an IANA time zone of a place (for example Europe/Oslo or UTC)"),
        )
    if isinstance(error, use_cases.InvalidName):
        if error.why == "invisible":
            return problems.INVALID_NAME(
                _("name: control and invisible characters are not allowed")
            )
        if error.why == "length":
            return problems.INVALID_NAME(
                _("name: 1 to {most} characters, please", most=use_cases.NAME_MAX)
            )
        return problems.INVALID_NAME(_("name: it shows nothing; use letters, digits or symbols"))
    if isinstance(error, use_cases.WeakToken):
        return problems.WEAK_TOKEN(
            _("token: generate it from 32 random bytes (URL-safe base64); this one is guessable."),
        )
    if isinstance(error, use_cases.TokenInUse):
        return problems.TOKEN_TAKEN(
            _("token: this token belongs to another player; make a new one.")
        )
    if isinstance(error, use_cases.UnknownTransferCode):
        return problems.UNKNOWN_TRANSFER_CODE(
            _(
                "No live transfer code is {code}: it may have expired (15 minutes) or been "
                "used. Ask the old device for a new one.",
                code=codes.display(error.code),
            ),
        )
    if isinstance(error, use_cases.TimeZoneChangeTooSoon):
        possible_at = error.possible_at.astimezone(UTC)
        return problems.TIME_ZONE_CHANGE_TOO_SOON(
            _(
                "Your time zone changed less than 24 hours ago; it can change again from "
                "{when} UTC.",
                when=possible_at.strftime("%Y-%m-%d %H:%M"),
            ),
            problems.TimeZoneMembers(possible_at=possible_at),
        )
    raise error


REFUSALS: Final = (
    use_cases.UnknownTimeZone,
    use_cases.InvalidName,
    use_cases.WeakToken,
    use_cases.TokenInUse,
    use_cases.UnknownTransferCode,
    use_cases.TimeZoneChangeTooSoon,
)


def player_created(identity: Identity | PlayerRow, token: str) -> CreatedPlayer:
    return CreatedPlayer(
        id=identity.id, name=identity.name, time_zone=identity.time_zone, token=token
    )


def identity_of(row: PlayerRow) -> bytes:
    return _encoder.encode(Identity(id=row.id, name=row.name, time_zone=row.time_zone))


_encoder = msgspec.json.Encoder()
_identity = msgspec.json.Decoder(Identity)


def player_out(row: PlayerRow) -> Player:
    return msgspec.convert(row, Player, from_attributes=True)


# A player's statistics: counters kept with each run stored (``service.store.daily``), so
# reading them never reads the runs.
_NO_RUN: Final = "null: no official run yet."


class PlayerStats(msgspec.Struct, frozen=True):
    """The player's figures over their official daily runs (not boxes, not practice)."""

    played: Annotated[int, Meta(description="The player's official daily runs.")]
    shut: Annotated[int, Meta(description="Those that shut the box (score 0).")]
    shut_rate: Annotated[
        float | None, Meta(description=f"The share of them that shut the box, 0..1; {_NO_RUN}")
    ]
    mean_score: Annotated[
        float | None, Meta(description=f"The mean score (lower is better); {_NO_RUN}")
    ]
    mean_best_possible: Annotated[
        float | None,
        Meta(
            description="The mean best possible score: the lowest any line of choices "
            f"reaches on each run's dice; {_NO_RUN}"
        ),
    ]
    mean_cost: Annotated[
        float | None,
        Meta(
            description="The mean of score - best_possible: what the player's choices cost "
            f"against the best possible on their dice (0: the best every time); {_NO_RUN}"
        ),
    ]
    distribution: Annotated[
        dict[int, int],
        Meta(
            description="How many official runs ended on each score (JSON object keys are "
            'strings: "0", "1", ...); scores no run ended on are left out ({} with no run).'
        ),
    ]
    streak: Annotated[Streak, Meta(description="The player's daily streak now.")]


def stats_out(figures: Figures) -> PlayerStats:
    """The figures as the API says them: the same names, the streak as its figures."""
    return PlayerStats(**{**figures._asdict(), "streak": streak_out(figures.streak)})


async def my_streak(services: Services, player: PlayerRow, _path: dict[str, str]) -> Streak:
    """``GET /v1/players/me/streak``, both ways (``player_read``)."""
    return streak_out(await use_cases.streak(services.pool, player, services.clock.now()))


async def my_today(services: Services, player: PlayerRow, _path: dict[str, str]) -> Today:
    """``GET /v1/players/me/today``, both ways (``player_read``)."""
    today = await use_cases.today(services.pool, player, services.clock.now())
    return Today(
        date=today.day,
        closes_at=today.closes_at,
        played=today.played,
        at_risk=today.at_risk,
        streak=streak_out(today.streak),
    )


class PlayersController(Controller):
    path = "/v1/players"
    tags = ["Players"]

    @post(
        "/",
        opt={OWN_LIMIT: "accounts"},  # SHUTBOX_RATE_LIMIT_ACCOUNTS: accounts are cheap to make
        operation_id="createPlayer",
        summary="Create a player",
        description=(
            "The bearer token is shown this once: the server keeps only its hash. A client "
            "may generate the token itself (`token`, 32 random bytes in URL-safe base64): "
            "then a retry that lost its answer, with the same token, finds the same player "
            "(200), and an Idempotency-Key is scoped to that token, useless to anyone else. "
            "Without a `token`, the server makes one, and a replay of the same "
            "Idempotency-Key can't show it again: 409 `token-not-kept`. Limited per client "
            "address (429)."
        ),
        responses={
            **documented(
                problems.CREATING,
                problems.UNKNOWN_TIME_ZONE,
                problems.INVALID_NAME,
                problems.WEAK_TOKEN,
                problems.TOKEN_NOT_KEPT,
                problems.LIMITED,
            ),
            200: ResponseSpec(
                data_container=CreatedPlayer,
                description="The token already belongs to a player: that player",
                generate_examples=False,
            ),
        },
        status_code=201,
    )
    async def create(
        self, request: AnyRequest, data: JSONBody[NewPlayer], services: ServicesDep
    ) -> Response[CreatedPlayer]:
        try:
            new = use_cases.new_player(data.name, data.time_zone, data.token)
        except REFUSALS as refusal:
            raise refused(refusal) from None
        # A key is the client's own when it comes with the client's token: nobody else
        # can send a request in that scope.
        token = new.token
        scope = f"players:{token_hash(token).hex()}" if new.own_token else "players"

        async def produce(connection: Connection | None) -> tuple[int, bytes]:
            made, row = await use_cases.create(
                connection or services.pool, new, services.clock.now()
            )
            return (201 if made else 200), identity_of(row)

        status, body, replayed = await answer_once(request, services, scope, produce)
        if replayed and not new.own_token:
            raise problems.TOKEN_NOT_KEPT(
                _(
                    "This Idempotency-Key created a player whose token was shown once and is "
                    "not kept. Create a player with a new key; send a token of your own to "
                    "make creation safe to retry."
                ),
            )
        return Response(player_created(_identity.decode(body), token), status_code=status)

    @get(
        "/me",
        operation_id="getMe",
        summary="The player behind the token, with their streak",
        security=BEARER,
        responses=documented(problems.AUTHENTICATED),
    )
    async def me(self, player: PlayerDep, services: ServicesDep) -> PlayerWithStreak:
        streak = await use_cases.streak(services.pool, player, services.clock.now())
        return PlayerWithStreak(
            **msgspec.structs.asdict(player_out(player)), streak=streak_out(streak)
        )

    @patch(
        "/me",
        operation_id="updateMe",
        summary="Change the player's name or time zone",
        description=(
            "`name: null` clears the name; a name that shows nothing or an unknown time zone "
            "is 422. The time zone changes at most once in 24 hours (409 "
            "`time-zone-change-too-soon`, with `possible_at`), and a date that has closed "
            "for the player stays closed after a change."
        ),
        security=BEARER,
        responses=documented(
            problems.BODY,
            problems.AUTHENTICATED,
            problems.UNKNOWN_TIME_ZONE,
            problems.INVALID_NAME,
            problems.TIME_ZONE_CHANGE_TOO_SOON,
        ),
    )
    async def update(
        self, data: JSONBody[PlayerChange], player: PlayerDep, services: ServicesDep
    ) -> Player:
        try:
            row = await use_cases.update(
                services.pool,
                player,
                services.clock.now(),
                data.name,
                data.time_zone,
                data.language,
            )
        except REFUSALS as refusal:
            raise refused(refusal) from None
        return player_out(row)

    @post(
        "/me/transfer",
        operation_id="offerTransfer",
        summary="A one-time code to move this player to a new device",
        description=(
            "12 symbols and a check symbol, valid 15 minutes, shown once (the server keeps "
            "only its hash). A new code replaces the previous one, so a retry is safe and "
            "needs no Idempotency-Key. Claim it on the new device with POST "
            "/v1/players/claim."
        ),
        security=BEARER,
        responses=documented(problems.AUTHENTICATED),
        status_code=201,
    )
    async def offer_transfer(self, player: PlayerDep, services: ServicesDep) -> TransferCode:
        code, expires_at = await use_cases.offer_transfer(
            services.pool, player.id, services.clock.now()
        )
        return TransferCode(code=code, display_code=codes.display(code), expires_at=expires_at)

    @post(
        "/claim",
        opt={OWN_LIMIT: "claims"},  # SHUTBOX_RATE_LIMIT_CLAIMS: codes must not be guessed
        operation_id="claimTransfer",
        summary="Move a player to this device with a transfer code",
        description=(
            "The player behind a live transfer code, with a new token: the old token is 401 "
            "from now on and the code is spent. A client that sends its own `token` may "
            "retry a claim that lost its answer (same code, same token). A code whose check "
            "symbol fails is 400; an unknown, expired or spent code 404. Attempts are "
            "limited per client address (429)."
        ),
        responses=documented(
            problems.BODY,
            problems.MISTYPED_CODE,
            problems.INVALID_CODE,
            problems.WEAK_TOKEN,
            problems.TOKEN_TAKEN,
            problems.UNKNOWN_TRANSFER_CODE,
            problems.LIMITED,
        ),
        status_code=200,
    )
    async def claim(self, data: JSONBody[Claim], services: ServicesDep) -> CreatedPlayer:
        code = problems.parsed_code(data.code, codes.TRANSFER_LENGTH, codes.TRANSFER_CODE)
        try:
            row, token = await use_cases.claim(
                services.pool, code, data.token, services.clock.now()
            )
        except REFUSALS as refusal:
            raise refused(refusal) from None
        return player_created(row, token)

    @get(
        "/me/streak",
        opt={BEFORE_FRAMEWORK: player_read(my_streak)},
        operation_id="getMyStreak",
        summary="The player's daily streak",
        description=(
            "`current` counts consecutive dates back from the latest played one while its "
            "next date is still open to the player or every date closed since is covered by "
            "a freeze (held: `freezes`, spent in date order as dates close); `best` is the "
            "longest ever; `weekly`: consecutive weeks (Monday to Sunday) with a date played."
        ),
        security=BEARER,
        responses=documented(problems.AUTHENTICATED),
    )
    async def streak(self, player: PlayerDep, services: ServicesDep) -> Streak:
        return await my_streak(services, player, {})

    @get(
        "/me/today",
        opt={BEFORE_FRAMEWORK: player_read(my_today)},
        operation_id="getMyToday",
        summary="The player's today: its date, when it closes, and whether the streak is at risk",
        description=(
            "For a phone to schedule its own reminder: the date that is today in the "
            "player's time zone, when it closes for them (local midnight plus the grace, in "
            "UTC), whether it was played, and whether the streak is at risk (not played, "
            "and its closing would spend a freeze or break the streak). Read from the "
            "streak row alone, whatever the history."
        ),
        security=BEARER,
        responses=documented(problems.AUTHENTICATED),
    )
    async def today(self, player: PlayerDep, services: ServicesDep) -> Today:
        return await my_today(services, player, {})

    @get(
        "/me/history",
        operation_id="getMyHistory",
        summary="The player's official daily runs, newest first, with their ranks now",
        description=(
            "Page back with `before` set to the oldest date of the previous page. Dates a "
            "streak freeze covered are items too: `{date, frozen: true}`, with no score."
        ),
        security=BEARER,
        responses=documented(problems.INVALID_REQUEST, problems.AUTHENTICATED),
    )
    async def history(
        self,
        player: PlayerDep,
        services: ServicesDep,
        before: BeforeQuery = None,
        limit: LimitQuery = PAGE_SIZE,
    ) -> list[HistoryEntry]:
        entries = await use_cases.history(
            services.pool,
            services.histograms,
            player,
            services.clock.now(),
            before or date.max,
            limit,
        )
        return [history_entry(entry) for entry in entries]

    @get(
        "/me/stats",
        operation_id="getMyStats",
        summary="The player's statistics over their official daily runs",
        description=(
            "Played, shut and shut rate, the mean score, best possible score and cost of the "
            "player's choices (score - best possible), the score distribution and the "
            "streak, over the official daily runs (not boxes, not practice). Kept as "
            "counters with each run stored: as cheap to read after ten years of play as "
            "after one day. With no official run: `played` 0, the means and the rate null."
        ),
        security=BEARER,
        responses=documented(problems.AUTHENTICATED),
    )
    async def stats(self, player: PlayerDep, services: ServicesDep) -> PlayerStats:
        return stats_out(await use_cases.stats(services.pool, player, services.clock.now()))
