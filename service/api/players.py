"""Players: created by the app on first launch, identified by a bearer token."""

from __future__ import annotations

import unicodedata
import uuid
from datetime import date, datetime
from functools import cache
from typing import Annotated, Any
from zoneinfo import available_timezones

import asyncpg
import msgspec
from litestar import Controller, Request, Response, get, patch, post
from litestar.di import NamedDependency
from litestar.params import JSONBody, QueryParameter
from msgspec import UNSET, Meta, UnsetType

from service.api.deps import BEARER, Services
from service.api.idempotency import respond_once
from service.api.problems import documented, problem
from service.api.schemas import Streak, streak_out
from service.calendar import local_today
from service.store import daily, players
from service.store.db import Database
from service.store.players import PlayerRow
from service.store.ranks import Rank

NameIn = Annotated[str, Meta(max_length=200, description="Shown to friends; 1..40 characters.")]
TimeZoneIn = Annotated[str, Meta(max_length=64, description="An IANA time zone, e.g. Europe/Oslo.")]
NAME_MAX = 40


class NewPlayer(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: NameIn | None = None
    time_zone: TimeZoneIn = "UTC"


class PlayerChange(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: NameIn | UnsetType | None = UNSET
    time_zone: TimeZoneIn | UnsetType = UNSET


class CreatedPlayer(msgspec.Struct, frozen=True):
    id: uuid.UUID
    name: str | None
    time_zone: str
    token: str


class Player(msgspec.Struct, frozen=True):
    id: uuid.UUID
    name: str | None
    time_zone: str
    created_at: datetime


class PlayerWithStreak(Player, frozen=True):
    streak: Streak


class HistoryEntry(msgspec.Struct, frozen=True):
    date: date
    score: int
    shut: bool
    rank: Rank


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def checked_time_zone(time_zone: str) -> str:
    if time_zone not in _zones():
        raise problem(
            422, "unknown-time-zone",
            f"time_zone: {time_zone!r} is not an IANA time zone (for example Europe/Oslo or UTC)",
        )  # fmt: skip
    return time_zone


def checked_name(name: str | None) -> str | None:
    """A name people can read: Unicode-normalised (NFC), trimmed, no control characters."""
    if name is None:
        return None
    cleaned = unicodedata.normalize("NFC", name).strip()
    if any(unicodedata.category(c) in {"Cc", "Cf", "Cs", "Co", "Cn"} for c in cleaned):
        raise problem(422, "invalid-name", "name: control and invisible characters are not allowed")
    if not 1 <= len(cleaned) <= NAME_MAX:
        raise problem(422, "invalid-name", f"name: 1 to {NAME_MAX} characters, please")
    return cleaned


async def player_streak(pool: asyncpg.Pool, player: PlayerRow, now: datetime) -> Streak:
    runs, played_today = await daily.streak_row(pool, player.id, local_today(now, player.time_zone))
    return streak_out(runs, played_today, now, player.time_zone)


def player_out(row: PlayerRow) -> Player:
    return Player(id=row.id, name=row.name, time_zone=row.time_zone, created_at=row.created_at)


class PlayersController(Controller):
    path = "/v1/players"
    tags = ["Players"]

    @post(
        "/",
        operation_id="createPlayer",
        summary="Create a player",
        description=(
            "The bearer token is shown this once: the server keeps only its hash. Honours "
            "Idempotency-Key (use a random key, e.g. a UUID: a retry with it gets this "
            "response again)."
        ),
        responses=documented(422),
        status_code=201,
    )
    async def create(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[NewPlayer],
        services: NamedDependency[Services],
    ) -> Response[CreatedPlayer]:
        name, time_zone = checked_name(data.name), checked_time_zone(data.time_zone)

        async def produce(database: Database) -> tuple[int, bytes]:
            row, token = await players.create(database, name, time_zone, services.clock.now())
            created = CreatedPlayer(id=row.id, name=row.name, time_zone=row.time_zone, token=token)
            return 201, msgspec.json.encode(created)

        return await respond_once(request, services, "players", produce)  # type: ignore[return-value]

    @get(
        "/me",
        operation_id="getMe",
        summary="The player behind the token, with their streak",
        security=BEARER,
        responses=documented(401),
    )
    async def me(
        self,
        player: NamedDependency[PlayerRow],
        services: NamedDependency[Services],
    ) -> PlayerWithStreak:
        streak = await player_streak(services.pool, player, services.clock.now())
        return PlayerWithStreak(**msgspec.structs.asdict(player_out(player)), streak=streak)

    @patch(
        "/me",
        operation_id="updateMe",
        summary="Change the player's name or time zone",
        description="`name: null` clears the name; an unknown time zone is 422.",
        security=BEARER,
        responses=documented(401, 422),
    )
    async def update(
        self,
        data: JSONBody[PlayerChange],
        player: NamedDependency[PlayerRow],
        services: NamedDependency[Services],
    ) -> Player:
        row = await players.update(
            services.pool,
            player.id,
            set_name=data.name is not UNSET,
            name=checked_name(data.name) if not isinstance(data.name, UnsetType) else None,
            time_zone=(
                checked_time_zone(data.time_zone)
                if not isinstance(data.time_zone, UnsetType)
                else None
            ),
        )
        return player_out(row)

    @get(
        "/me/streak",
        operation_id="getMyStreak",
        summary="The player's daily streak",
        description=(
            "`current` counts consecutive dates back from the latest played one while its "
            "next date is still open to the player; `best` is the longest ever."
        ),
        security=BEARER,
        responses=documented(401),
    )
    async def streak(
        self,
        player: NamedDependency[PlayerRow],
        services: NamedDependency[Services],
    ) -> Streak:
        return await player_streak(services.pool, player, services.clock.now())

    @get(
        "/me/history",
        operation_id="getMyHistory",
        summary="The player's official daily runs, newest first, with their ranks now",
        description="Page back with `before` set to the oldest date of the previous page.",
        security=BEARER,
        responses=documented(401),
    )
    async def history(
        self,
        player: NamedDependency[PlayerRow],
        services: NamedDependency[Services],
        before: Annotated[
            date | None, QueryParameter(description="Only dates before this one (YYYY-MM-DD).")
        ] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=100, description="Page size.")] = 30,
    ) -> list[HistoryEntry]:
        rows = await daily.history(services.pool, player.id, before or date.max, limit)
        return [
            HistoryEntry(
                date=r["day"],
                score=r["score"],
                shut=r["shut"],
                rank=await services.leaderboards.rank(r["day"], r["score"]),
            )
            for r in rows
        ]
