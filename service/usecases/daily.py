"""Official Daily Dice runs, the use cases: submit one, show one again.

The handler decodes and encodes; this verifies the run on the date's dice and has the
store keep it (compactly: moves, score, the rank and streak as they stood). What it
gives back is the verified report and the stored row, which the API renders, so that
an identical resubmission and a row written long ago both render with today's
response struct.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Final, NamedTuple

import asyncpg

from service.caching import LRU
from service.rules.analysis import Report, report
from service.rules.dice import daily_sequence_id
from service.rules.replay import Move
from service.rules.ruleset import Rules
from service.store import daily, sequences
from service.store.cache import Cache
from service.store.daily import DailyRun, NewRun, NotOpen, Stored, TokenRun, VerifiedRun
from service.store.db import Connection
from service.store.players import PlayerRow
from service.store.ranks import Histograms, Rank
from service.store.sequences import IssuedSequence
from service.support.calendar import is_open_for
from service.support.i18n import player_language

DATES_KEPT: Final = 16
"""Dates whose dice a process keeps (the few open now, and those shown lately)."""
RUNS_KEPT: Final = DATES_KEPT * 256
"""Verified runs a process keeps, by date and moves as sent (a few KiB each): some 256
for each date kept. Everyone plays the date's dice, and their runs repeat: uniformly
random legal play on the standard Daily Dice makes 7 to 41 distinct runs in 3,000, and
players choose far less evenly. So most runs of a date are verified and analysed once
a process, not once a run."""


class TokenHash(NamedTuple):
    """A bearer token's hash (``service.store.players.token_hash``): a run sent with it
    is stored with the lookup of its player."""

    digest: bytes


class Submission(NamedTuple):
    """A stored official run: its player, whether it was stored now (else it was the
    identical run again), its verified report on the dice of ``sequence``, the row."""

    player: PlayerRow
    created: bool
    verified: Report
    sequence: str
    run: DailyRun


class DateNotOpen(Exception):
    """The date is not open for this player now."""

    def __init__(self, day: date, player: PlayerRow, now: datetime) -> None:
        self.day, self.player, self.now = day, player, now


@dataclass(eq=False)
class DailyRuns:
    """Official daily runs of one process: verified, stored (several to a transaction
    under load), rendered."""

    pool: asyncpg.Pool
    cache: Cache
    secret: bytes = field(repr=False)
    histograms: Histograms
    store_batch: Callable[[NewRun], Awaitable[Stored]]
    store_by_token: Callable[[TokenRun], Awaitable[tuple[PlayerRow, Stored]]]
    _dice: LRU[date, IssuedSequence] = field(
        default_factory=lambda: LRU("daily_dice", DATES_KEPT), init=False
    )
    _runs: LRU[tuple[str, tuple[Move, ...]], Report] = field(
        default_factory=lambda: LRU("daily_runs_verified", RUNS_KEPT), init=False
    )

    async def dice(self, day: date, now: datetime) -> IssuedSequence:
        """The date's dice: issued once, never changed, so kept here as they are."""
        issued = self._dice.get(day)
        if issued is None:
            issued = await sequences.issue(
                self.pool, self.cache, self.secret, daily_sequence_id(day), Rules(), now
            )
            self._dice.put(day, issued)
        return issued

    def verified(self, issued: IssuedSequence, moves: Sequence[Move]) -> Report:
        """``report`` of a run on the date's dice, kept (``RUNS_KEPT``): raises the
        ``IllegalRun`` of the first bad move."""
        key = (issued.id, tuple(moves))
        found = self._runs.get(key)
        if found is None:
            found = report(issued.rules, issued.dice, moves, issued.id)
            self._runs.put(key, found)
        return found

    async def submit(
        self,
        runner: PlayerRow | TokenHash,
        day: date,
        moves: Sequence[Move],
        now: datetime,
        connection: Connection | None = None,
    ) -> Submission:
        """Verify and store an official run of ``day``: of a player, or of the player of
        a bearer token (its hash), looked up with the batch's reads that store the run.

        ``connection``: the transaction to store it in (an idempotency key's: a player's
        run only), else it joins the submissions in flight in this process. Raises
        ``DateNotOpen``, an ``IllegalRun`` for a run that is not a legal turn,
        ``AlreadyPlayed`` for another run of a played date, ``UnknownToken``.
        """
        if isinstance(runner, PlayerRow) and not is_open_for(runner, day, now):
            raise DateNotOpen(day, runner, now)
        issued = await self.dice(day, now)
        verified = self.verified(issued, moves)
        run = VerifiedRun(
            day=day,
            moves=[m.as_json() for m in verified.run.moves],
            score=verified.run.score,
            best_possible=verified.best_possible,
            submitted_at=now,
        )
        if isinstance(runner, TokenHash):
            try:
                player, stored = await self.store_by_token(TokenRun(runner.digest, run))
            except NotOpen as refused:
                raise DateNotOpen(day, refused.player, now) from None
            player_language(player.language)
        else:
            player = runner
            new = run.of(player)
            stored = await (
                self.store_batch(new) if connection is None else daily.submit(connection, new)
            )
        # The stored run has these very moves (an identical resubmission too): its answer
        # is the one just verified, with what the store decided.
        return Submission(player, stored.created, verified, issued.id, stored.run)

    async def official(self, player_id: uuid.UUID, day: date) -> DailyRun | None:
        return await daily.official_run(self.pool, player_id, day)

    async def rank_now(self, run: DailyRun) -> Rank:
        """A stored run's rank as it stands now."""
        return await self.histograms.rank(run.day, run.score)

    async def replayed(self, run: DailyRun, now: datetime) -> tuple[Report, str]:
        """A stored run replayed and analysed on its dice again, and their sequence."""
        issued = await self.dice(run.day, now)
        return self.verified(issued, [Move.from_json(m) for m in run.moves]), issued.id
