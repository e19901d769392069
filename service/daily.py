"""Official Daily Dice runs, the use cases: submit one, show one again.

The handler decodes and encodes; this verifies the run on the date's dice, has the
store keep it (compactly: moves, score, the rank and streak as they stood) and
renders its answer from what is stored, so that an identical resubmission and a row
written long ago both render with today's response struct.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Final, Literal

import asyncpg
import msgspec

from service.api.schemas import (
    MoveIn,
    OfficialRunResult,
    RunResult,
    ShownOnce,
    Streak,
    move_in,
    run_result,
)
from service.calendar import open_dates
from service.i18n import current, player_language
from service.rules.analysis import Report, report
from service.rules.dice import daily_sequence_id
from service.rules.replay import Move
from service.rules.ruleset import Rules
from service.store import daily, sequences
from service.store.cache import Cache
from service.store.daily import DailyRun, NewRun, NotOpen, Stored, TokenRun
from service.store.db import Connection
from service.store.players import PlayerRow
from service.store.ranks import Histograms, Rank
from service.store.sequences import IssuedSequence

_moves = msgspec.json.Decoder(list[MoveIn])
DATES_KEPT: Final = 16
RUNS_KEPT: Final = 256
"""Verified runs a date keeps, by their moves as sent (a few KiB each). Everyone plays
the date's dice, and their runs repeat: uniformly random legal play on the standard
Daily Dice makes 7 to 41 distinct runs in 3,000, and players choose far less evenly.
So most runs of a date are verified and analysed once a process, not once a run."""


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
    _dice: dict[date, IssuedSequence] = field(default_factory=dict, init=False)
    _runs: dict[str, dict[tuple[Move, ...], Report]] = field(default_factory=dict, init=False)

    async def dice(self, day: date, now: datetime) -> IssuedSequence:
        """The date's dice: issued once, never changed, so kept here as they are."""
        issued = self._dice.get(day)
        if issued is None:
            issued = await sequences.issue(
                self.pool, self.cache, self.secret, daily_sequence_id(day), Rules(), now
            )
            if len(self._dice) >= DATES_KEPT:
                self._dice.pop(next(iter(self._dice)))
            self._dice[day] = issued
        return issued

    def verified(self, issued: IssuedSequence, moves: Sequence[Move]) -> Report:
        """``report`` of a run on the date's dice, kept (``RUNS_KEPT``): raises the
        ``IllegalRun`` of the first bad move."""
        kept = self._runs.get(issued.id)
        if kept is None:
            if len(self._runs) >= DATES_KEPT:
                self._runs.pop(next(iter(self._runs)))
            kept = self._runs[issued.id] = {}
        key = tuple(moves)
        found = kept.get(key)
        if found is None:
            found = report(issued.rules, issued.dice, moves, issued.id)
            if len(kept) < RUNS_KEPT:
                kept[key] = found
        return found

    async def submit(
        self,
        player: PlayerRow,
        day: date,
        moves: Sequence[Move],
        now: datetime,
        connection: Connection | None = None,
    ) -> tuple[bool, bytes]:
        """Verify and store the player's official run of ``day``: (created, its answer,
        encoded: a ``DailyRunResult``).

        ``connection``: the transaction to store it in (an idempotency key's), else it
        joins the submissions in flight in this process. Raises ``DateNotOpen``, an
        ``IllegalRun`` for a run that is not a legal turn, ``AlreadyPlayed`` for another
        run of a played date.
        """
        if day not in open_dates(now, player.time_zone, player.closed_before):
            raise DateNotOpen(day, player, now)
        issued = await self.dice(day, now)
        verified = self.verified(issued, moves)
        new = NewRun(
            player_id=player.id,
            day=day,
            moves=[m.as_json() for m in verified.run.moves],
            score=verified.run.score,
            best_possible=verified.analysis.best_possible,
            submitted_at=now,
            time_zone=player.time_zone,
        )
        if connection is None:
            stored = await self.store_batch(new)
        else:
            stored = await daily.submit(connection, new)
        # The stored run has these very moves (an identical resubmission too): its answer
        # is the one just verified, with what the store decided.
        return stored.created, submitted(verified, issued.id, stored.run)

    async def submit_by_token(
        self, token_hash: bytes, day: date, moves: Sequence[Move], now: datetime
    ) -> tuple[PlayerRow, bool, bytes]:
        """``submit`` for the player of a bearer token (its hash), looked up with the
        batch's reads: the player, created and the answer (in the player's language
        unless the request names one). Raises ``UnknownToken`` too."""
        issued = await self.dice(day, now)
        verified = self.verified(issued, moves)
        try:
            player, stored = await self.store_by_token(
                TokenRun(
                    token_hash=token_hash,
                    day=day,
                    moves=[m.as_json() for m in verified.run.moves],
                    score=verified.run.score,
                    best_possible=verified.analysis.best_possible,
                    submitted_at=now,
                )
            )
        except NotOpen as refused:
            raise DateNotOpen(day, refused.player, now) from None
        player_language(player.language)
        return player, stored.created, submitted(verified, issued.id, stored.run)

    async def official(self, player_id: uuid.UUID, day: date) -> DailyRun | None:
        return await daily.official_run(self.pool, player_id, day)

    async def shown_now(self, run: DailyRun, now: datetime) -> OfficialRunResult:
        """A stored run's answer with its rank as it stands now (and no streak)."""
        rank = await self.histograms.rank(run.day, run.score)
        return OfficialRunResult(**_stored(await self.replayed(run, now), run), rank=rank)

    async def replayed(self, run: DailyRun, now: datetime) -> RunResult:
        """A stored run's result: replayed and analysed on its dice again."""
        issued = await self.dice(run.day, now)
        moves = [move_in(m) for m in _moves.decode(msgspec.json.encode(run.moves))]
        return run_result(self.verified(issued, moves), issued.id)


def _stored(result: RunResult, run: DailyRun) -> dict[str, Any]:
    return msgspec.structs.asdict(result) | {"run_id": str(run.id), "official": True}


class AddedBySubmission(msgspec.Struct, frozen=True):
    """What a ``DailyRunResult`` has beyond its ``RunResult``, in its order."""

    run_id: str
    official: Literal[True]
    streak: Streak
    rank: Rank


_encoder = msgspec.json.Encoder()
_results: ShownOnce[Report, bytes] = ShownOnce(
    lambda verified, shown: _encoder.encode(run_result(verified, shown[1])), kept=1024
)
"""A kept run's result, encoded once per language (and sequence): ``submitted``."""


def submitted(verified: Report, sequence: str, run: DailyRun) -> bytes:
    """A submission's answer, encoded: its verified result, its id, the streak after it
    and its rank as it stood then. The run result is the same for every player who sent
    that run (``DailyRuns.verified``), so it is encoded once, and the submission's own
    fields joined to it: the bytes of the ``DailyRunResult`` (a test holds them to it)."""
    result = _results(verified, (current(), sequence))
    added = AddedBySubmission(
        run_id=str(run.id), official=True, streak=streak_of(run), rank=run.rank_at_submission
    )
    return result[:-1] + b"," + _encoder.encode(added)[1:]


def streak_of(run: DailyRun) -> Streak:
    """The player's streak as it stood after the run."""
    return Streak(
        current=run.streak_current,
        best=run.streak_best,
        last_played=run.streak_last_played,
        played_today=run.played_today,
    )
