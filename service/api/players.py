"""Players: created by the app on first launch, identified by a bearer token."""

from __future__ import annotations

import unicodedata
import uuid
from datetime import datetime
from functools import cache
from typing import Annotated
from zoneinfo import available_timezones

import asyncpg
import msgspec
from litestar import Controller, get, patch, post
from litestar.di import NamedDependency
from litestar.params import JSONBody
from msgspec import UNSET, Meta, UnsetType

from service.api.deps import BEARER
from service.api.problems import documented, problem
from service.clock import Clock
from service.store import players
from service.store.players import PlayerRow

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


def player_out(row: PlayerRow) -> Player:
    return Player(id=row.id, name=row.name, time_zone=row.time_zone, created_at=row.created_at)


class PlayersController(Controller):
    path = "/v1/players"
    tags = ["Players"]

    @post(
        "/",
        operation_id="createPlayer",
        summary="Create a player",
        description="The bearer token is shown this once: the server keeps only its hash.",
        responses=documented(422),
    )
    async def create(
        self,
        data: JSONBody[NewPlayer],
        pool: NamedDependency[asyncpg.Pool],
        clock: NamedDependency[Clock],
    ) -> CreatedPlayer:
        row, token = await players.create(
            pool, checked_name(data.name), checked_time_zone(data.time_zone), clock.now()
        )
        return CreatedPlayer(id=row.id, name=row.name, time_zone=row.time_zone, token=token)

    @get(
        "/me",
        operation_id="getMe",
        summary="The player behind the token",
        security=BEARER,
        responses=documented(401),
    )
    async def me(self, player: NamedDependency[PlayerRow]) -> Player:
        return player_out(player)

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
        pool: NamedDependency[asyncpg.Pool],
    ) -> Player:
        row = await players.update(
            pool,
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
