"""Idempotency keys of creating POSTs, in PostgreSQL so they hold across processes.

The same key with the same request returns the first (successful) response again,
byte for byte; the same key with another request is refused. A kept response never
holds a secret (a bearer token, a transfer code): those are added by the handler
for the client that sent them. Keys live 24 hours.
Requests with the same key wait for each other (an advisory lock), so a retry that
races the original never creates twice. The request's own work runs on the
connection that holds the lock, in the same transaction as its key: it never waits
for a second connection from a pool its waiting peers may have drained (``once``).
An official run's key is not kept here: the run is one a player and date, so its row
keeps its key (``service.store.daily.RunKey``).
Error responses are not kept: they store nothing, and the same request gets the same
error again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Final, NamedTuple

import asyncpg

from service.store.db import QUERIES, Connection

KEEP_FOR: Final = timedelta(hours=24)


class KeyReused(Exception):
    """The key was first used with another request."""


class Kept(NamedTuple):
    """A response as kept for its key: its status, its body and the language its text
    is written in (None: it has none)."""

    status: int
    body: bytes
    language: str | None


def request_digest(method: str, path: str, body: bytes) -> bytes:
    return hashlib.sha256(b"\0".join((method.encode(), path.encode(), body))).digest()


async def once(
    pool: asyncpg.Pool,
    now: datetime,
    scope: str,
    key: str,
    digest: bytes,
    produce: Callable[[Connection], Awaitable[Kept]],
) -> tuple[Kept, bool]:
    """The response to this request: the one first given for ``key`` (and True), or a
    new one (and False)."""
    cutoff = now - KEEP_FOR
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute(QUERIES.idempotency_lock, scope, key)
        first = await connection.fetchrow(QUERIES.idempotency_get, scope, key, cutoff)
        if first is not None:
            return _as_kept(first, digest), True
        kept = await produce(connection)
        await connection.execute(QUERIES.idempotency_put, scope, key, digest, *kept, now)
        return kept, False


def _as_kept(row: asyncpg.Record, digest: bytes) -> Kept:
    if row["request_digest"] != digest:
        raise KeyReused
    return Kept(row["status"], bytes(row["body"]), row["language"])


async def expire(pool: asyncpg.Pool, now: datetime) -> None:
    await pool.execute(QUERIES.idempotency_expire, now - KEEP_FOR)
