"""Official daily runs and streaks: each run stored with its player's streak (and the
counters of their runs, ``PlayerCounters``) and its date's histogram in one statement,
several submissions to a statement under load.

A run is stored compactly: its moves, its score, and its rank and streak as they stood
at submission. Its answer is rendered from those (``service.usecases.daily``), never kept.
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any, Final

import asyncpg
import msgspec

from service.store.db import QUERIES, UNAVAILABLE, Connection, Pool, row_as
from service.store.players import PlayerRow
from service.store.ranks import DayCounts, Histogram, Histograms, Rank, rank_from, rank_in
from service.store.runs import AlreadyPlayed
from service.support.calendar import (
    StreakRuns,
    frozen_before,
    frozen_dates,
    is_open_for,
    local_today,
    streak_after,
    streak_runs,
)

COUNTER_SHARDS: Final = 16
"""Counter rows per (date, score): concurrent transactions rarely update the same one."""
PARTITIONS_AHEAD: Final = timedelta(days=62)
TOP_MOST: Final = 100
"""The most runs a leaderboard lists (``day_leaderboard`` reads this many at most)."""

log = logging.getLogger("shutbox.daily")


class VerifiedRun(msgspec.Struct, frozen=True):
    """What a verified submission stores but its player."""

    day: date
    moves: list[Any]
    score: int
    best_possible: int
    submitted_at: datetime

    def of(self, player: PlayerRow, key: RunKey | None = None) -> NewRun:
        """The run as ``player``'s, with the player's time zone at submission, sent with
        ``key``."""
        return NewRun(
            player_id=player.id,
            time_zone=player.time_zone,
            request_key=None if key is None else key.id,
            request_language=None if key is None else key.language,
            **msgspec.structs.asdict(self),
        )


class RunKey(msgspec.Struct, frozen=True):
    """The Idempotency-Key a run is sent with, as the run's row keeps it (migration 025):
    the first 16 bytes of its SHA-256, and the language its request asked for (None:
    none), in which the answer is written again."""

    id: uuid.UUID
    language: str | None


class NewRun(VerifiedRun, frozen=True):
    """A verified submission to store, with its player and the player's time zone at
    submission (the streak shown with it is the player's own), and its key's."""

    player_id: uuid.UUID
    time_zone: str
    request_key: uuid.UUID | None = None
    request_language: str | None = None


class TokenRun(msgspec.Struct, frozen=True):
    """A verified submission sent with a bearer token, its player not looked up yet."""

    token_hash: bytes
    run: VerifiedRun
    key: RunKey | None = None


class UnknownToken(Exception):
    """No player has this bearer token."""


class NotOpen(Exception):
    """The date is not open for the player of the token now."""

    def __init__(self, player: PlayerRow) -> None:
        self.player = player


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
    streak_freezes: int = 0
    weekly_current: int = 1
    weekly_best: int = 1
    """The freezes held and the weekly streak after the run (migration 023: none and
    the run's own week for the runs stored before)."""
    request_key: uuid.UUID | None = None
    request_language: str | None = None
    """The Idempotency-Key the run was sent with (``RunKey``; None: none)."""

    def answers(self, key: uuid.UUID | None) -> bool:
        """Whether the run was stored for a request with the key ``key`` (``RunKey.id``):
        an identical run again with it is that request again, answered as it was first
        (201); another run with it, the key reused."""
        return key is not None and self.request_key == key

    @property
    def rank_at_submission(self) -> Rank:
        return rank_from(self.rank_better, self.rank_worse, self.rank_players)


class StreakRow(msgspec.Struct, frozen=True):
    """A player's row of streaks, as stored."""

    player_id: uuid.UUID
    latest_length: int
    best: int
    last_played: date
    freezes: int
    weekly_length: int
    weekly_best: int

    @property
    def runs(self) -> StreakRuns:
        return StreakRuns(*(getattr(self, name) for name in STREAK_COLUMNS))


class BatchRead(msgspec.Struct, frozen=True):
    """What a batch of official runs reads before it writes (``daily_batch_read``, one
    JSON object): each part of one shape, decoded in one call."""

    runs: list[DailyRun]
    """The runs already stored of the batch's (player, date) pairs."""
    streaks: list[StreakRow]
    """The streak rows of the batch's players who have one."""
    played: dict[uuid.UUID, list[date]]
    """Every date played, of each player a run of the batch comes out of order for
    (before their latest date, or two dates in the batch); no one else's."""
    histograms: dict[date, Histogram]
    """The batch's dates' runs by score (a date none ended on yet: left out)."""


class TokensRead(msgspec.Struct, frozen=True):
    """``BatchRead`` of runs sent with bearer tokens, and their players
    (``daily_batch_read_by_tokens``)."""

    players: list[PlayerRow | None]
    """The player of each run's token, in order (None: nobody's)."""
    read: BatchRead
    """What the runs of the players found read."""


_batch_read = msgspec.json.Decoder(BatchRead)
_tokens_read = msgspec.json.Decoder(TokensRead)


class Stored(msgspec.Struct, frozen=True):
    """A submission's outcome: its run, new (201) or stored before (200, identical; 201
    again for its own key: ``DailyRun.answers``)."""

    run: DailyRun
    created: bool


Outcome = Stored | AlreadyPlayed


async def official_run(pool: asyncpg.Pool, player_id: uuid.UUID, day: date) -> DailyRun | None:
    row = await pool.fetchrow(QUERIES.daily_run, player_id, day)
    return None if row is None else row_as(DailyRun, row)


async def submit_batch(pool: Pool, runs: list[NewRun]) -> list[Outcome | Exception]:
    """The runs stored as ``submit_all`` stores them, on a connection of its own (what
    the request batcher calls): ``stored``."""
    return await pool.using(lambda connection: stored(connection, runs))


async def stored(
    connection: Connection, runs: list[NewRun], read: BatchRead | None = None
) -> list[Outcome | Exception]:
    """The runs stored in two round trips (``stored_unlocked``; one when ``read`` already),
    else in a transaction that locks the players first. A batch that fails for another
    reason than an unreachable database (an error the database reports: one
    submission's row refused, a race with another process) is tried again one
    submission at a time, locked (a lone one too), so that a submission that cannot be
    stored fails alone: its answer is the error. Any other error is a bug: raised."""
    try:
        if read is None:
            read = await read_batch(connection, runs, lock=False)
        unlocked = await stored_unlocked(connection, runs, read)
        return list(unlocked if unlocked is not None else await submit_all(connection, runs))
    except UNAVAILABLE:
        raise
    except asyncpg.PostgresError as error:
        # Each again in the transaction that locks its player first: a race with another
        # process's batch (a unique key, a serialization failure) ends as that decides.
        log.warning(
            "official runs stored one at a time",
            extra={"runs": len(runs), "error": repr(error)},
        )
        return [await _alone(connection, one) for one in runs]


async def submit_batch_by_tokens(
    pool: Pool, runs: list[TokenRun]
) -> list[tuple[PlayerRow, Stored] | Exception]:
    """``submit_batch`` for runs sent with bearer tokens, their players looked up with
    the batch's reads (``daily_batch_read_by_tokens``): one round trip fewer than looking
    them up first. Each: its player and what ``submit_batch`` answers, or
    ``UnknownToken``, ``NotOpen`` (the date is not open for the player,
    ``service.support.calendar.is_open_for``; nothing stored for either)."""
    answers: list[tuple[PlayerRow, Stored] | Exception | None] = [None] * len(runs)
    accepted: list[tuple[int, PlayerRow, NewRun]] = []

    async def read_and_store(connection: Connection) -> list[Outcome | Exception]:
        found = _tokens_read.decode(
            await connection.fetchval(
                QUERIES.daily_batch_read_by_tokens,
                [sent.token_hash for sent in runs],
                [sent.run.day for sent in runs],
                sorted({sent.run.day for sent in runs}),
            )
        )
        for at, (sent, player) in enumerate(zip(runs, found.players, strict=True)):
            if player is None:
                answers[at] = UnknownToken()
            elif is_open_for(player, sent.run.day, sent.run.submitted_at):
                accepted.append((at, player, sent.run.of(player, sent.key)))
            else:
                answers[at] = NotOpen(player)
        new_runs = [new for _at, _player_found, new in accepted]
        return await stored(connection, new_runs, found.read) if new_runs else []

    outcomes = await pool.using(read_and_store)
    for (at, player, _new), outcome in zip(accepted, outcomes, strict=True):
        answers[at] = (player, outcome) if isinstance(outcome, Stored) else outcome
    return [answer for answer in answers if answer is not None]


async def _alone(connection: Connection, run: NewRun) -> Outcome | Exception:
    try:
        [outcome] = await submit_all(connection, [run])
    except Exception as error:
        return error
    return outcome


async def submit_all(connection: Connection, runs: list[NewRun]) -> list[Outcome]:
    """Store each run as its player's official run of its date, unless one is stored,
    in one transaction, in order.

    For each: ``Stored`` (created, or the stored run for the identical run again), or
    ``AlreadyPlayed`` for another run of a played date.
    """
    async with connection.transaction():
        # Lock the players (their streaks change with their runs), then read what the
        # batches that held the locks before committed. One round trip.
        batch = Batch(runs, await read_batch(connection, runs, lock=True))
        if batch.stale:
            raise RuntimeError("a locked read of a batch saw a streak without its runs")
        if batch.created:
            await batch.write(connection)
    return batch.outcomes


async def stored_unlocked(
    connection: Connection, runs: list[NewRun], read: BatchRead
) -> list[Outcome] | None:
    """``submit_all`` without a transaction, from what ``read_batch`` read without the
    lock (``read``): the write is one statement that first locks the players and stores
    nothing if a streak read has changed meanwhile. None when that happened, or
    when a run of the batch came after it read the run's date (stored by another batch),
    or when a date comes out of order for its player: then nothing is stored,
    ``submit_all`` must."""
    batch = Batch(runs, read)
    if batch.out_of_order or batch.stale:
        return None
    if batch.created:
        try:
            await batch.write(connection)
        except (asyncpg.SerializationError, asyncpg.UniqueViolationError):
            return None
    return batch.outcomes


async def read_batch(connection: Connection, runs: list[NewRun], lock: bool) -> BatchRead:
    """The runs asked for, the players' streaks (and the dates they played, where a date
    comes out of order) and the dates' histograms (``daily_batch_read``)."""
    return _batch_read.decode(
        await connection.fetchval(
            QUERIES.daily_batch_read,
            sorted({run.player_id for run in runs}),
            [run.player_id for run in runs],
            [run.day for run in runs],
            sorted({run.day for run in runs}),
            lock,
        )
    )


class Batch:
    """What storing ``runs`` in order does, from what was read: each one's outcome, the
    runs to store and their players' streaks after them, before and after."""

    def __init__(self, runs: list[NewRun], read: BatchRead) -> None:
        self.read: dict[uuid.UUID, StreakRuns | None] = dict.fromkeys(
            {run.player_id for run in runs}
        )
        for row in read.streaks:
            self.read[row.player_id] = row.runs
        # Only where the function sent them: a date out of order.
        played = {player_id: set(days) for player_id, days in read.played.items()}
        stored = {(run.player_id, run.day): run for run in read.runs}
        self.out_of_order = bool(played)
        # A run of a date the streak read has as played, but the runs read has not: stored
        # by another batch between the two reads (without the lock). Only a locked read
        # tells what to do.
        self.stale = False
        days = {run.day for run in runs}
        counts = {day: DayCounts(read.histograms.get(day, {})) for day in days}
        streaks = dict(self.read)
        self.outcomes: list[Outcome] = []
        self.created: list[DailyRun] = []
        self.after: dict[uuid.UUID, StreakRuns] = {}  # the streaks of the players of created
        # The dates freezes covered before the created runs, by player; where the streak
        # was walked again from the dates, from which date on they replace those stored.
        self.frozen: dict[uuid.UUID, list[date]] = {}
        self.refrozen_from: dict[uuid.UUID, date] = {}
        for run in runs:
            earlier = stored.get((run.player_id, run.day))
            if earlier is not None:
                if earlier.moves == run.moves:
                    self.outcomes.append(Stored(earlier, created=False))
                else:
                    reused = earlier.answers(run.request_key)
                    self.outcomes.append(AlreadyPlayed(earlier.id, key_reused=reused))
                continue
            today = local_today(run.submitted_at, run.time_zone)
            dates = played.get(run.player_id)
            if dates is not None:
                dates.add(run.day)
                streak = streak_runs(dates)
                assert streak is not None
                played_today = today in dates
                # The walk up to a date depends on the dates before it only.
                since = min(run.day, self.refrozen_from.get(run.player_id, run.day))
                self.refrozen_from[run.player_id] = since
                self.frozen[run.player_id] = [d for d in frozen_dates(dates) if d >= since]
            else:
                # A date after every date played. An open date is today or yesterday,
                # so today is played if and only if it is this date.
                before = streaks[run.player_id]
                if before is not None and run.day <= before.last_played:
                    self.stale = True
                    break
                self.frozen.setdefault(run.player_id, []).extend(frozen_before(before, run.day))
                streak = streak_after(before, run.day)
                played_today = today == run.day
            streaks[run.player_id] = self.after[run.player_id] = streak
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
                # The run's date is open, so no date after the streak's latest has
                # closed: the streak counts as it is (``streak_at``).
                streak_current=streak.latest_length,
                streak_best=streak.best,
                streak_last_played=streak.last_played,
                played_today=played_today,
                submitted_at=run.submitted_at,
                streak_freezes=streak.freezes,
                weekly_current=streak.weekly_length,
                weekly_best=streak.weekly_best,
                request_key=run.request_key,
                request_language=run.request_language,
            )
            stored[(run.player_id, run.day)] = new
            self.created.append(new)
            self.outcomes.append(Stored(new, created=True))

    async def write(self, connection: Connection) -> None:
        await insert_runs(
            connection, self.created, self.after, self.read, self.frozen, self.refrozen_from
        )


class StreakWritten(StreakRow, frozen=True):
    """A player's streak row as a batch writes it, as the batch read it (all None: none),
    and what the batch's runs of the player add to its counters (``PlayerCounters``)."""

    was_length: int | None
    was_best: int | None
    was_last_played: date | None
    was_freezes: int | None
    was_weekly_length: int | None
    was_weekly_best: int | None
    frozen: list[date]
    """The dates freezes covered before the batch's runs of the player."""
    refrozen_from: date | None
    """Where the streak was walked again from the dates: the frozen dates stored from
    this one on are replaced by ``frozen``."""
    played: int
    shut: int
    score_total: int
    best_possible_total: int
    scores: dict[int, int]


_json = msgspec.json.Encoder()


async def insert_runs(
    connection: Connection,
    runs: list[DailyRun],
    streaks: dict[uuid.UUID, StreakRuns],
    before: Mapping[uuid.UUID, StreakRuns | None] | None = None,
    frozen: Mapping[uuid.UUID, list[date]] | None = None,
    refrozen_from: Mapping[uuid.UUID, date] | None = None,
) -> None:
    """The new runs, their players' streaks after them (``streaks``: every player of
    ``runs``) with the runs added to their counters, and their dates' histogram counters
    (one shard, chosen at random), in one statement (``daily_batch_write``). ``before``:
    the streaks the runs were computed from (by default, none: new players); if a
    player's is not what is stored, nothing is, and ``asyncpg.SerializationError`` is
    raised. ``frozen``: the dates freezes covered before the runs, by player (where a
    streak was walked again from the dates, replacing those stored from
    ``refrozen_from`` on).

    Every writer of official runs (a batch of submissions, ``synth-day``) stores them
    here, so each run is counted once, with its row: what the statement inserts is what
    it counts (a batch may hold several runs of a player, of different dates)."""
    before = before or {}
    frozen = frozen or {}
    refrozen_from = refrozen_from or {}
    of_player: dict[uuid.UUID, list[DailyRun]] = {player_id: [] for player_id in streaks}
    for run in runs:
        of_player[run.player_id].append(run)  # a KeyError: a run without its streak
    written = []
    for player_id, streak in streaks.items():
        was = before.get(player_id)
        counted = of_player[player_id]
        scores: dict[int, int] = {}
        for run in counted:
            scores[run.score] = scores.get(run.score, 0) + 1
        written.append(
            StreakWritten(
                player_id,
                *streak,
                was and was.latest_length,
                was and was.best,
                was and was.last_played,
                was and was.freezes,
                was and was.weekly_length,
                was and was.weekly_best,
                frozen=frozen.get(player_id, []),
                refrozen_from=refrozen_from.get(player_id),
                played=len(counted),
                shut=scores.get(0, 0),
                score_total=sum(run.score for run in counted),
                best_possible_total=sum(run.best_possible for run in counted),
                scores=scores,
            )
        )
    await connection.execute(
        QUERIES.daily_batch_write,
        _json.encode(runs).decode(),
        _json.encode(written).decode(),
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


STREAK_COLUMNS: Final = (
    "latest_length", "best", "last_played", "freezes", "weekly_length", "weekly_best"
)  # fmt: skip
"""The columns of a streak row that make its ``StreakRuns``, in their order."""


def streak_of(row: asyncpg.Record) -> StreakRuns:
    """The streak runs of a row that has the streak row's columns."""
    return StreakRuns(*(row[name] for name in STREAK_COLUMNS))


async def streak_row(
    pool: asyncpg.Pool, player_id: uuid.UUID, *days: date
) -> tuple[StreakRuns | None, frozenset[date]]:
    """The player's stored streak runs, and which of ``days`` (two at most) they played
    (one row by key, a lookup by key a date)."""
    if len(days) > 2:
        raise ValueError(f"{len(days)} dates asked of a streak row, 2 at most")
    row = await pool.fetchrow(QUERIES.streak, player_id, *(*days, None, None)[:2])
    if row is None:
        return None, frozenset()
    return streak_of(row), frozenset(row["played_days"])


class PlayerCounters(msgspec.Struct, frozen=True):
    """What a player's streak row counts of their official daily runs (migration 017),
    added to with each run stored, and the streak itself."""

    streak: StreakRuns
    played_today: bool
    """Whether the date asked for (the player's today) was played."""
    played: int
    shut: int
    """The runs that shut the box (score 0)."""
    score_total: int
    best_possible_total: int
    """The sum of the runs' best possible scores, each on its own dice."""
    scores: dict[int, int]
    """How many runs ended on each score (scores none ended on left out)."""


async def player_counters(
    pool: asyncpg.Pool, player_id: uuid.UUID, today: date | None = None
) -> PlayerCounters | None:
    """The player's counters and streak, and whether they played ``today`` (None: not
    asked, False): one row by key whatever their history (None: no official run yet)."""
    row = await pool.fetchrow(QUERIES.player_counters, player_id, today)
    if row is None:
        return None
    return PlayerCounters(
        streak=streak_of(row),
        played_today=row["played_day"],
        played=row["played"],
        shut=row["shut"],
        score_total=row["score_total"],
        best_possible_total=row["best_possible_total"],
        scores={int(score): runs for score, runs in row["scores"].items()},
    )


class HistoryEntry(msgspec.Struct, frozen=True):
    """An official run (its score and rank now), or a date a freeze covered (None)."""

    day: date
    score: int | None
    rank: Rank | None


async def history(
    pool: asyncpg.Pool, histograms: Histograms, player_id: uuid.UUID, before: date, limit: int
) -> list[HistoryEntry]:
    """The player's official runs and the dates stored as frozen before a date, newest
    first, the runs with their ranks now: two queries at most, whatever the page's
    length."""
    rows = await pool.fetch(QUERIES.history, player_id, before, limit)
    played = [row["day"] for row in rows if row["score"] is not None]
    by_day = await histograms.of(played) if played else {}
    return [
        HistoryEntry(day=row["day"], score=None, rank=None)
        if row["score"] is None
        else HistoryEntry(
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
    """The histogram and the ``limit`` best runs of a date (``TOP_MOST`` at most), read in
    one statement: a run committed meanwhile is in both or in neither."""
    row = await pool.fetchrow(QUERIES.day_leaderboard, day, limit)
    assert row is not None  # an aggregate: always one row
    return DayBoard(
        histogram=dict(zip(row["scores"], row["players"])),
        top=list(zip(row["top_names"], row["top_scores"])),
    )
