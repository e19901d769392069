"""What daily runs and box runs share: one run per player, recognised by its moves."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime

import asyncpg
import msgspec


def moves_digest(moves: list[object]) -> bytes:
    """SHA-256 of the canonical moves: an identical resubmission has the same digest."""
    return hashlib.sha256(msgspec.json.encode(moves)).digest()


class StoredRun(msgspec.Struct, frozen=True):
    id: uuid.UUID
    score: int
    shut: bool
    moves_digest: bytes
    response: bytes
    submitted_at: datetime


class Accepted(msgspec.Struct, frozen=True):
    """A submission's outcome: a new run (201), or the stored one again (200)."""

    created: bool
    body: bytes


class AlreadyPlayed(Exception):
    """Another run is already the player's run there: ``official_id``; ``key_reused``:
    stored for a request with the Idempotency-Key this one has (an official run's,
    ``service.store.daily.RunKey``)."""

    def __init__(self, official_id: uuid.UUID, key_reused: bool = False) -> None:
        self.official_id = official_id
        self.key_reused = key_reused
        super().__init__(str(official_id))


def stored_run(row: asyncpg.Record) -> StoredRun:
    return StoredRun(
        id=row["id"],
        score=row["score"],
        shut=row["shut"],
        moves_digest=bytes(row["moves_digest"]),
        response=row["response"].encode(),
        submitted_at=row["submitted_at"],
    )


def resubmission(stored: StoredRun | None, digest: bytes) -> Accepted | None:
    """None when nothing is stored yet; the stored body for the identical run;
    ``AlreadyPlayed`` for another run."""
    if stored is None:
        return None
    if stored.moves_digest == digest:
        return Accepted(created=False, body=stored.response)
    raise AlreadyPlayed(stored.id)
