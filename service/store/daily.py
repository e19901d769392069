"""Official daily runs and streaks, in one transaction per submission."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date, datetime

import asyncpg
import msgspec

from service.calendar import StreakRuns, streak_runs
from service.store.db import QUERIES, Connection
from service.store.ranks import Leaderboards, Rank, rank_from
from service.store.runs import Accepted, StoredRun, moves_digest, resubmission, stored_run


class NewRun(msgspec.Struct, frozen=True):
    """What a verified submission stores."""

    player_id: uuid.UUID
    day: date
    sequence_id: str
    moves: list[object]
    score: int
    shut: bool
    best_possible: int
    submitted_at: datetime

    @property
    def moves_digest(self) -> bytes:
        return moves_digest(self.moves)


async def official_run(pool: asyncpg.Pool, player_id: uuid.UUID, day: date) -> StoredRun | None:
    row = await pool.fetchrow(QUERIES.daily_run, player_id, day)
    return None if row is None else stored_run(row)


async def submit(
    connection: Connection,
    leaderboards: Leaderboards,
    run: NewRun,
    respond: Callable[[uuid.UUID, StreakRuns, set[date], Rank], bytes],
) -> Accepted:
    """Store ``run`` as the player's official run of its date, unless one is stored.

    ``respond`` builds the 201 body from the run id, the streak runs, the dates played
    and the rank (kept with the run, for identical resubmissions).
    The identical run again: the stored body. Another run: ``AlreadyPlayed``.
    """
    digest = run.moves_digest
    async with connection.transaction():
        await connection.execute(QUERIES.lock_player, run.player_id)
        rows = await connection.fetch(QUERIES.player_runs, run.player_id, run.day)
        this_day = next((r for r in rows if r["day"] == run.day), None)
        again = resubmission(this_day, digest)
        if again is not None:
            return again
        played = {r["day"] for r in rows if r["day"] is not None} | {run.day}
        runs = streak_runs(played)
        assert runs is not None
        better, worse, others = await leaderboards.counts(
            run.day, run.score, connection, epoch=rows[0]["epoch"]
        )
        run_id = uuid.uuid4()
        body = respond(run_id, runs, played, rank_from(better, worse, others + 1))
        inserted = await connection.fetchval(
            QUERIES.insert_daily_run,
            run_id,
            run.player_id,
            run.day,
            run.sequence_id,
            run.moves,
            digest,
            run.score,
            run.shut,
            run.best_possible,
            body.decode(),
            run.submitted_at,
            runs.latest_length,
            runs.best,
            runs.last_played,
        )
        assert inserted == run.player_id, "the player lock and the check above rule out a conflict"
    await leaderboards.record(run.day, run.player_id, run.score, connection)
    return Accepted(created=True, body=body)


async def streak_row(
    pool: asyncpg.Pool, player_id: uuid.UUID, today: date
) -> tuple[StreakRuns | None, bool]:
    """The player's stored streak runs, and whether they played ``today``."""
    row = await pool.fetchrow(QUERIES.streak, player_id, today)
    if row is None:
        return None, False
    return StreakRuns(row["latest_length"], row["best"], row["last_played"]), row["played_day"]


async def history(
    pool: asyncpg.Pool, player_id: uuid.UUID, before: date, limit: int
) -> list[asyncpg.Record]:
    return list(await pool.fetch(QUERIES.history, player_id, before, limit))


async def histogram(pool: asyncpg.Pool, day: date) -> dict[int, int]:
    """How many official runs of the date ended on each score."""
    return {r["score"]: r["players"] for r in await pool.fetch(QUERIES.day_histogram, day)}


async def top(pool: asyncpg.Pool, day: date, limit: int) -> list[asyncpg.Record]:
    return list(await pool.fetch(QUERIES.day_top, day, limit))
