"""Friends (PRODUCT.md §9): a friend code to share, friendships both ways, and the
friends' board of a Daily Dice date."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Final
from uuid import UUID

import msgspec
from litestar import Controller, Response, delete, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import JSONBody, PathParameter
from msgspec import Meta

from service.api import problems
from service.api.daily import REFUSALS as DATE_REFUSALS
from service.api.daily import DatePath, parse_date, refused
from service.api.deps import (
    BEARER,
    AnyRequest,
    PlayerDep,
    Services,
    ServicesDep,
    player_read,
)
from service.api.document import created, documented
from service.api.front.hot import BEFORE_FRAMEWORK
from service.api.front.ratelimit import OWN_LIMIT
from service.api.idempotency import respond_once
from service.api.schemas import CODE_TEXT, NAME, SCORE, SHUT, Streak, streak_out
from service.store.db import Connection
from service.store.players import PlayerRow
from service.support import codes
from service.support.i18n import _, number
from service.usecases import friends

# Read by problems.parsed_code, which answers 400 invalid-code or mistyped-code.
FriendCodePath = Annotated[
    str,
    PathParameter(
        description="A friend code, e.g. 7M3Q-K2ZD2 (any case, spaces and hyphens)",
        schema_extra=CODE_TEXT,
    ),
]
FriendPath = Annotated[
    UUID, PathParameter(description="The friend's player id (a UUID), as GET /v1/friends has it.")
]
_ID: Final = "The player's id (a UUID)."


class FriendCode(msgspec.Struct, frozen=True):
    """The player's friend code: whoever redeems it becomes the player's friend."""

    code: Annotated[
        str,
        Meta(description="The code: 8 symbols and a check symbol (Crockford base32)."),
    ]
    display_code: Annotated[
        str, Meta(description="The code as people read and type it, grouped: e.g. 7M3Q-K2ZD2.")
    ]


class CodeOwner(msgspec.Struct, frozen=True):
    """Who made the friend code."""

    name: Annotated[str | None, Meta(description=NAME)]


class FriendCodeShown(FriendCode, frozen=True):
    """A friend code as whoever holds it is shown it before redeeming it: whose it is."""

    owner: Annotated[
        CodeOwner,
        Meta(description="Who made the code: its owner's name, what they share with it."),
    ]
    yours: Annotated[bool, Meta(description="Whether it is the caller's own friend code.")]


class Redeem(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A friend's code to redeem."""

    code: Annotated[
        str,
        Meta(
            # Read by problems.parsed_code, which answers 400 invalid-code or mistyped-code.
            extra_json_schema=codes.text_schema(),
            description="The friend's code, e.g. 7M3Q-K2ZD2 (any case, spaces and hyphens).",
        ),
    ]


class Friend(msgspec.Struct, frozen=True):
    """A friend of the player."""

    id: Annotated[UUID, Meta(description=_ID)]
    name: Annotated[str | None, Meta(description=NAME)]


class FriendWithStreak(Friend, frozen=True):
    """A friend of the player, with their daily streak."""

    streak: Annotated[Streak, Meta(description="The friend's daily streak now.")]


class BoardPlayer(msgspec.Struct, frozen=True):
    """The official run of the date by the player or one of their friends."""

    id: Annotated[UUID, Meta(description=_ID)]
    name: Annotated[str | None, Meta(description=NAME)]
    score: Annotated[int, Meta(description=SCORE)]
    shut: Annotated[bool, Meta(description=SHUT)]
    rank: Annotated[
        int,
        Meta(
            description="The place on this board: 1 + the runs here with a better score "
            "(the same score, the same place: 1, 1, 3)."
        ),
    ]
    me: Annotated[bool, Meta(description="Whether this is the caller's own run.")]


class FriendsBoard(msgspec.Struct, frozen=True):
    """A date's official runs by the player and their friends."""

    date: Annotated[date, Meta(description="The date, YYYY-MM-DD.")]
    players: Annotated[
        list[BoardPlayer],
        Meta(
            description="The player and the friends with an official run of the date, best "
            f"first (ties in order of submission): {friends.FRIENDS_MOST + 1} at most."
        ),
    ]


_encoder = msgspec.json.Encoder()


async def friends_board(
    services: Services, player: PlayerRow, path: dict[str, str]
) -> FriendsBoard:
    """``GET /v1/daily/{day}/friends``, both ways (``player_read``)."""
    when = parse_date(path["day"])
    launch, now = services.settings.launch_date, services.clock.now()
    try:
        entries = await friends.board(services.daily, launch, player, when, now)
    except DATE_REFUSALS as refusal:
        raise refused(refusal) from None
    return FriendsBoard(
        date=when,
        players=[
            BoardPlayer(
                id=e.id, name=e.name, score=e.score, shut=e.score == 0, rank=e.rank, me=e.me
            )
            for e in entries
        ],
    )


class FriendsController(Controller):
    path = "/v1"
    tags = ["Friends"]

    @post(
        "/players/me/friend-code",
        operation_id="makeFriendCode",
        summary="A new friend code for the player, replacing the last",
        description=(
            "8 random symbols and a check symbol, like a box code: whoever redeems it (POST "
            "/v1/friends) becomes the player's friend. It stays valid until the player makes "
            "a new one, which revokes it (unknown from then on, 404), so a retry is safe "
            "and needs no Idempotency-Key."
        ),
        security=BEARER,
        responses=documented(problems.AUTHENTICATED),
        status_code=201,
    )
    async def make_code(self, player: PlayerDep, services: ServicesDep) -> FriendCode:
        code = await friends.new_friend_code(services.pool, player.id, services.clock.now())
        return FriendCode(code=code, display_code=codes.display(code))

    @get(
        "/players/me/friend-code",
        operation_id="getMyFriendCode",
        summary="The player's current friend code",
        description=(
            "The code the player made last (POST /v1/players/me/friend-code), on any device "
            "the player uses; 404 `no-friend-code` before the first."
        ),
        security=BEARER,
        responses=documented(problems.NO_FRIEND_CODE, problems.AUTHENTICATED),
    )
    async def my_code(self, player: PlayerDep, services: ServicesDep) -> FriendCode:
        try:
            code = await friends.current_code(services.pool, player.id)
        except friends.NoFriendCode:
            raise problems.NO_FRIEND_CODE(
                _("You have no friend code yet: make one to share with your friends.")
            ) from None
        return FriendCode(code=code, display_code=codes.display(code))

    @get(
        "/friend-codes/{code:str}",
        opt={OWN_LIMIT: "friends"},  # SHUTBOX_RATE_LIMIT_FRIENDS: codes must not be guessed
        operation_id="getFriendCode",
        summary="Whose friend code this is, before redeeming it",
        description=(
            "The owner's name (what whoever was given the code is about to share a "
            "friendship with), and whether it is the caller's own code; nothing else of "
            "the owner. Codes are read as POST /v1/friends reads them (400, 404), and the "
            "lookups count against the same limit per client address (429), so that codes "
            "can't be guessed this way either."
        ),
        security=BEARER,
        responses=documented(problems.FRIEND_CODE, problems.AUTHENTICATED),
    )
    async def code_owner(
        self, player: PlayerDep, services: ServicesDep, code: FriendCodePath
    ) -> FriendCodeShown:
        canonical = problems.parsed_code(code, codes.LENGTH, codes.FRIEND_CODE)
        try:
            owner = await friends.code_owner(services.pool, player.id, canonical)
        except friends.UnknownFriendCode:
            raise problems.UNKNOWN_FRIEND_CODE(
                _(
                    "No friend code is {code}: it may have been replaced by a newer one. "
                    "Ask your friend for theirs.",
                    code=codes.display(canonical),
                )
            ) from None
        return FriendCodeShown(
            code=canonical,
            display_code=codes.display(canonical),
            owner=CodeOwner(name=owner.name),
            yours=owner.yours,
        )

    @post(
        "/friends",
        opt={OWN_LIMIT: "friends"},  # SHUTBOX_RATE_LIMIT_FRIENDS: codes must not be guessed
        operation_id="addFriend",
        summary="Become friends with the owner of a friend code",
        description=(
            "Both players are friends from now on (201), both ways; already friends: 200. "
            "Codes are read case-insensitively, ignoring spaces and hyphens; a code whose "
            "check symbol fails is 400, an unknown or revoked code 404, the player's own "
            f"code 422. A player has {friends.FRIENDS_MOST} friends at most: 409 when "
            "either side has that many. Attempts are limited per client address (429), so "
            "that codes can't be guessed. Honours Idempotency-Key."
        ),
        security=BEARER,
        responses={
            **documented(
                problems.CREATING,
                problems.AUTHENTICATED,
                problems.FRIEND_CODE,
                problems.OWN_FRIEND_CODE,
                problems.TOO_MANY_FRIENDS,
            ),
            201: created(Friend, "The new friend"),
            200: ResponseSpec(
                data_container=Friend,
                description="Friends already: the friend",
                generate_examples=False,
            ),
        },
        status_code=201,
    )
    async def add(
        self, request: AnyRequest, data: JSONBody[Redeem], player: PlayerDep, services: ServicesDep
    ) -> Response[bytes]:
        code = problems.parsed_code(data.code, codes.LENGTH, codes.FRIEND_CODE)

        async def produce(connection: Connection | None) -> tuple[int, bytes]:
            database = connection or services.pool
            try:
                done = await friends.befriend(database, player.id, code, services.clock.now())
            except friends.UnknownFriendCode:
                raise problems.UNKNOWN_FRIEND_CODE(
                    _(
                        "No friend code is {code}: it may have been replaced by a newer one. "
                        "Ask your friend for theirs.",
                        code=codes.display(code),
                    )
                ) from None
            except friends.OwnFriendCode:
                raise problems.OWN_FRIEND_CODE(
                    _("This is your own friend code: share it with a friend to redeem.")
                ) from None
            except friends.TooManyFriends as full:
                most = number(friends.FRIENDS_MOST)
                raise problems.TOO_MANY_FRIENDS(
                    _("You have {most} friends already: remove one to add another.", most=most)
                    if full.mine
                    else _("Your friend has {most} friends already.", most=most)
                ) from None
            friend = Friend(id=done.friend.id, name=done.friend.name)
            return (201 if done.created else 200), _encoder.encode(friend)

        return await respond_once(request, services, f"player:{player.id}", produce)

    @get(
        "/friends",
        operation_id="listFriends",
        summary="The player's friends, with their streaks",
        description=(
            f"In the order they became friends; {friends.FRIENDS_MOST} at most (the most "
            "friends a player may have), so never paged."
        ),
        security=BEARER,
        responses=documented(problems.AUTHENTICATED),
    )
    async def list_friends(
        self, player: PlayerDep, services: ServicesDep
    ) -> list[FriendWithStreak]:
        found = await friends.friends_of(services.pool, player.id, services.clock.now())
        return [FriendWithStreak(id=f.id, name=f.name, streak=streak_out(f.streak)) for f in found]

    @delete(
        "/friends/{friend_id:str}",
        operation_id="removeFriend",
        summary="No longer friends, both ways",
        description="An id that is not one of the player's friends is 404.",
        security=BEARER,
        responses=documented(
            problems.INVALID_REQUEST, problems.NOT_A_FRIEND, problems.AUTHENTICATED
        ),
        status_code=204,
    )
    async def remove(self, player: PlayerDep, services: ServicesDep, friend_id: FriendPath) -> None:
        try:
            await friends.unfriend(services.pool, player.id, friend_id)
        except friends.NotFriends:
            raise problems.NOT_A_FRIEND(
                _("No friend of yours has the id {id}.", id=str(friend_id))
            ) from None

    @get(
        "/daily/{day:str}/friends",
        opt={BEFORE_FRAMEWORK: player_read(friends_board)},
        operation_id="getFriendsBoard",
        summary="The date's official runs by the player and their friends, best first",
        description=(
            "Shown as the date's leaderboard is: to a player who has played the date, or to "
            "anyone once it has closed everywhere on Earth; otherwise 403. Ties share a "
            "place; `me` marks the caller's own run."
        ),
        security=BEARER,
        responses=documented(problems.DATE, problems.LEADERBOARD_HIDDEN, problems.AUTHENTICATED),
    )
    async def board(self, player: PlayerDep, services: ServicesDep, day: DatePath) -> FriendsBoard:
        return await friends_board(services, player, {"day": day})
