"""Official daily runs and streaks: each run stored with its player's streak in one
transaction, several submissions to a transaction under load."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date, datetime

import asyncpg
import msgspec

from service.calendar import StreakRuns, streak_runs
from service.store.db import QUERIES, UNAVAILABLE, Connection
from service.store.ranks import Leaderboards, Rank, rank_from
from service.store.runs import (
    Accepted,
    AlreadyPlayed,
    StoredRun,
    moves_digest,
    resubmission,
    stored_run,
)


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


async def official_run(pool: asyncpg.Pool, player_id: uuid.UUID, day: date) -> StoredRun | None:
    row = await pool.fetchrow(QUERIES.daily_run, player_id, day)
    return None if row is None else stored_run(row)


class Submission(msgspec.Struct, frozen=True):
    """A verified run to store, and how to build its 201 body from the run id, the
    streak runs, the dates played and the rank (kept with the run, for identical
    resubmissions)."""

    run: NewRun
    respond: Callable[[uuid.UUID, StreakRuns, set[date], Rank], bytes]


Outcome = Accepted | AlreadyPlayed


async def submit_batch(
    pool: asyncpg.Pool, leaderboards: Leaderboards, submissions: list[Submission]
) -> list[Accepted | Exception]:
    """``submit_all`` on a connection of its own (what the request batcher calls), then
    the new runs into the Redis leaderboards. A batch that fails for another reason
    than an unreachable database is tried again one submission at a time, so that a
    submission that cannot be stored fails alone."""
    async with pool.acquire() as connection:
        outcomes: list[Accepted | Exception]
        try:
            outcomes = list(await submit_all(connection, leaderboards, submissions))
        except UNAVAILABLE:
            raise
        except Exception:
            if len(submissions) == 1:
                raise
            outcomes = [await _alone(connection, leaderboards, one) for one in submissions]
    await leaderboards.record_all(
        [
            (one.run.day, one.run.player_id, one.run.score)
            for one, outcome in zip(submissions, outcomes)
            if isinstance(outcome, Accepted) and outcome.created
        ]
    )
    return outcomes


async def _alone(
    connection: Connection, leaderboards: Leaderboards, submission: Submission
) -> Accepted | Exception:
    try:
        [outcome] = await submit_all(connection, leaderboards, [submission])
    except Exception as error:
        return error
    return outcome


async def submit(
    connection: Connection, leaderboards: Leaderboards, submission: Submission
) -> Accepted:
    """One submission on the caller's connection, in its transaction: the caller adds
    a created run to the Redis leaderboard once that transaction has committed (a
    member for a run rolled back would throw the leaderboard's counts off)."""
    [outcome] = await submit_all(connection, leaderboards, [submission])
    if isinstance(outcome, AlreadyPlayed):
        raise outcome
    return outcome


async def submit_all(
    connection: Connection, leaderboards: Leaderboards, submissions: list[Submission]
) -> list[Outcome]:
    """Store each run as its player's official run of its date, unless one is stored,
    in one transaction, in order (the Redis leaderboards are the caller's to update).

    For each: ``Accepted`` (created, or the stored body for the identical run again),
    or ``AlreadyPlayed`` for another run of a played date.
    """
    runs = [submission.run for submission in submissions]
    player_ids = sorted({run.player_id for run in runs})
    days = sorted({run.day for run in runs})
    outcomes: list[Outcome] = []
    created: list[_Row] = []
    async with connection.transaction():
        # Serialise each player's submissions across processes (their streak is
        # computed from their runs); the query below then sees every run committed
        # by the submissions that held the lock before.
        await connection.execute(QUERIES.lock_players, player_ids)
        rows = await connection.fetch(
            QUERIES.players_runs, [run.player_id for run in runs], [run.day for run in runs]
        )
        played: dict[uuid.UUID, set[date]] = {player_id: set() for player_id in player_ids}
        stored: dict[tuple[uuid.UUID, date], StoredRun] = {}
        for row in rows:
            played[row["player_id"]].add(row["day"])
            if row["response"] is not None:
                stored[(row["player_id"], row["day"])] = stored_run(row)
        counts = {
            day: await leaderboards.counts_of(
                day, {run.score for run in runs if run.day == day}, connection
            )
            for day in days
        }
        for submission, run in zip(submissions, runs):
            key = (run.player_id, run.day)
            digest = moves_digest(run.moves)
            earlier = stored.get(key)
            if earlier is not None:
                outcomes.append(_again(earlier, digest))
                continue
            played[run.player_id].add(run.day)
            streak = streak_runs(played[run.player_id])
            assert streak is not None
            better, worse, others = counts[run.day].before_adding(run.score)
            run_id = uuid.uuid4()
            body = submission.respond(
                run_id, streak, set(played[run.player_id]), rank_from(better, worse, others + 1)
            )
            stored[key] = StoredRun(run_id, run.score, run.shut, digest, body, run.submitted_at)
            created.append(_Row(run_id, run, digest, streak, body))
            outcomes.append(Accepted(created=True, body=body))
        if created:
            await _insert(connection, created)
    return outcomes


def _again(earlier: StoredRun, digest: bytes) -> Outcome:
    try:
        again = resubmission(earlier, digest)
    except AlreadyPlayed as played:
        return played
    assert again is not None
    return again


class _Row(msgspec.Struct, frozen=True):
    """A run to insert: its id, the run, its digest, the streak after it, its 201 body."""

    id: uuid.UUID
    run: NewRun
    digest: bytes
    streak: StreakRuns
    body: bytes


async def _insert(connection: Connection, rows: list[_Row]) -> None:
    """The new runs and their players' streaks after them, in one statement (a
    player's last run of the batch carries their streak)."""
    streaks = {row.run.player_id: row.streak for row in rows}
    await connection.execute(
        QUERIES.insert_daily_runs,
        [row.id for row in rows],
        [row.run.player_id for row in rows],
        [row.run.day for row in rows],
        [row.run.sequence_id for row in rows],
        [msgspec.json.encode(row.run.moves).decode() for row in rows],
        [row.digest for row in rows],
        [row.run.score for row in rows],
        [row.run.shut for row in rows],
        [row.run.best_possible for row in rows],
        [row.body.decode() for row in rows],
        [row.run.submitted_at for row in rows],
        list(streaks),
        [streak.latest_length for streak in streaks.values()],
        [streak.best for streak in streaks.values()],
        [streak.last_played for streak in streaks.values()],
    )


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


class DayBoard(msgspec.Struct, frozen=True):
    """A date's official runs at one moment: how many players ended on each score, and
    the best runs, best first, as (name, score)."""

    histogram: dict[int, int]
    top: list[tuple[str | None, int]]

    def rank_of(self, score: int) -> int:
        """The position of a score (ties share it): one after every better score."""
        return 1 + sum(players for other, players in self.histogram.items() if other < score)


async def leaderboard(pool: asyncpg.Pool, day: date, limit: int) -> DayBoard:
    """The histogram and the ``limit`` best runs of a date, read in one statement: a run
    committed meanwhile is in both or in neither."""
    row = await pool.fetchrow(QUERIES.day_leaderboard, day, limit)
    assert row is not None  # an aggregate: always one row
    return DayBoard(
        histogram=dict(zip(row["scores"], row["players"])),
        top=list(zip(row["top_names"], row["top_scores"])),
    )
