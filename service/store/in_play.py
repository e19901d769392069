"""The dice nobody may analyse yet: the Daily Dice of every date still open somewhere
on Earth, and the dice of every Friend Box.

Their analysis (the best line on those very dice) comes with the player's own run,
not before it. Each process keeps what it needs in memory, so that the stateless
analysis refuses them without a round trip: a date's dice are read once per date, and
a box's as a number of 8 bytes, learnt when this process creates the box or, for the
boxes of other processes, by following the boxes table every few seconds.

Dice are compared by their first ``PREFIX_ROLLS`` rolls: a turn on nine tiles rarely
lasts longer, so changing a late roll does not hide the dice of a live challenge.
"""

from __future__ import annotations

import asyncio
import bisect
import heapq
import logging
from array import array
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Final

import asyncpg

from service.calendar import has_begun, has_closed_everywhere
from service.rules.dice import daily_sequence_id
from service.rules.ruleset import Roll, Rules
from service.store import sequences
from service.store.cache import Cache
from service.store.db import QUERIES, UNAVAILABLE

log = logging.getLogger("shutbox.in_play")

PREFIX_ROLLS: Final = 7
FOLLOW_EVERY_SECONDS: Final = 2.0
_PAGE: Final = 10_000
# Boxes are numbered as they are inserted and committed a little later: the boxes
# numbered just below the highest one seen are read again, in case they committed late.
_LATE_COMMITS: Final = 256
_MERGE_AT: Final = 4096


def fingerprint(dice: Sequence[Roll]) -> int:
    """The first ``PREFIX_ROLLS`` rolls (all of a shorter sequence) and how many there
    are, as one exact number.

    >>> fingerprint([(1, 1)] * 10) == fingerprint([(1, 1)] * 7 + [(6, 6)] * 6)
    True
    >>> fingerprint([(1, 1)] * 3) == fingerprint([(1, 1)] * 4)
    False
    """
    key = 0
    for first, second in dice[:PREFIX_ROLLS]:
        key = key * 36 + (first - 1) * 6 + (second - 1)
    return key * 16 + min(len(dice), PREFIX_ROLLS)


def live_dates(now: datetime) -> list[date]:
    """The dates whose Daily Dice have begun somewhere and not yet closed everywhere."""
    today = now.astimezone(UTC).date()
    candidates = (today + timedelta(days=offset) for offset in range(-2, 2))
    return [d for d in candidates if has_begun(d, now) and not has_closed_everywhere(d, now)]


class DiceInPlay:
    """Whether dice are those of a live Daily Dice date or of a Friend Box."""

    def __init__(self, pool: asyncpg.Pool, cache: Cache, secret: bytes) -> None:
        self.pool = pool
        self.cache = cache
        self.secret = secret
        self._daily: dict[date, int] = {}
        self._boxes = array("q")  # sorted
        self._new_boxes: set[int] = set()
        self._last_stored = 0
        self._live: tuple[int, list[date]] = (-1, [])

    def __len__(self) -> int:
        return len(self._boxes) + len(self._new_boxes)

    async def refuses(self, dice: Sequence[Roll], now: datetime) -> bool:
        key = fingerprint(dice)
        if key in self._new_boxes:
            return True
        at = bisect.bisect_left(self._boxes, key)
        if at < len(self._boxes) and self._boxes[at] == key:
            return True
        for day in self._live_dates(now):
            daily = self._daily.get(day)
            if daily is None:
                daily = self._daily[day] = await self._daily_fingerprint(day, now)
                for old in [d for d in self._daily if d < day - timedelta(days=3)]:
                    del self._daily[old]
            if daily == key:
                return True
        return False

    def _live_dates(self, now: datetime) -> list[date]:
        """``live_dates`` of this minute (dates begin and close on whole minutes)."""
        minute = int(now.timestamp()) // 60
        if minute != self._live[0]:
            self._live = (minute, live_dates(now))
        return self._live[1]

    async def _daily_fingerprint(self, day: date, now: datetime) -> int:
        issued = await sequences.issue(
            self.pool, self.cache, self.secret, daily_sequence_id(day), Rules(), now
        )
        return fingerprint(issued.dice)

    def add_box(self, dice: Sequence[Roll]) -> None:
        self._new_boxes.add(fingerprint(dice))
        if len(self._new_boxes) >= _MERGE_AT:
            self._merge()

    def _merge(self) -> None:
        merged = heapq.merge(self._boxes, sorted(self._new_boxes))
        self._boxes = array("q", merged)
        self._new_boxes.clear()

    async def learn_boxes(self) -> int:
        """Read the boxes stored since the last look (every box, the first time);
        returns how many were read."""
        read = 0
        while True:
            since = max(0, self._last_stored - _LATE_COMMITS)
            rows = await self.pool.fetch(QUERIES.box_dice_since, since, _PAGE)
            for row in rows:
                flat = row["dice"]
                self.add_box([(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)])
                self._last_stored = max(self._last_stored, row["stored"])
            read += len(rows)
            if len(rows) < _PAGE:
                return read

    async def follow_boxes(self) -> None:
        """Learn the boxes of every process, every few seconds, for good."""
        while True:
            await asyncio.sleep(FOLLOW_EVERY_SECONDS)
            try:
                await self.learn_boxes()
            except UNAVAILABLE:
                log.warning("could not read new boxes; trying again shortly")
