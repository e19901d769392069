"""Playing together (PRODUCT.md §9): friend codes, friendships both ways, the friends
and their streaks, and the friends' board of a Daily Dice date, shown as the date's
leaderboard is (the use cases; the API renders them)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Final, NamedTuple

import msgspec

from service.store import friends
from service.store.db import Database
from service.store.friends import Friend
from service.store.players import PlayerRow
from service.support import codes
from service.support.calendar import local_today
from service.support.places import places
from service.usecases.daily import DailyRuns, check_begun, check_ranking_shown
from service.usecases.players import StreakNow, streak_now

FRIENDS_MOST: Final = 200
"""The most friends a player may have."""
_CODE_ATTEMPTS: Final = 5


class UnknownFriendCode(Exception):
    """No live friend code is this one: never made, or replaced since."""


class NoFriendCode(Exception):
    """The player has made no friend code yet."""


class OwnFriendCode(Exception):
    """The player's own friend code: nobody is their own friend."""


class TooManyFriends(Exception):
    """One of the two has ``FRIENDS_MOST`` friends already: the player (``mine``) or the
    code's owner."""

    def __init__(self, mine: bool) -> None:
        self.mine = mine


class NotFriends(Exception):
    """The two players are not friends (or the other is no player at all)."""


class Befriended(msgspec.Struct, frozen=True):
    friend: Friend
    created: bool
    """False: they were friends already."""


class BoardEntry(msgspec.Struct, frozen=True):
    """A run on a date's friends' board."""

    id: uuid.UUID
    name: str | None
    score: int
    rank: int
    """1 + the runs of the board with a better score: the same score, the same place."""
    me: bool


async def new_friend_code(database: Database, player_id: uuid.UUID, now: datetime) -> str:
    """A fresh friend code for the player (as random as a box code), which replaces the
    last one: from now on that one is unknown. A clash of random codes is retried."""
    for _ in range(_CODE_ATTEMPTS):
        code = codes.new_code()
        if await friends.replace_code(database, player_id, code, now):
            return code
    raise RuntimeError("no free friend code after several attempts")


async def current_code(database: Database, player_id: uuid.UUID) -> str:
    """The player's live friend code, on any device; ``NoFriendCode`` before the first."""
    code = await friends.code_of(database, player_id)
    if code is None:
        raise NoFriendCode
    return code


class CodeOwner(msgspec.Struct, frozen=True):
    """Whose a friend code is, as someone holding it is told before redeeming it: the
    owner's name (what the owner shares with it), and whether it is the asker's own."""

    name: str | None
    yours: bool


async def code_owner(database: Database, player_id: uuid.UUID, code: str) -> CodeOwner:
    """Whose live friend code ``code`` (a canonical code) is; ``UnknownFriendCode``."""
    owner = await friends.code_owner(database, code)
    if owner is None:
        raise UnknownFriendCode
    return CodeOwner(name=owner.name, yours=owner.id == player_id)


async def befriend(
    database: Database, player_id: uuid.UUID, code: str, now: datetime
) -> Befriended:
    """The player and the owner of the friend code (a canonical code, ``codes.parse``)
    are friends from now on, both ways. Raises ``UnknownFriendCode``, ``OwnFriendCode``
    or ``TooManyFriends``; nothing is stored then."""
    owner = await friends.code_owner(database, code)
    if owner is None:
        raise UnknownFriendCode
    if owner.id == player_id:
        raise OwnFriendCode
    done = await friends.befriend(database, player_id, owner.id, now, FRIENDS_MOST)
    if done == "mine_full" or done == "theirs_full":
        raise TooManyFriends(mine=done == "mine_full")
    return Befriended(friend=owner, created=done == "created")


class FriendNow(NamedTuple):
    """A friend and their daily streak now."""

    id: uuid.UUID
    name: str | None
    streak: StreakNow


async def friends_of(database: Database, player_id: uuid.UUID, now: datetime) -> list[FriendNow]:
    """The player's friends (``FRIENDS_MOST`` at most), in the order they became friends."""
    utc_today = now.astimezone(UTC).date()
    # Today in any time zone (UTC-12 to UTC+14) is one of these.
    around = [utc_today + timedelta(days=n) for n in (-1, 0, 1)]
    found = []
    for row in await friends.friends(database, player_id, around):
        played_today = local_today(now, row.time_zone) in row.played_around
        streak = streak_now(row.streak, played_today, now, row.time_zone, row.closed_before)
        found.append(FriendNow(row.id, row.name, streak))
    return found


async def unfriend(database: Database, player_id: uuid.UUID, friend_id: uuid.UUID) -> None:
    """The two are friends no more, both ways; ``NotFriends`` if they were not."""
    if not await friends.unfriend(database, player_id, friend_id):
        raise NotFriends


async def board(
    runs: DailyRuns, launch: date, player: PlayerRow, day: date, now: datetime
) -> list[BoardEntry]:
    """The official runs of ``day`` by the player and their friends, best first, each
    with its place on this board (ties share it: 1, 1, 3). Shown as the date's
    leaderboard is: ``UnknownDate``, ``RankingHidden`` (``daily.check_ranking_shown``)."""
    check_begun(day, launch, now)

    async def viewer() -> PlayerRow:
        return player

    # The board has the player's own run when they played: read first, it tells.
    rows = await friends.board(runs.pool, player.id, day)
    await check_ranking_shown(runs, day, now, viewer, lambda me: any(r.id == me.id for r in rows))
    return [
        BoardEntry(id=row.id, name=row.name, score=row.score, rank=place, me=row.id == player.id)
        for row, place in zip(rows, places([row.score for row in rows]))
    ]
