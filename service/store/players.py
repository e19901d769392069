"""Players, their bearer tokens (kept only as SHA-256 hashes), time zone changes and
transfer codes (kept only as hashes too)."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import date, datetime, timedelta
from typing import Final

import asyncpg
import msgspec

from service.store.db import QUERIES, Connection, connection_of
from service.support.i18n import Language

TIME_ZONE_CHANGE_EVERY: Final = timedelta(hours=24)
TRANSFER_CODE_VALID_FOR: Final = timedelta(minutes=15)


class PlayerRow(msgspec.Struct, frozen=True):
    """A player as the queries answer one (``player_row`` in ``sql/functions``: the row,
    as JSON, but its token's hash): its fields are the columns read, named nowhere else."""

    id: uuid.UUID
    name: str | None
    time_zone: str
    created_at: datetime
    time_zone_changed_at: datetime | None = None
    closed_before: date | None = None
    """Every date before this one has closed for the player, whatever their time zone."""
    language: Language | None = None


class TokenTaken(Exception):
    """The client's token already belongs to a player (``player``)."""

    def __init__(self, player: PlayerRow) -> None:
        self.player = player


class TimeZoneChangeTooSoon(Exception):
    """The time zone changed less than 24 hours ago; it may change again at ``possible_at``."""

    def __init__(self, possible_at: datetime) -> None:
        self.possible_at = possible_at


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def new_token() -> str:
    """A bearer token: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


_player_row = msgspec.json.Decoder(PlayerRow)
_players = msgspec.json.Decoder(list[PlayerRow | None])


def _player(row: str | None) -> PlayerRow:
    assert row is not None, "the statement returns the player's row"
    return _player_row.decode(row)


async def create(
    database: asyncpg.Pool | Connection,
    name: str | None,
    time_zone: str,
    now: datetime,
    token: str,
) -> PlayerRow:
    """A new player behind ``token`` (stored only as its hash); ``TokenTaken`` when the
    token is already a player's (the client's own retry: it holds the token)."""
    digest = token_hash(token)
    async with connection_of(database) as connection:
        row = await connection.fetchval(
            QUERIES.insert_player, uuid.uuid4(), name, time_zone, digest, now
        )
        if row is None:
            [existing] = _players.decode(
                await connection.fetchval(QUERIES.players_by_token, [digest])
            )
            assert existing is not None, "the token is taken: its player exists"
            raise TokenTaken(existing)
    return _player(row)


async def by_token_hashes(pool: asyncpg.Pool, hashes: list[bytes]) -> list[PlayerRow | None]:
    """The player of each token hash (None: no such player), in one query."""
    return _players.decode(await pool.fetchval(QUERIES.players_by_token, hashes))


async def update(
    pool: asyncpg.Pool,
    player_id: uuid.UUID,
    now: datetime,
    *,
    set_name: bool,
    name: str | None,
    time_zone: str | None,
    closed_before: date,
    language: Language | None = None,
) -> PlayerRow:
    """Change the name (when ``set_name``), the time zone and the language (when given), in one
    statement. A new time zone at most once in 24 hours (else ``TimeZoneChangeTooSoon``,
    and nothing changes); dates before ``closed_before`` stay closed for good."""
    row = await pool.fetchval(
        QUERIES.update_player,
        player_id,
        set_name,
        name,
        time_zone,
        now,
        closed_before,
        now - TIME_ZONE_CHANGE_EVERY,
        language,
    )
    if row is None:
        changed = await pool.fetchval(QUERIES.time_zone_changed_at, player_id)
        raise TimeZoneChangeTooSoon(changed + TIME_ZONE_CHANGE_EVERY)
    return _player(row)


def transfer_code_hash(code: str) -> bytes:
    return hashlib.sha256(b"transfer\0" + code.encode()).digest()


async def offer_transfer(
    pool: asyncpg.Pool, player_id: uuid.UUID, code: str, now: datetime
) -> datetime:
    """Keep the hash of a new transfer code for the player (replacing any earlier one);
    returns when it expires."""
    expires_at = now + TRANSFER_CODE_VALID_FOR
    await pool.execute(QUERIES.offer_transfer, player_id, transfer_code_hash(code), expires_at)
    return expires_at


async def claim(pool: asyncpg.Pool, code: str, token: str, now: datetime) -> PlayerRow | None:
    """Move the player behind a live transfer code to ``token``: the old token stops at
    once and the code is spent. The same claim again (same code, same token) finds the
    player again, so a client that lost the answer can retry. None: no such code.
    Raises ``TokenInUse`` for a token another player has."""
    digest = token_hash(token)
    try:
        async with pool.acquire() as connection, connection.transaction():
            player_id = await connection.fetchval(
                QUERIES.spend_transfer, transfer_code_hash(code), now, digest
            )
            if player_id is None:
                return None
            row = await connection.fetchval(QUERIES.retoken_player, player_id, digest)
    except asyncpg.UniqueViolationError:
        raise TokenInUse from None
    return _player(row)


class TokenInUse(Exception):
    """The token a claim asks for belongs to another player."""
