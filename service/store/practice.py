"""Practice runs of closed dates (the archive): one per player and date, the latest kept.

A practice run is never official: it is kept apart from the daily runs, touches no
streak and no histogram, and keeps what it needs to be listed again (its moves, score
and best possible score); where it would have ranked is rendered from the date's
histogram when it is shown.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

import asyncpg
import msgspec

from service.store.db import QUERIES, Database, row_as


class PracticeRun(msgspec.Struct, frozen=True):
    """A verified practice run of a player, to keep."""

    player_id: uuid.UUID
    day: date
    moves: list[Any]
    score: int
    best_possible: int
    played_at: datetime


class KeptPractice(msgspec.Struct, frozen=True):
    """A practice run as listed."""

    day: date
    score: int
    best_possible: int
    played_at: datetime


async def keep(database: Database, run: PracticeRun) -> None:
    """Keep ``run`` as its player's practice run of its date, in place of the one before
    (in the caller's transaction, when ``database`` is its connection)."""
    await database.execute(
        QUERIES.practice_keep,
        run.player_id,
        run.day,
        run.moves,
        run.score,
        run.best_possible,
        run.played_at,
    )


async def page(
    pool: asyncpg.Pool, player_id: uuid.UUID, before: date, limit: int
) -> list[KeptPractice]:
    """The player's practice runs of dates before ``before``, newest date first: one
    query, along the primary key."""
    rows = await pool.fetch(QUERIES.practice_page, player_id, before, limit)
    return [row_as(KeptPractice, row) for row in rows]
