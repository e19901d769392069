"""The dice nobody may analyse yet: the Daily Dice of every date still open somewhere
on Earth, and the dice of every Friend Box.

Their analysis (the best line on those very dice) comes with the player's own run,
not before it. Dice are recognised by what decides their analysis, in any disguise
(``service.rules.fairplay``). Nothing here grows with the boxes ever made:

- a live date's key is computed from its stored dice, or from the secret while they
  are not stored or the database cannot say (the same dice: the first issue derives
  them so), a few dates at a time;
- a box's dice carry the mark: dice without it are no box's, decided in memory; marked
  dice (1 in 1,024) take one indexed lookup in the boxes table, so a box is refused
  everywhere from the moment its creation is committed. With the database down those
  few fail closed (503), since only it knows its boxes;
- the boxes made before the mark, the only ones whose dice may carry none, are given
  their keys once at start-up, and the unmarked keys among them kept in memory (their
  number fixed from then on).
"""

from __future__ import annotations

import logging
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Final

import asyncpg
import msgspec

from service.caching import LRU
from service.calendar import has_begun, has_closed_everywhere
from service.rules import fairplay
from service.rules.dice import daily_sequence_id, derive_dice
from service.rules.ruleset import Roll, Rules
from service.store import sequences
from service.store.cache import Cache
from service.store.db import QUERIES, UNAVAILABLE, Connection

log = logging.getLogger("shutbox.in_play")

_BACKFILL_PAGE: Final = 5_000
_BACKFILL_LOCK: Final = 0x5B0C_0002
_DAILY: Final = Rules()


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
        self.mark = fairplay.Mark(secret)
        # A live date's deciding key: the live dates are at most the four around today.
        self._daily: LRU[date, bytes] = LRU("live_date_keys", 4)
        self._unmarked = array("q")  # sorted: the keys of boxes made before the mark
        self._live: tuple[int, list[date]] = (-1, [])

    async def refuses(self, dice: Sequence[Roll], now: datetime) -> bool:
        """Whether these dice disguise those of a live challenge; raises ``UNAVAILABLE``
        errors for marked dice while the database cannot say."""
        candidates = fairplay.Candidates(dice)
        for day in self._live_dates(now):
            if await self._daily_key(day) in candidates:
                return True
        if self._unmarked and any(self._is_unmarked(fairplay.stored_key(k)) for k in candidates):
            return True
        marked = self.mark.lookups(candidates)
        if not marked:
            return False
        found: bool = await self.pool.fetchval(QUERIES.box_with_dice_key, marked)
        return found

    def _is_unmarked(self, key: int) -> bool:
        at = bisect_left(self._unmarked, key)
        return at < len(self._unmarked) and self._unmarked[at] == key

    def _live_dates(self, now: datetime) -> list[date]:
        """``live_dates`` of this minute (dates begin and close on whole minutes)."""
        minute = int(now.timestamp()) // 60
        if minute != self._live[0]:
            self._live = (minute, live_dates(now))
            for old in [d for d in self._daily if d not in self._live[1]]:
                self._daily.pop(old)
        return self._live[1]

    async def _daily_key(self, day: date) -> bytes:
        key = self._daily.get(day)
        if key is not None:
            return key
        sequence_id = daily_sequence_id(day)
        try:
            issued = await sequences.stored(self.pool, self.cache, sequence_id)
        except UNAVAILABLE:
            # Not known here yet and the database away: the dice its first issue derives.
            return self._key(derive_dice(self.secret, sequence_id, _DAILY.rolls))
        if issued is None:  # not issued yet: the dice its first issue will derive
            dice = derive_dice(self.secret, sequence_id, _DAILY.rolls)
        else:
            dice = issued.dice
        key = self._key(dice)
        self._daily.put(day, key)
        return key

    @staticmethod
    def _key(dice: Sequence[Roll]) -> bytes:
        return fairplay.deciding_key(dice, sums_only=fairplay.only_sums_matter(_DAILY))

    async def load(self) -> None:
        """Give the boxes made before the mark their keys (once, whichever process comes
        first), then hold those whose dice carry no mark."""
        async with self.pool.acquire() as connection:
            await connection.execute("SELECT pg_advisory_lock($1)", _BACKFILL_LOCK)
            try:
                while await self._backfill_page(connection):
                    pass
            finally:
                await connection.execute("SELECT pg_advisory_unlock($1)", _BACKFILL_LOCK)
            keys = await connection.fetchval(QUERIES.unmarked_box_dice_keys)
        self._unmarked = array("q", sorted(keys))

    async def _backfill_page(self, connection: Connection) -> int:
        rows = await connection.fetch(QUERIES.boxes_without_dice_key, _BACKFILL_PAGE)
        codes, keys, marks = [], [], []
        for row in rows:
            flat = row["dice"]
            dice = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
            rules = msgspec.convert(row["rules"], Rules)
            key = fairplay.deciding_key(dice, sums_only=fairplay.only_sums_matter(rules))
            codes.append(row["code"])
            keys.append(fairplay.stored_key(key))
            marks.append(self.mark.carried_by(fairplay.Candidates(dice)))
        if rows:
            await connection.execute(QUERIES.set_box_dice_keys, codes, keys, marks)
            log.info("gave boxes their dice keys", extra={"boxes": len(rows)})
        return len(rows)
