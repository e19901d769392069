"""Series, the use cases: a game night over several rounds (PRODUCT.md §9).

A series has rules, a format and up to ``MAX_SEATS`` seats: players, who join by code
before its first round is complete, and computer players. Each round is a sequence of
its own (``series/<code>/<round>``), issued when the first player reaches it, its dice
derived from the secret as a Friend Box's are; the computer seats play it then. A
player plays round k + 1 once they have played round k, at their own pace, one run a
round (the identical run again is the stored answer; another is refused).

What the standings are and what a player is shown of them are pure rules of their own
(``service.usecases.standings``); this reads and writes the store around them, and
refuses what the rules do not allow.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Final

import msgspec

from service.rules import computers
from service.rules.analysis import Report, report
from service.rules.dice import ALGORITHM, derive_dice
from service.rules.replay import Move
from service.rules.ruleset import Rules
from service.rules.solver import Tables
from service.store import sequences
from service.store import series as store
from service.store.cache import Cache
from service.store.db import Connection, Database, connection_of
from service.store.runs import Accepted, moves_digest, resubmission
from service.store.series import IssuedRound, NewRound, NewSeriesRun, Seat, SeriesRow
from service.support.codes import new_code
from service.usecases.standings import (
    MAX_SEATS,
    Computer,
    Format,
    Holder,
    NextRound,
    SeriesState,
    SeriesView,
    Status,
    next_round,
    status_of,
    view,
)
from service.usecases.tables import HoldTables

_CODE_ATTEMPTS: Final = 5
STRATEGIES: Final[dict[str, computers.Strategy]] = {c.name: c for c in computers.COMPUTERS}


def round_sequence_id(code: str, round_number: int) -> str:
    """The id of a series round's sequence."""
    return f"series/{code}/{round_number}"


@dataclass(frozen=True)
class Stored:
    """A series as stored: its row, its rounds issued, and the state they make."""

    row: SeriesRow
    rounds: tuple[IssuedRound, ...]
    state: SeriesState

    def round(self, number: int) -> IssuedRound | None:
        return self.rounds[number - 1] if number <= len(self.rounds) else None


def state_of(
    row: SeriesRow,
    seats: Sequence[Seat],
    rounds: Sequence[IssuedRound],
    scores: Sequence[store.RoundScore],
) -> Stored:
    """The state of a series from its rows (a player's seat is stored; a computer's is
    1 + its index in ``row.computers``)."""
    levels = msgspec.convert(row.computers, tuple[Computer, ...])
    holders: list[Holder | Computer] = [seats[0], *levels, *seats[1:]]
    assert all(isinstance(h, str) or h.seat == at for at, h in enumerate(holders)), holders
    table: list[list[int | None]] = [
        [r.computer_scores[at - 1] for r in rounds]
        if isinstance(holder, str)
        else [None] * len(rounds)
        for at, holder in enumerate(holders)
    ]
    seat_of = {seat.player_id: seat.seat for seat in seats}
    for scored in scores:
        table[seat_of[scored.player_id]][scored.round - 1] = scored.score
    state = SeriesState(
        code=row.code,
        rules=msgspec.convert(row.rules, Rules),
        format=msgspec.convert(row.format, Format),
        shut_wins=row.shut_wins,
        holders=tuple(holders),
        scores=tuple(tuple(r) for r in table),
    )
    return Stored(row=row, rounds=tuple(rounds), state=state)


class UnknownSeries(Exception):
    """No series has this code."""


class NotAPlayer(Exception):
    """The player has no seat in the series."""


class SeriesStarted(Exception):
    """The series' first round is complete: nobody joins any more."""


class SeriesFull(Exception):
    """Every seat of the series is taken."""


class SeriesFinished(Exception):
    """The series is over: no round is played any more."""


class OutOfSeries(Exception):
    """The player is out of the series (``elimination``)."""


class RoundNotReached(Exception):
    """The player has not reached this round: ``next`` is the one they play next (None:
    they have played the series' last round)."""

    def __init__(self, round_number: int, next_number: int | None) -> None:
        self.round, self.next = round_number, next_number
        super().__init__(round_number)


class PlayedRound(msgspec.Struct, frozen=True):
    """A run of a round just verified and stored: what its answer is made of."""

    verified: Report
    sequence: str
    run_id: uuid.UUID
    series: SeriesView


async def _state(database: Database, row: SeriesRow) -> Stored:
    code = row.code
    return state_of(
        row,
        await store.seats(database, code),
        await store.rounds(database, code),
        await store.scores(database, code),
    )


async def _seen_by(database: Database, cache: Cache, stored: Stored, seat: int) -> SeriesView:
    """``view`` of the series for a seat, with the dice of the round it plays next."""
    state = stored.state
    result = state.standings()
    coming = None
    number = next_round(state, result, seat)
    issued = stored.round(number) if number is not None else None
    if number is not None and issued is not None:
        sequence = await sequences.stored(database, cache, issued.sequence_id)
        assert sequence is not None, "a round's sequence is stored with it"
        coming = NextRound(round=number, dice=sequence.dice)
    return view(state, result, seat, coming)


async def _issue(
    connection: Connection,
    cache: Cache,
    secret: bytes,
    row: SeriesRow,
    rules: Rules,
    round_number: int,
    tables: Tables,
    now: datetime,
) -> None:
    """Issue a round: dice derived as a box's, then the computer seats' runs of them."""
    sequence_id = round_sequence_id(row.code, round_number)
    dice = derive_dice(secret, sequence_id, rules.rolls)
    issued = await sequences.create(connection, cache, sequence_id, rules, dice, ALGORITHM, now)
    assert issued is not None, "a round's sequence is issued once, under the series' lock"
    runs = []
    for index, kind in enumerate(row.computers):
        # The second Easy seat of a series (and so on) draws its own random numbers.
        same_before = row.computers[:index].count(kind)
        seed = sequence_id if same_before == 0 else f"{sequence_id}#{same_before + 1}"
        runs.append(computers.play(tables, STRATEGIES[kind], rules.start_position, dice, seed))
    await store.insert_round(
        connection,
        NewRound(
            code=row.code,
            round=round_number,
            sequence_id=sequence_id,
            computer_moves=[[m.as_json() for m in run.moves] for run in runs],
            computer_scores=[run.score for run in runs],
            issued_at=now,
        ),
    )


async def create(
    database: Database,
    cache: Cache,
    secret: bytes,
    creator_id: uuid.UUID,
    rules: Rules,
    format: Format,
    shut_wins: bool,
    seats: Sequence[Computer],
    hold: HoldTables,
    now: datetime,
) -> SeriesView:
    """A new series with a fresh code (a clash of random codes is retried), its creator
    in the first seat and its first round issued (the computer seats play it now)."""
    tables = await hold(rules)
    async with connection_of(database) as connection:
        for _ in range(_CODE_ATTEMPTS):
            code = new_code()
            async with connection.transaction():
                created = await store.insert(
                    connection,
                    code,
                    creator_id,
                    rules.stored(),
                    msgspec.to_builtins(format),
                    shut_wins,
                    seats,
                    now,
                )
                if not created:
                    continue
                row = await store.series(connection, code)
                assert row is not None, "a series just stored must be found"
                await _issue(connection, cache, secret, row, rules, 1, tables, now)
                return await _seen_by(connection, cache, await _state(connection, row), 0)
    raise RuntimeError("no free series code after several attempts")


async def _series(database: Database, code: str) -> SeriesRow:
    row = await store.series(database, code)
    if row is None:
        raise UnknownSeries(code)
    return row


async def show(database: Database, cache: Cache, code: str, player_id: uuid.UUID) -> SeriesView:
    """The series as one of its players sees it; ``NotAPlayer`` for anyone else."""
    stored = await _state(database, await _series(database, code))
    seat = stored.state.seat_of(player_id)
    if seat is None:
        raise NotAPlayer(code)
    return await _seen_by(database, cache, stored, seat)


async def join(
    database: Database, cache: Cache, code: str, player_id: uuid.UUID, now: datetime
) -> tuple[bool, SeriesView]:
    """Take the next free seat of the series (True), or the player's own again (False).
    Raises ``SeriesStarted`` once its first round is complete, ``SeriesFull``."""
    async with connection_of(database) as connection, connection.transaction():
        row = await store.locked(connection, code)
        if row is None:
            raise UnknownSeries(code)
        stored = await _state(connection, row)
        seat = stored.state.seat_of(player_id)
        if seat is not None:
            return False, await _seen_by(connection, cache, stored, seat)
        if stored.state.standings().rounds_complete > 0:
            raise SeriesStarted(code)
        seats = stored.state.seat_count
        if seats >= MAX_SEATS:
            raise SeriesFull(code)
        await store.add_player(connection, code, player_id, seats, now)
        stored = await _state(connection, row)
        seat = stored.state.seat_of(player_id)
        assert seat is not None, "a seat just taken must be found"
        return True, await _seen_by(connection, cache, stored, seat)


def _may_play(state: SeriesState, seat: int, round_number: int) -> None:
    """Raise why the seat, which has no run of this round, may not play it now."""
    result = state.standings()
    coming = next_round(state, result, seat)
    if coming == round_number:
        return
    if result.finished:
        raise SeriesFinished(state.code)
    if result.is_out(seat):
        raise OutOfSeries(state.code)
    raise RoundNotReached(round_number, coming)


async def submit(
    database: Database,
    cache: Cache,
    secret: bytes,
    code: str,
    round_number: int,
    player_id: uuid.UUID,
    moves: Sequence[Move],
    hold: HoldTables,
    now: datetime,
    respond: Callable[[PlayedRound], bytes],
) -> Accepted:
    """Verify and store the player's run of a round, unless they have one: the identical
    run again gives the stored answer; another raises ``AlreadyPlayed``. Playing it may
    complete rounds and end the series; it issues the player's next round (the computer
    seats play it then). ``respond`` makes the answer, stored with the run.

    Raises ``UnknownSeries``, ``NotAPlayer``, ``RoundNotReached`` (before the run is
    verified: a round's dice, which an illegal run's problem names, are shown to nobody
    who has not reached it), an ``IllegalRun``, ``SeriesFinished``, ``OutOfSeries``."""
    stored = await _state(database, await _series(database, code))
    state = stored.state
    seat = state.seat_of(player_id)
    if seat is None:
        raise NotAPlayer(code)
    if not state.has_played(seat, round_number):
        _may_play(state, seat, round_number)
    issued_round = stored.round(round_number)
    assert issued_round is not None, "a round the player reached is issued"
    issued = await sequences.stored(database, cache, issued_round.sequence_id)
    assert issued is not None, "a round's sequence is stored with it"
    tables = await hold(state.rules)
    verified = report(state.rules, issued.dice, moves, issued.id)
    canonical: list[object] = [m.as_json() for m in verified.run.moves]
    digest = moves_digest(canonical)

    async with connection_of(database) as connection, connection.transaction():
        row = await store.locked(connection, code)
        assert row is not None, "a series is never removed"
        again = resubmission(await store.run_of(connection, code, round_number, player_id), digest)
        if again is not None:
            return again
        stored = await _state(connection, row)
        _may_play(stored.state, seat, round_number)
        score = verified.run.score
        state = stored.state.with_score(seat, round_number, score)
        result = state.standings()
        if result.finished:
            await store.finish(connection, code, now)
        else:
            coming = next_round(state, result, seat)
            if coming is not None and stored.round(coming) is None:
                await _issue(connection, cache, secret, row, state.rules, coming, tables, now)
                rounds = await store.rounds(connection, code)
                state = state.with_rounds([r.computer_scores for r in rounds])
                stored = replace(stored, rounds=tuple(rounds))
        stored = replace(stored, state=state)
        run_id = uuid.uuid4()
        body = respond(
            PlayedRound(
                verified=verified,
                sequence=issued.id,
                run_id=run_id,
                series=await _seen_by(connection, cache, stored, seat),
            )
        )
        await store.insert_run(
            connection,
            NewSeriesRun(
                code=code,
                round=round_number,
                player_id=player_id,
                moves=canonical,
                moves_digest=digest,
                score=score,
                shut=verified.run.shut,
                submitted_at=now,
            ),
            run_id,
            body,
        )
    return Accepted(created=True, body=body)


class SeriesOfPlayer(msgspec.Struct, frozen=True):
    """One of the series a player is in, in brief: where it stands for them."""

    code: str
    format: Format
    status: Status
    rounds_complete: int
    next_round: int | None
    """The round the player plays next (None: none: played them all, out, or finished)."""
    place: int | None
    """The player's place once the series is finished."""


async def of_player(
    database: Database, player_id: uuid.UUID, status: Status | None, limit: int, offset: int
) -> list[SeriesOfPlayer]:
    """A page of the series the player is in, newest first (only those of ``status``
    unless it is None), each as its standings have it now for the player's seat."""
    codes = await store.codes_of_player(database, player_id, status, limit, offset)
    found = await store.many(database, codes)
    page = []
    for code in codes:
        rows = found[code]
        state = state_of(rows.row, rows.seats, rows.rounds, rows.scores).state
        seat = state.seat_of(player_id)
        assert seat is not None, "the player's series have the player's seat"
        result = state.standings()
        page.append(
            SeriesOfPlayer(
                code=code,
                format=state.format,
                status=status_of(result),
                rounds_complete=result.rounds_complete,
                next_round=next_round(state, result, seat),
                place=result.places[seat] if result.places is not None else None,
            )
        )
    return page


class InvitedSeat(msgspec.Struct, frozen=True):
    """A seat as someone holding the series' code sees it before joining."""

    name: str | None
    computer: Computer | None


class SeriesInvite(msgspec.Struct, frozen=True):
    """What someone holding a series' code is shown before joining it: who made it, how
    it is played, and, while it is open, who sits at it (its scores: only to players)."""

    code: str
    owner: str | None
    """The creator's name."""
    rules: Rules
    format: Format
    shut_wins: bool
    status: Status
    seats: int
    """The seats taken, the computers' counted."""
    players: tuple[InvitedSeat, ...]
    """Every seat, in seat order, while the series is open (anyone may join then, and so
    see them); empty once it has begun."""
    joined: bool
    """Whether the player asking is in the series already."""


async def invite(database: Database, code: str, player_id: uuid.UUID) -> SeriesInvite:
    """The series as its invitation shows it (``UnknownSeries``): no score, no dice."""
    stored = await _state(database, await _series(database, code))
    state = stored.state
    status = status_of(state.standings())
    holders = state.holders
    return SeriesInvite(
        code=code,
        owner=next(h.name for h in holders if not isinstance(h, str) and h.seat == 0),
        rules=state.rules,
        format=state.format,
        shut_wins=state.shut_wins,
        status=status,
        seats=state.seat_count,
        players=tuple(_invited(h) for h in holders) if status == "open" else (),
        joined=state.seat_of(player_id) is not None,
    )


def _invited(holder: Holder | Computer) -> InvitedSeat:
    if isinstance(holder, str):
        return InvitedSeat(name=None, computer=holder)
    return InvitedSeat(name=holder.name, computer=None)
