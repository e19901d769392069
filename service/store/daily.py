"""Official daily runs and streaks: each run stored with its player's streak and its
date's histogram in one transaction, several submissions to a transaction under load.

A run is stored compactly: its moves, its score, and its rank and streak as they stood
at submission. Its answer is rendered from those (``service.daily``), never kept.
"""

from __future__ import annotations

import random
import uuid
from datetime import date, datetime, timedelta
from typing import Any, Final

import asyncpg
import msgspec

from service.calendar import StreakRuns, current_streak, local_today, streak_after, streak_runs
from service.store.db import QUERIES, UNAVAILABLE, Connection, row_as
from service.store.ranks import DayCounts, Histogram, Histograms, Rank, rank_from, rank_in
from service.store.runs import AlreadyPlayed

COUNTER_SHARDS: Final = 16
"""Counter rows per (date, score): concurrent transactions rarely update the same one."""
PARTITIONS_AHEAD: Final = timedelta(days=62)


class NewRun(msgspec.Struct, frozen=True):
    """What a verified submission stores, and the player's time zone at submission
    (the streak shown with it is the player's own)."""

    player_id: uuid.UUID
    day: date
    moves: list[Any]
    score: int
    best_possible: int
    submitted_at: datetime
    time_zone: str


class DailyRun(msgspec.Struct, frozen=True):
    """An official run as stored: what its answer is rendered from."""

    id: uuid.UUID
    player_id: uuid.UUID
    day: date
    moves: list[Any]
    score: int
    best_possible: int
    rank_better: int
    rank_worse: int
    rank_players: int
    streak_current: int
    streak_best: int
    streak_last_played: date
    played_today: bool
    submitted_at: datetime

    @property
    def rank_at_submission(self) -> Rank:
        return rank_from(self.rank_better, self.rank_worse, self.rank_players)


class Stored(msgspec.Struct, frozen=True):
    """A submission's outcome: its run, new (201) or stored before (200, identical)."""

    run: DailyRun
    created: bool


Outcome = Stored | AlreadyPlayed


async def official_run(pool: asyncpg.Pool, player_id: uuid.UUID, day: date) -> DailyRun | None:
    row = await pool.fetchrow(QUERIES.daily_run, player_id, day)
    return None if row is None else row_as(DailyRun, row)


async def submit_batch(pool: asyncpg.Pool, runs: list[NewRun]) -> list[Stored | Exception]:
    """``submit_all`` on a connection of its own (what the request batcher calls). A
    batch that fails for another reason than an unreachable database is tried again one
    submission at a time, so that a submission that cannot be stored fails alone."""
    async with pool.acquire() as connection:
        try:
            return list(await submit_all(connection, runs))
        except UNAVAILABLE:
            raise
        except Exception:
            if len(runs) == 1:
                raise
            return [await _alone(connection, one) for one in runs]


async def _alone(connection: Connection, run: NewRun) -> Outcome | Exception:
    try:
        [outcome] = await submit_all(connection, [run])
    except Exception as error:
        return error
    return outcome


async def submit(connection: Connection, run: NewRun) -> Stored:
    """One submission on the caller's connection, in its transaction."""
    [outcome] = await submit_all(connection, [run])
    if isinstance(outcome, AlreadyPlayed):
        raise outcome
    return outcome


async def submit_all(connection: Connection, runs: list[NewRun]) -> list[Outcome]:
    """Store each run as its player's official run of its date, unless one is stored,
    in one transaction, in order.

    For each: ``Stored`` (created, or the stored run for the identical run again), or
    ``AlreadyPlayed`` for another run of a played date.
    """
    player_ids = sorted({run.player_id for run in runs})
    days = sorted({run.day for run in runs})
    outcomes: list[Outcome] = []
    created: list[DailyRun] = []
    after: dict[uuid.UUID, StreakRuns] = {}  # the streaks of the players of ``created``
    async with connection.transaction():
        # Lock the players (their streaks change with their runs), then read what the
        # batches that held the locks before committed: the runs asked for, the
        # players' streaks (and the dates they played, where a date comes out of
        # order) and the dates' histograms. One round trip (``daily_batch_read``).
        rows = await connection.fetch(
            QUERIES.daily_batch_read,
            player_ids,
            [run.player_id for run in runs],
            [run.day for run in runs],
            days,
        )
        streaks: dict[uuid.UUID, StreakRuns | None] = dict.fromkeys(player_ids)
        played: dict[uuid.UUID, set[date]] = {}  # only where the function sent them
        stored: dict[tuple[uuid.UUID, date], DailyRun] = {}
        histograms: dict[date, Histogram] = {day: {} for day in days}
        for row in rows:
            kind = row["kind"]
            if kind == "streak":
                streaks[row["player_id"]] = StreakRuns(
                    row["streak_current"], row["streak_best"], row["streak_last_played"]
                )
            elif kind == "played":
                played.setdefault(row["player_id"], set()).add(row["day"])
            elif kind == "run":
                stored[(row["player_id"], row["day"])] = row_as(DailyRun, row)
            else:
                histograms[row["day"]][row["score"]] = row["players"]
        counts = {day: DayCounts(histogram) for day, histogram in histograms.items()}
        for run in runs:
            earlier = stored.get((run.player_id, run.day))
            if earlier is not None:
                same = earlier.moves == run.moves
                outcomes.append(
                    Stored(earlier, created=False) if same else AlreadyPlayed(earlier.id)
                )
                continue
            today = local_today(run.submitted_at, run.time_zone)
            dates = played.get(run.player_id)
            if dates is not None:
                dates.add(run.day)
                streak = streak_runs(dates)
                assert streak is not None
                played_today = today in dates
            else:
                # A date after every date played. An open date is today or yesterday,
                # so today is played if and only if it is this date.
                streak = streak_after(streaks[run.player_id], run.day)
                played_today = today == run.day
            streaks[run.player_id] = after[run.player_id] = streak
            better, worse, others = counts[run.day].before_adding(run.score)
            new = DailyRun(
                id=uuid.uuid4(),
                player_id=run.player_id,
                day=run.day,
                moves=run.moves,
                score=run.score,
                best_possible=run.best_possible,
                rank_better=better,
                rank_worse=worse,
                rank_players=others + 1,
                streak_current=current_streak(streak, run.submitted_at, run.time_zone),
                streak_best=streak.best,
                streak_last_played=streak.last_played,
                played_today=played_today,
                submitted_at=run.submitted_at,
            )
            stored[(run.player_id, run.day)] = new
            created.append(new)
            outcomes.append(Stored(new, created=True))
        if created:
            await insert_runs(connection, created, after)
    return outcomes


async def insert_runs(
    connection: Connection, runs: list[DailyRun], streaks: dict[uuid.UUID, StreakRuns]
) -> None:
    """The new runs, their players' streaks after them (``streaks``: every player of
    ``runs``) and their dates' histogram counters (one shard, chosen at random), in one
    statement."""
    columns = [[getattr(run, field) for run in runs] for field in DailyRun.__struct_fields__]
    by_id = dict(zip(DailyRun.__struct_fields__, columns))
    await connection.execute(
        QUERIES.insert_daily_runs,
        by_id["player_id"],
        by_id["day"],
        by_id["id"],
        [msgspec.json.encode(moves).decode() for moves in by_id["moves"]],
        by_id["score"],
        by_id["best_possible"],
        by_id["rank_better"],
        by_id["rank_worse"],
        by_id["rank_players"],
        by_id["streak_current"],
        by_id["streak_best"],
        by_id["streak_last_played"],
        by_id["played_today"],
        by_id["submitted_at"],
        list(streaks),
        [streak.latest_length for streak in streaks.values()],
        [streak.best for streak in streaks.values()],
        [streak.last_played for streak in streaks.values()],
        random.randrange(COUNTER_SHARDS),
    )


async def make_partitions(database: asyncpg.Pool | Connection, first: date, last: date) -> None:
    """The monthly partitions of daily runs from ``first`` to ``last``, where missing."""
    months = []
    month = first.replace(day=1)
    while month <= last:
        months.append(month)
        month = (month + timedelta(days=32)).replace(day=1)
    await database.execute(QUERIES.make_daily_partitions, months)


async def make_partitions_ahead(pool: asyncpg.Pool, launch: date, now: datetime) -> None:
    """Every month from launch to two months ahead has its partition."""
    await make_partitions(pool, launch, now.date() + PARTITIONS_AHEAD)


async def streak_row(
    pool: asyncpg.Pool, player_id: uuid.UUID, today: date
) -> tuple[StreakRuns | None, bool]:
    """The player's stored streak runs, and whether they played ``today``."""
    row = await pool.fetchrow(QUERIES.streak, player_id, today)
    if row is None:
        return None, False
    return StreakRuns(row["latest_length"], row["best"], row["last_played"]), row["played_day"]


class HistoryEntry(msgspec.Struct, frozen=True):
    day: date
    score: int
    rank: Rank


async def history(
    pool: asyncpg.Pool, histograms: Histograms, player_id: uuid.UUID, before: date, limit: int
) -> list[HistoryEntry]:
    """The player's official runs before a date, newest first, with their ranks now:
    two queries at most, whatever the page's length."""
    rows = await pool.fetch(QUERIES.history, player_id, before, limit)
    by_day = await histograms.of(row["day"] for row in rows)
    return [
        HistoryEntry(
            day=row["day"], score=row["score"], rank=rank_in(by_day[row["day"]], row["score"])
        )
        for row in rows
    ]


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
