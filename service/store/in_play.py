"""The dice nobody may analyse yet: the Daily Dice of every date still open somewhere
on Earth, the dice of every Friend Box, and those of every round of a series not
finished (drawn and marked as a box's are, ``service.series``).

Their analysis (the best line on those very dice) comes with the player's own run,
not before it. Dice are recognised by what decides their analysis, in any disguise
(``service.rules.fairplay``). Nothing here grows with the boxes ever made:

- a live date's key is computed from its stored dice, or from the secret while they
  are not stored or the database cannot say (the same dice: the first issue derives
  them so), a few dates at a time;
- a box's dice carry the mark: dice without it are no box's, decided in memory; marked
  dice (1 in 1,024) take one indexed lookup in the boxes table and the series rounds'
  (``dice_key_in_play``), so a box or a round is refused everywhere from the moment it
  is committed, a round until its series has finished. With the database down those
  few fail closed (503), since only it knows its boxes;
- the boxes whose dice may carry none (those made before the mark, given their keys
  once at start-up, and the boxes of a run's dice, ``POST /v1/boxes`` with ``from_run``)
  have their keys kept in memory, 8 bytes each, in every process: loaded at start and at
  every (re)connect of a listening connection of its own, and added as the transaction
  storing such a box announces it (``pg_notify`` on ``CHANNEL``, delivered at commit).
  Beside each key its short key (``fairplay.short_key``): most dice are told apart
  from them all with a lookup or two. While that connection is down, unmarked dice take
  the indexed lookup (what is held decides with the database away: no box is made
  there meanwhile), so no box of a run's dice is missed for a lost notification.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
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
CHANNEL: Final = "shutbox_unmarked_boxes"
"""Where the transaction storing a box of unmarked dice announces its key (a decimal
signed 64-bit number, ``insert_box_of_run``)."""
_HEARTBEAT: Final = 1.0
"""How often (seconds) the listening connection is asked whether it is alive, and how
long it may take to answer: a connection lost without a word is noticed within two."""
_RECONNECT: Final = 0.5
_DAILY: Final = Rules()


def _set(event: asyncio.Event, _connection: object) -> None:
    event.set()


def _hold(keys: array[int], key: int) -> None:
    """Add a key to a sorted array of keys, once."""
    at = bisect_left(keys, key)
    if at == len(keys) or keys[at] != key:
        keys.insert(at, key)


def _holds(keys: array[int], key: int) -> bool:
    at = bisect_left(keys, key)
    return at < len(keys) and keys[at] == key


def live_dates(now: datetime) -> list[date]:
    """The dates whose Daily Dice have begun somewhere and not yet closed everywhere."""
    today = now.astimezone(UTC).date()
    candidates = (today + timedelta(days=offset) for offset in range(-2, 2))
    return [d for d in candidates if has_begun(d, now) and not has_closed_everywhere(d, now)]


class DiceInPlay:
    """Whether dice are those of a live Daily Dice date, of a Friend Box or of a round
    of a series not finished."""

    def __init__(
        self, pool: asyncpg.Pool, cache: Cache, secret: bytes, url: str | None = None
    ) -> None:
        self.pool = pool
        self.url = url  # the listening connection's; None: no listener, the lookup always
        self.cache = cache
        self.secret = secret
        self.mark = fairplay.Mark(secret)
        # A live date's deciding key: the live dates are at most the four around today.
        self._daily: LRU[date, bytes] = LRU("live_date_keys", 4)
        # Sorted: the keys of the boxes of unmarked dice, and their short keys
        # (``fairplay.short_key``) of totals and of pairs, which tell most dice apart from
        # them all at a lookup or two (measured: 1.2 us a request, against 11.5 us for
        # the whole check, with a million held; docs/fair-play.md).
        self._unmarked = array("q")
        self._short_totals = array("q")
        self._short_pairs = array("q")
        self._every_short_key = True  # else the short keys tell nothing apart
        # Whether the listener holds every unmarked key (connected, LISTENing, loaded).
        self.listening = False
        self._heard: dict[int, asyncio.Event] = {}  # keys a box creation here waits for
        self._heard_meanwhile: list[tuple[int, int]] | None = None  # heard during a reload
        self._live: tuple[int, list[date]] = (-1, [])

    async def refuses(self, dice: Sequence[Roll], now: datetime) -> bool:
        """Whether these dice disguise those of a live challenge; raises ``UNAVAILABLE``
        errors for marked dice while the database cannot say."""
        candidates = fairplay.Candidates(dice)
        for day in self._live_dates(now):
            if await self._daily_key(day) in candidates:
                return True
        if self._may_be_unmarked(candidates) and any(
            _holds(self._unmarked, fairplay.stored_key(key)) for key in candidates
        ):
            return True
        marked = self.mark.lookups(candidates)
        if not self.listening and not marked:
            # A box of unmarked dice may have been made unheard: the index says, and
            # with the database away (no box made meanwhile that this process could
            # learn of) what is held decides.
            keys = [fairplay.stored_key(key) for key in candidates]
            try:
                return bool(await self.pool.fetchval(QUERIES.dice_key_in_play, keys))
            except UNAVAILABLE:
                return False
        if not marked:
            return False
        found: bool = await self.pool.fetchval(QUERIES.dice_key_in_play, marked)
        return found

    def _may_be_unmarked(self, candidates: fairplay.Candidates) -> bool:
        """Whether these dice may be those of a box of unmarked dice (a short key of
        theirs is held: two hashes, where the whole check takes one a candidate)."""
        if not self._unmarked:
            return False
        if not self._every_short_key:
            return True
        if self._short_totals and _holds(self._short_totals, candidates.short_key_of_totals()):
            return True
        return bool(self._short_pairs) and _holds(
            self._short_pairs, candidates.short_key_of_pairs()
        )

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
        first), then hold the keys of the boxes whose dice carry no mark: from the
        listener's first connection when there is one (``listen``), else read once."""
        async with self.pool.acquire() as connection:
            await connection.execute("SELECT pg_advisory_lock($1)", _BACKFILL_LOCK)
            try:
                while await self._backfill_page(connection):
                    pass
            finally:
                await connection.execute("SELECT pg_advisory_unlock($1)", _BACKFILL_LOCK)
            if self.url is None:
                await self._reload(connection)

    async def _reload(self, connection: Connection) -> None:
        # Keys heard while the query runs may be of commits after its snapshot: kept.
        self._heard_meanwhile = []
        try:
            row = await connection.fetchrow(QUERIES.unmarked_box_dice_keys)
            assert row is not None  # an aggregate: one row
            unmarked = array("q", row["keys"])  # ascending, as the index gives them
            short = sorted(set(row["short_keys"]))
            totals = array("q", [k for k in short if not fairplay.of_pairs(k)])
            pairs = array("q", [k for k in short if fairplay.of_pairs(k)])
            for key, short_key in self._heard_meanwhile:
                _hold(unmarked, key)
                _hold(pairs if fairplay.of_pairs(short_key) else totals, short_key)
            self._unmarked, self._short_totals, self._short_pairs = unmarked, totals, pairs
            self._every_short_key = row["without_short_key"] == 0
        finally:
            self._heard_meanwhile = None

    async def listen(self, started: asyncio.Event) -> None:
        """Hold every unmarked key for as long as the process lives: LISTEN on a
        connection of its own, then (no notification lost in between) load them all, on
        every (re)connect; ``started`` is set after the first load. Not listening, every
        dice take the indexed lookup (``refuses``)."""
        assert self.url is not None
        while True:
            try:
                connection = await asyncpg.connect(
                    self.url, server_settings={"application_name": "shutbox-in-play"}
                )
            except Exception:
                log.warning("the in-play listener cannot connect", exc_info=True)
                await asyncio.sleep(_RECONNECT)
                continue
            lost = asyncio.Event()
            connection.add_termination_listener(functools.partial(_set, lost))
            try:
                await connection.add_listener(CHANNEL, self._heard_of)
                await connection.execute("SET enable_seqscan = off")
                await self._reload(connection)
                self.listening = True
                started.set()
                while not lost.is_set():
                    await connection.fetchval("SELECT 1", timeout=_HEARTBEAT)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), _HEARTBEAT)
            except asyncio.CancelledError:
                self.listening = False
                await connection.close(timeout=1)
                raise
            except Exception:
                log.warning("the in-play listener lost its connection", exc_info=True)
            self.listening = False
            connection.terminate()
            await asyncio.sleep(_RECONNECT)

    def _heard_of(self, _connection: object, _pid: int, _channel: str, payload: object) -> None:
        key, short_key = map(int, str(payload).split())
        self._hold(key, short_key)
        if self._heard_meanwhile is not None:
            self._heard_meanwhile.append((key, short_key))
        heard = self._heard.pop(key, None)
        if heard is not None:
            heard.set()

    async def made(self, dice: Sequence[Roll], rules: Rules, seconds: float = 1.0) -> None:
        """A box of these dice was just made here: when they carry no mark, wait (at most
        ``seconds``) until this process's listener hears of its key, as every other
        process's does at the same moment (the same commit signals them all), then hold
        it whatever was heard."""
        if self.mark.carried_by(fairplay.Candidates(dice)):
            return
        key, short_key = fairplay.box_keys(dice, rules)
        if self.listening and not _holds(self._unmarked, key):
            event = self._heard.setdefault(key, asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), seconds)
            except TimeoutError:
                self._heard.pop(key, None)
        self._hold(key, short_key)

    def _hold(self, key: int, short_key: int) -> None:
        _hold(self._unmarked, key)
        _hold(self._short_pairs if fairplay.of_pairs(short_key) else self._short_totals, short_key)

    async def _backfill_page(self, connection: Connection) -> int:
        rows = await connection.fetch(QUERIES.boxes_without_dice_key, _BACKFILL_PAGE)
        codes, keys, marks, short_keys = [], [], [], []
        for row in rows:
            flat = row["dice"]
            dice = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
            key, short_key = fairplay.box_keys(dice, msgspec.convert(row["rules"], Rules))
            codes.append(row["code"])
            keys.append(key)
            short_keys.append(short_key)
            marks.append(self.mark.carried_by(fairplay.Candidates(dice)))
        if rows:
            await connection.execute(QUERIES.set_box_dice_keys, codes, keys, marks, short_keys)
            log.info("gave boxes their dice keys", extra={"boxes": len(rows)})
        return len(rows)
