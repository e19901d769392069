"""The archive, the use cases: practise a Daily Dice date that has closed everywhere,
list a player's practice runs.

A practice run is verified and analysed exactly as an official run is (the date's dice
and the verified runs of ``DailyRuns``), and told where its score would have ranked
among the date's official runs (their histogram, the practice run counted as one more
player). It is never official: no streak, no rank, no histogram changes. A player's
(with a bearer token) is kept, one per player and date, the latest in place of the one
before; anyone else's is answered and kept nowhere.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import NamedTuple

import asyncpg

from service.rules.analysis import Report
from service.rules.replay import Move
from service.store import practice
from service.store.db import Connection
from service.store.players import PlayerRow
from service.store.practice import PracticeRun
from service.store.ranks import Histogram, Histograms, Rank, counts_in, rank_from
from service.support.calendar import closes_everywhere_at, has_closed_everywhere
from service.usecases.daily import DailyRuns


class DateNotClosed(Exception):
    """The date is still open somewhere on Earth: it can be practised from ``closes_at``."""

    def __init__(self, day: date, closes_at: datetime) -> None:
        self.day, self.closes_at = day, closes_at


class Practice(NamedTuple):
    """A practice run: its verified report on the dice of ``sequence``, where it would
    have ranked, and whether it was kept (its player's)."""

    verified: Report
    sequence: str
    would_rank: Rank
    kept: bool


class PracticeEntry(NamedTuple):
    """A kept practice run, with where it would rank among the date's official runs now."""

    day: date
    score: int
    best_possible: int
    would_rank: Rank
    played_at: datetime


def would_rank(histogram: Histogram, score: int) -> Rank:
    """Where ``score`` would have ranked among the official runs of ``histogram``, counted
    as one more player: 1 + the runs with a lower score, out of the runs and itself, the
    percentile as the ranks' (the share of those players with a higher score).

    >>> would_rank({0: 1, 7: 3, 12: 2}, 7)
    Rank(position=2, players=7, percentile=28.57)
    >>> would_rank({}, 7)
    Rank(position=1, players=1, percentile=0.0)
    """
    better, worse, players = counts_in(histogram, score)
    return rank_from(better, worse, players + 1)


@dataclass(eq=False)
class PracticeRuns:
    """Practice runs of closed dates: verified as the official runs of ``daily`` are,
    ranked against the histograms, kept in the pool."""

    pool: asyncpg.Pool
    daily: DailyRuns
    histograms: Histograms

    async def practise(
        self,
        player: PlayerRow | None,
        day: date,
        moves: Sequence[Move],
        now: datetime,
        connection: Connection | None = None,
    ) -> Practice:
        """Verify and analyse a practice run of ``day`` and rank it against the date's
        official runs; keep it as ``player``'s (None: nobody's, nothing kept), in
        ``connection`` when given (an idempotency key's transaction). Raises
        ``DateNotClosed`` while the date is open anywhere, an ``IllegalRun`` for a run
        that is not a legal turn: nothing kept."""
        if not has_closed_everywhere(day, now):
            raise DateNotClosed(day, closes_everywhere_at(day))
        issued = await self.daily.dice(day, now)
        verified = self.daily.verified(issued, moves)
        score = verified.run.score
        rank = would_rank((await self.histograms.of([day]))[day], score)
        if player is not None:
            run = PracticeRun(
                player_id=player.id,
                day=day,
                moves=[m.as_json() for m in verified.run.moves],
                score=score,
                best_possible=verified.best_possible,
                played_at=now,
            )
            await practice.keep(self.pool if connection is None else connection, run)
        return Practice(verified, issued.id, rank, kept=player is not None)

    async def kept(self, player_id: uuid.UUID, before: date, limit: int) -> list[PracticeEntry]:
        """The player's practice runs of dates before ``before``, newest date first, each
        ranked against its date's histogram now: two queries at most, whatever the page's
        length (the histograms of closed dates mostly come from the cache's mirror)."""
        runs = await practice.page(self.pool, player_id, before, limit)
        by_day = await self.histograms.of(run.day for run in runs)
        return [
            PracticeEntry(
                day=run.day,
                score=run.score,
                best_possible=run.best_possible,
                would_rank=would_rank(by_day[run.day], run.score),
                played_at=run.played_at,
            )
            for run in runs
        ]
