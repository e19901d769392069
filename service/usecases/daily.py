"""Daily Dice, the use cases: submit an official run, show one again, the date's
leaderboard and who may see it, a spoiler-free share text.

The handler decodes and encodes; this verifies the run on the date's dice and has the
store keep it (compactly: moves, score, the rank and streak as they stood). What it
gives back is the verified report and the stored row, which the API renders, so that
an identical resubmission and a row written long ago both render with today's
response struct.

Share text format (one line each)::

    Shut the Box Challenge November 29, 2026     (in the language of the request or player)
    Score 7 in 6 rolls                (or: Shut the box in 8 rolls!)
    🟩🟩🟨🟩🟥⬛

One symbol per roll used, grading each choice against the expected-score optimum:
🟩 best, 🟨 inaccuracy, 🟧 mistake, 🟥 blunder; ⬛ the roll that could not be played.
No tiles and no dice: it spoils nothing for a friend who has not played yet.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Final, NamedTuple

import asyncpg

from service.caching import LRU
from service.rules.analysis import Hindsight, Report, report
from service.rules.dice import daily_sequence_id
from service.rules.errors import IllegalRun
from service.rules.replay import Move
from service.rules.ruleset import Rules
from service.store import daily, sequences
from service.store.cache import Cache
from service.store.daily import (
    DailyRun,
    NewRun,
    NotOpen,
    RunKey,
    Stored,
    TokenRun,
    VerifiedRun,
)
from service.store.players import PlayerRow
from service.store.ranks import Histograms, Rank
from service.store.runs import AlreadyPlayed
from service.store.sequences import IssuedSequence
from service.support.calendar import has_begun, has_closed_everywhere, is_open_for
from service.support.i18n import _, long_date, ngettext, number, player_language
from service.usecases.tables import HoldTables

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


class UnknownDate(Exception):
    """A date with no Daily Dice (yet): before ``launch`` (then set), or a date that has
    not begun anywhere on Earth."""

    def __init__(self, day: date, launch: date | None) -> None:
        self.day, self.launch = day, launch
        super().__init__(day)


class DateRefused(Exception):
    """A refusal about the date ``day``."""

    def __init__(self, day: date) -> None:
        self.day = day
        super().__init__(day)


class RankingHidden(DateRefused):
    """The rankings of the date are not shown to this caller (yet)."""


class NoOfficialRun(DateRefused):
    """The player has no official run of the date."""


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
        key: RunKey | None = None,
    ) -> Submission:
        """Verify and store an official run of ``day``: of a player, or of the player of
        a bearer token (its hash), looked up with the batch's reads that store the run;
        it joins the submissions in flight in this process. ``key``: the Idempotency-Key
        it is sent with, kept with the run (the identical run again with it:
        ``DailyRun.answers``, even once the date has closed for the player; another run
        with it, an illegal one too: ``AlreadyPlayed``, ``key_reused``). Raises
        ``DateNotOpen``, an ``IllegalRun`` for a run that is not a legal turn,
        ``AlreadyPlayed`` for another run of a played date, ``UnknownToken``.
        """
        issued = await self.dice(day, now)
        try:
            if isinstance(runner, PlayerRow) and not is_open_for(runner, day, now):
                raise DateNotOpen(day, runner, now)
            verified = self.verified(issued, moves)
            run = VerifiedRun(
                day=day,
                moves=stored_moves(verified),
                score=verified.run.score,
                best_possible=verified.best_possible,
                submitted_at=now,
            )
            if isinstance(runner, TokenHash):
                try:
                    player, stored = await self.store_by_token(TokenRun(runner.digest, run, key))
                except NotOpen as refused:
                    raise DateNotOpen(day, refused.player, now) from None
                player_language(player.language)
            else:
                player = runner
                stored = await self.store_batch(run.of(player, key))
        except (DateNotOpen, IllegalRun) as refused:
            # The key of a run stored: its retry after the date closed for the player (its
            # answer lost on the way) is answered as it was first; another run with it
            # (an illegal one too) is the key's refusal. A token's player is not known
            # yet: its handler asks again with the player.
            whose = refused.player if isinstance(refused, DateNotOpen) else runner
            if key is None or not isinstance(whose, PlayerRow):
                raise
            earlier = await self.official(whose.id, day)
            if earlier is None or not earlier.answers(key.id):
                raise
            try:
                again = self.verified(issued, moves)
            except IllegalRun:
                raise AlreadyPlayed(earlier.id, key_reused=True) from None
            if stored_moves(again) != earlier.moves:  # the batch's test of an identical run
                raise AlreadyPlayed(earlier.id, key_reused=True) from None
            return Submission(whose, False, again, issued.id, earlier)
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


def stored_moves(verified: Report) -> list[Any]:
    """A verified run's moves as its row stores them: two runs are identical when these
    are equal (``service.store.daily.Batch``)."""
    return [m.as_json() for m in verified.run.moves]


SYMBOLS: Final = {"best": "🟩", "inaccuracy": "🟨", "mistake": "🟧", "blunder": "🟥"}
UNPLAYABLE: Final = "⬛"


def check_begun(day: date, launch: date, now: datetime) -> None:
    """``UnknownDate`` for a date before ``launch`` or not begun anywhere on Earth."""
    if day < launch:
        raise UnknownDate(day, launch)
    if not has_begun(day, now):
        raise UnknownDate(day, None)


async def official_run(runs: DailyRuns, player: PlayerRow, day: date) -> DailyRun:
    """The player's official run of a date, else ``NoOfficialRun``."""
    stored = await runs.official(player.id, day)
    if stored is None:
        raise NoOfficialRun(day)
    return stored


async def check_ranking_shown(
    runs: DailyRuns,
    day: date,
    now: datetime,
    viewer: Callable[[], Awaitable[PlayerRow | None]],
    played: Callable[[PlayerRow], bool] | None = None,
) -> None:
    """``RankingHidden`` unless the rankings of a date may be shown: to anyone once it
    has closed everywhere on Earth, else to a player who has played it (``viewer``, asked
    only then; ``played``: whether they did, when the caller read it already, else their
    official run is looked up). The one rule of the date's leaderboard and of its
    friends' board."""
    if has_closed_everywhere(day, now):
        return
    player = await viewer()
    if player is None:
        raise RankingHidden(day)
    if not (played(player) if played else await runs.official(player.id, day) is not None):
        raise RankingHidden(day)


def share_text(day: date, verified: Report) -> str:
    """The share text in the request's language (else the player's), the date and
    numbers written as that language writes them."""
    symbols = "".join(SYMBOLS[m.label] if m.chosen else UNPLAYABLE for m in verified.analysis.moves)
    run = verified.run
    rolls = run.rolls_used
    outcome = (
        ngettext("Shut the box in {count} roll!", "Shut the box in {count} rolls!", rolls)
        if run.shut
        else ngettext(
            "Score {score} in {count} roll",
            "Score {score} in {count} rolls",
            rolls,
            score=number(run.score),
        )
    )
    title = _("Shut the Box Challenge {date}", date=long_date(day))
    return f"{title}\n{outcome}\n{symbols}"


class Shown(NamedTuple):
    """A player's official run shown again: replayed on the dice of ``sequence``, with
    its rank as it stands now."""

    verified: Report
    sequence: str
    run: DailyRun
    rank: Rank


async def shown(runs: DailyRuns, player: PlayerRow, day: date, now: datetime) -> Shown:
    """The player's official run of a date, replayed and ranked now; ``NoOfficialRun``."""
    stored = await official_run(runs, player, day)
    verified, sequence = await runs.replayed(stored, now)
    return Shown(verified, sequence, stored, await runs.rank_now(stored))


async def share(runs: DailyRuns, player: PlayerRow, day: date, now: datetime) -> str:
    """The share text of the player's official run of a date; ``NoOfficialRun``."""
    stored = await official_run(runs, player, day)
    verified, _sequence = await runs.replayed(stored, now)
    return share_text(day, verified)


class Board(NamedTuple):
    """A date's official runs taken together (``mean`` and ``shut_rate`` None: no run)."""

    players: int
    histogram: dict[int, int]
    mean: float | None
    shut_rate: float | None
    best_possible: int
    """The lowest score any line of choices reaches on the date's dice."""
    top: list[tuple[int, str | None, int]]
    """The best runs, best first: rank (ties share it), name, score."""


async def leaderboard(
    runs: DailyRuns,
    launch: date,
    day: date,
    now: datetime,
    viewer: Callable[[], Awaitable[PlayerRow | None]],
    limit: int,
    hold: HoldTables,
) -> Board:
    """The date's leaderboard (``limit`` best runs): ``UnknownDate``, or
    ``RankingHidden`` to whom it is not shown yet (``check_ranking_shown``)."""
    check_begun(day, launch, now)
    await check_ranking_shown(runs, day, now, viewer)
    issued = await runs.dice(day, now)
    rules = issued.rules
    tables = await hold(rules)
    best_possible = Hindsight(tables, issued.dice).best(rules.start_position, 0)
    board = await daily.leaderboard(runs.pool, day, limit)
    histogram = board.histogram
    players = sum(histogram.values())
    return Board(
        players=players,
        histogram=histogram,
        mean=sum(s * n for s, n in histogram.items()) / players if players else None,
        shut_rate=histogram.get(0, 0) / players if players else None,
        best_possible=best_possible,
        top=[(board.rank_of(score), name, score) for name, score in board.top],
    )
