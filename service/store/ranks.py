"""Ranks of a date's official runs, from the date's histogram: how many runs ended on
each score.

Scores are small integers, so a date's ranking is a few dozen counters
(``day_scores``, updated in the transaction that stores the runs), not a sort of its
runs: a rank costs the same on a date with ten runs as on a date with a million.

A date's histogram is read from PostgreSQL while runs of it may still be stored, so a
rank "as it stands now" counts every run stored before it (the player's own just
stored included) and storing a run costs nothing here. Once the date has closed
everywhere (and its last submissions are stored) its histogram is final: it is
mirrored in the cache, and a Redis flush or outage costs one small read per date.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import date, timedelta
from typing import Annotated, Final

import asyncpg
import msgspec

from service.store.cache import Cache
from service.store.db import QUERIES, Database
from service.support.calendar import has_closed_everywhere
from service.support.clock import Clock

SETTLING: Final = timedelta(minutes=5)
"""After a date closes everywhere, time enough for the submissions found open just
before to be stored: its histogram is final from then on."""
MIRRORED_FOR_SECONDS: Final = 600

Histogram = dict[int, int]
"""How many runs ended on each score."""
Counts = tuple[int, int, int]
"""(better, worse, players): runs of a date below and above a score, and all of them."""


class Rank(msgspec.Struct, frozen=True):
    """A player's position on a date (ties share it), out of how many players, and
    the share of the date's players with a worse score (percent)."""

    position: Annotated[
        int,
        msgspec.Meta(
            description="1 + the players of the date with a better (lower) score: players "
            "with the same score share a position."
        ),
    ]
    players: Annotated[
        int, msgspec.Meta(description="The players with an official run of the date.")
    ]
    percentile: Annotated[
        float,
        msgspec.Meta(
            description="The share of the date's players with a worse (higher) score, in "
            "percent, two decimals: 90.0 is ahead of 9 players in 10; last (or alone) is 0."
        ),
    ]


def rank_from(better: int, worse: int, players: int) -> Rank:
    return Rank(
        position=better + 1,
        players=players,
        percentile=round(100 * worse / players, 2) if players else 0.0,
    )


def counts_in(histogram: Histogram, score: int) -> Counts:
    """The counts around ``score`` in a histogram.

    >>> counts_in({0: 1, 7: 3, 12: 2}, 7)
    (1, 2, 6)
    """
    better = worse = 0
    for other, players in histogram.items():  # one pass: a batch counts once a run
        if other < score:
            better += players
        elif other > score:
            worse += players
    return better, worse, sum(histogram.values())


def rank_in(histogram: Histogram, score: int) -> Rank:
    return rank_from(*counts_in(histogram, score))


class DayCounts:
    """A date's histogram as stored, and the runs a batch adds on top of it, in order."""

    def __init__(self, stored: Histogram) -> None:
        self._histogram = dict(stored)

    def before_adding(self, score: int) -> Counts:
        """Among the stored runs and those added so far; then this one is added."""
        counts = counts_in(self._histogram, score)
        self._histogram[score] = self._histogram.get(score, 0) + 1
        return counts


async def stored_histograms(database: Database, days: Collection[date]) -> dict[date, Histogram]:
    """The histograms of these dates as PostgreSQL holds them (in the caller's
    transaction, when ``database`` is its connection): one query."""
    found: dict[date, Histogram] = {day: {} for day in days}
    for row in await database.fetch(QUERIES.day_histograms, list(days)):
        found[row["day"]][row["score"]] = row["players"]
    return found


_histogram_codec = msgspec.json.Encoder(), msgspec.json.Decoder(Histogram)


class Histograms:
    """The dates' histograms as they stand now: from PostgreSQL, and for a date whose
    histogram is final (``SETTLING``), from the cache's mirror."""

    def __init__(self, pool: asyncpg.Pool, cache: Cache, clock: Clock) -> None:
        self.pool = pool
        self.cache = cache
        self.clock = clock

    def _key(self, day: date) -> str:
        # The date as a hash tag: on a Redis Cluster, the keys of one date share a slot.
        return f"{{{day.isoformat()}}}:histogram"

    async def of(self, days: Iterable[date]) -> dict[date, Histogram]:
        """The histogram of each date: those not mirrored in one query."""
        wanted = set(days)
        settled = self.clock.now() - SETTLING
        final = {day for day in wanted if has_closed_everywhere(day, settled)}
        found: dict[date, Histogram] = {}
        for day in final:
            mirrored = await self.cache.get(self._key(day))
            if mirrored is not None:
                found[day] = _histogram_codec[1].decode(mirrored)
        missing = [day for day in wanted if day not in found]
        if missing:
            stored = await stored_histograms(self.pool, missing)
            for day in final.intersection(stored):
                encoded = _histogram_codec[0].encode(stored[day])
                await self.cache.set(self._key(day), encoded, expires_in=MIRRORED_FOR_SECONDS)
            found |= stored
        return found

    async def rank(self, day: date, score: int) -> Rank:
        """The rank of a stored run of ``day`` with this score, as it stands now."""
        return rank_in((await self.of([day]))[day], score)
