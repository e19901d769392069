"""Players and their bearer tokens (kept only as SHA-256 hashes)."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import datetime

import asyncpg
import msgspec

from service.store.db import QUERIES, Connection


class PlayerRow(msgspec.Struct, frozen=True):
    id: uuid.UUID
    name: str | None
    time_zone: str
    created_at: datetime


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _player(row: asyncpg.Record | None) -> PlayerRow:
    assert row is not None, "the statement returns the player's row"
    return PlayerRow(
        id=row["id"], name=row["name"], time_zone=row["time_zone"], created_at=row["created_at"]
    )


async def create(
    database: asyncpg.Pool | Connection, name: str | None, time_zone: str, now: datetime
) -> tuple[PlayerRow, str]:
    """A new player and its token (returned once, never stored)."""
    token = secrets.token_urlsafe(32)
    row = await database.fetchrow(
        QUERIES.insert_player, uuid.uuid4(), name, time_zone, token_hash(token), now
    )
    return _player(row), token


async def by_token_hashes(pool: asyncpg.Pool, hashes: list[bytes]) -> list[PlayerRow | None]:
    """The player of each token hash (None: no such player), in one query."""
    rows = await pool.fetch(QUERIES.players_by_token, hashes)
    found = {bytes(row["token_hash"]): _player(row) for row in rows}
    return [found.get(digest) for digest in hashes]


async def update(
    pool: asyncpg.Pool,
    player_id: uuid.UUID,
    *,
    set_name: bool,
    name: str | None,
    time_zone: str | None,
) -> PlayerRow:
    row = await pool.fetchrow(QUERIES.update_player, player_id, set_name, name, time_zone)
    return _player(row)
