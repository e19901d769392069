"""Friends: friend codes (one live code a player) and friendships (a row each way), and
the official runs of a date by a player and their friends."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import date, datetime
from typing import Literal

import asyncpg
import msgspec

from service.store.daily import streak_of
from service.store.db import QUERIES, Database, connection_of, row_as
from service.support.calendar import StreakRuns

Befriending = Literal["created", "already", "mine_full", "theirs_full"]
"""How making two players friends went: done now, done before, or refused because one
of them (the player, the code's owner) has as many friends as a player may."""


class Friend(msgspec.Struct, frozen=True):
    id: uuid.UUID
    name: str | None


class FriendRow(msgspec.Struct, frozen=True):
    """A friend with what their streak is made of (``service.support.calendar.streak_at``)."""

    id: uuid.UUID
    name: str | None
    time_zone: str
    closed_before: date | None
    streak: StreakRuns | None
    """None: the friend has never played."""
    played_around: frozenset[date]
    """Which of the dates asked for (those that are today somewhere) they played."""


class BoardRow(msgspec.Struct, frozen=True):
    """An official run of the date by the player or one of their friends."""

    id: uuid.UUID
    name: str | None
    score: int


async def replace_code(database: Database, player_id: uuid.UUID, code: str, now: datetime) -> bool:
    """Make ``code`` the player's friend code, in place of the last one; False when
    another player's code is ``code`` already (nothing changes)."""
    try:
        await database.execute(QUERIES.replace_friend_code, player_id, code, now)
    except asyncpg.UniqueViolationError as clash:
        if clash.constraint_name != "friend_codes_code_key":
            raise
        return False
    return True


async def code_of(database: Database, player_id: uuid.UUID) -> str | None:
    """The player's live friend code; None: they have made none."""
    code: str | None = await database.fetchval(QUERIES.friend_code_of, player_id)
    return code


async def code_owner(database: Database, code: str) -> Friend | None:
    """The player whose live friend code this is; None: no such code (or revoked)."""
    row = await database.fetchrow(QUERIES.friend_code_owner, code)
    return None if row is None else row_as(Friend, row)


async def befriend(
    database: Database, player_id: uuid.UUID, friend_id: uuid.UUID, now: datetime, most: int
) -> Befriending:
    """Make the two players friends, unless they are already or either has ``most``
    friends. Both players' rows are locked first, in the order of their ids: two
    requests over the same two players (each redeeming the other's code, say) take
    turns, and the second finds the first's friendship; no count passes ``most``."""
    async with connection_of(database) as connection, connection.transaction():
        await connection.execute(QUERIES.lock_players, [player_id, friend_id])
        # A statement of its own, after the locks: its snapshot holds what was committed
        # while this one waited for them.
        row = await connection.fetchrow(QUERIES.friendship_counts, player_id, friend_id)
        assert row is not None, "the counts are one row"
        if row["friends"]:
            return "already"
        if row["mine"] >= most:
            return "mine_full"
        if row["theirs"] >= most:
            return "theirs_full"
        await connection.execute(QUERIES.insert_friendship, player_id, friend_id, now)
    return "created"


async def unfriend(database: Database, player_id: uuid.UUID, friend_id: uuid.UUID) -> bool:
    """The two players are friends no more, both ways; False: they were not friends."""
    return bool(await database.fetch(QUERIES.delete_friendship, player_id, friend_id))


async def friends(
    database: Database, player_id: uuid.UUID, around: Sequence[date] = ()
) -> list[FriendRow]:
    """The player's friends, in the order they became friends, and which of the dates
    ``around`` (three at most) each played (one query, a lookup by key a friend and
    date)."""
    if len(around) > 3:
        raise ValueError(f"{len(around)} dates asked of friends, 3 at most")
    dates = (*around, None, None, None)[:3]
    return [
        FriendRow(
            id=row["id"],
            name=row["name"],
            time_zone=row["time_zone"],
            closed_before=row["closed_before"],
            streak=None if row["latest_length"] is None else streak_of(row),
            played_around=frozenset(row["played_around"]),
        )
        for row in await database.fetch(QUERIES.friends, player_id, *dates)
    ]


async def board(database: Database, player_id: uuid.UUID, day: date) -> list[BoardRow]:
    """The official runs of ``day`` by the player and their friends, best first (ties in
    order of submission): one query, a lookup by key a player."""
    return [
        row_as(BoardRow, row) for row in await database.fetch(QUERIES.friends_board, player_id, day)
    ]
