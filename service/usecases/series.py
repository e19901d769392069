"""Series, the use cases: a game night over several rounds (PRODUCT.md §9).

A series has rules, a format and up to ``MAX_SEATS`` seats: players, who join by code
before its first round is complete, and computer players. Each round is a sequence of
its own (``series/<code>/<round>``), issued when the first player reaches it, its dice
derived from the secret as a Friend Box's are; the computer seats play it then. A
player plays round k + 1 once they have played round k, at their own pace, one run a
round (the identical run again is the stored answer; another is refused).

The standings are a pure function of the rounds' scores (``standings``); what a player
is shown of them is another (``view``): a round's scores only to a player who has played
that round (or once the series is over), the dice of the round the player plays next and
of no later one.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Annotated, Final, Literal

import msgspec
from msgspec import Meta

from service.rules import computers
from service.rules.analysis import Report, report
from service.rules.dice import ALGORITHM, derive_dice
from service.rules.replay import Move
from service.rules.ruleset import Roll, Rules
from service.rules.solver import Tables
from service.store import sequences
from service.store import series as store
from service.store.cache import Cache
from service.store.db import Connection, Database, connection_of
from service.store.runs import Accepted, moves_digest, resubmission
from service.store.series import IssuedRound, NewRound, NewSeriesRun, Seat, SeriesRow
from service.support.codes import new_code
from service.support.places import places

MAX_SEATS: Final = 16
"""Seats of a series, the computers' counted."""
MAX_ROUNDS: Final = 200
"""The most rounds a series is played: one that has not ended by then ends there (the
lowest total wins; under ``elimination``, among the players still in). It bounds what a
series holds: 16 seats of 200 scores at most."""
_CODE_ATTEMPTS: Final = 5

Computer = Literal["easy", "medium", "hard"]
OutWhen = Literal["reached", "exceeded"]
Status = Literal["open", "playing", "finished"]
STRATEGIES: Final[dict[str, computers.Strategy]] = {c.name: c for c in computers.COMPUTERS}


class Rounds(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="kind", tag="rounds"
):
    """A fixed number of rounds; the lowest total wins."""

    rounds: Annotated[int, Meta(ge=1, le=20, description="How many rounds: 1..20.")]


class ToScore(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="kind", tag="to_score"
):
    """Rounds until, at a complete round, some player's total reaches the target; the
    lowest total then wins."""

    target: Annotated[
        int, Meta(ge=10, le=1000, description="The total that ends the series: 10..1000.")
    ]


class Elimination(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="kind", tag="elimination"
):
    """After each complete round a player whose total reaches (or exceeds) the limit is
    out; the last player left wins (players out in the same last round: by total)."""

    limit: Annotated[int, Meta(ge=5, le=1000, description="The total that puts a player out.")]
    out_when: Annotated[
        OutWhen,
        Meta(
            description="`reached`: out at a total of `limit` or more; `exceeded`: out at a "
            "total above it."
        ),
    ] = "reached"


Format = Rounds | ToScore | Elimination


def last_round(format: Format) -> int:
    """The last round a series of this format can have."""
    return format.rounds if isinstance(format, Rounds) else MAX_ROUNDS


def round_sequence_id(code: str, round_number: int) -> str:
    """The id of a series round's sequence."""
    return f"series/{code}/{round_number}"


# The standings: a pure function of the rounds' scores.


class Standings(msgspec.Struct, frozen=True):
    """Where a series stands after its complete rounds."""

    rounds_complete: int
    """The complete rounds that count: every seat still in has played them (once the
    series is finished, up to its last round)."""
    finished: bool
    totals: tuple[int, ...]
    """Each seat's total over the complete rounds it played in."""
    out_after: tuple[int | None, ...]
    """The round after which each seat went out (``elimination``), else None."""
    places: tuple[int, ...] | None
    """Each seat's place once finished (1 is the best; ties share a place), else None."""
    winners: tuple[int, ...]
    """The seats in first place, once finished."""

    def is_out(self, seat: int) -> bool:
        return self.out_after[seat] is not None

    def counts(self, seat: int, round_number: int) -> bool:
        """Whether the seat's score in this round counts: it was still in then, and the
        round is not past the end of a finished series."""
        out_after = self.out_after[seat]
        return (out_after is None or round_number <= out_after) and (
            not self.finished or round_number <= self.rounds_complete
        )


def _goes_out(total: int, format: Elimination) -> bool:
    return total >= format.limit if format.out_when == "reached" else total > format.limit


def standings(format: Format, shut_wins: bool, scores: Sequence[Sequence[int | None]]) -> Standings:
    """The standings of a series whose seat ``s`` scored ``scores[s][k]`` in round k + 1
    (None, or a list too short: not played yet). A score of 0 is a shut box.

    A round is complete when every seat still in has played it; the series ends at the
    first complete round that ends it (its format, ``shut_wins``, or its last round).

    >>> s = standings(Rounds(rounds=2), False, [[3, 0], [5, 1], [3]])
    >>> s.rounds_complete, s.finished
    (1, False)
    >>> s = standings(Rounds(rounds=2), False, [[3, 0], [5, 1], [3, 0]])
    >>> s.finished, s.places, s.winners
    (True, (1, 3, 1), (0, 2))
    """
    seats = len(scores)
    out_after: list[int | None] = [None] * seats
    totals = [0] * seats
    complete, finished, shutters = 0, False, list[int]()
    while complete < last_round(format):
        still_in = [s for s in range(seats) if out_after[s] is None]
        played = [scores[s][complete] if complete < len(scores[s]) else None for s in still_in]
        if not still_in or any(score is None for score in played):
            break
        complete += 1
        for seat, score in zip(still_in, played):
            totals[seat] += score or 0
        if shut_wins:
            shutters = [seat for seat, score in zip(still_in, played) if score == 0]
            if shutters:
                finished = True
                break
        if isinstance(format, ToScore) and any(totals[s] >= format.target for s in still_in):
            finished = True
            break
        if isinstance(format, Elimination):
            for seat in still_in:
                if _goes_out(totals[seat], format):
                    out_after[seat] = complete
            left = [s for s in still_in if out_after[s] is None]
            # The last one left wins; one who plays alone plays until out.
            if not left or (len(left) == 1 and seats > 1):
                finished = True
                break
    else:
        finished = complete > 0  # the last round is complete

    seat_places: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()
    if finished:

        def rank_key(seat: int) -> tuple[int, int, int]:
            if seat in shutters:
                return (0, 0, 0)  # a shut box wins at once, whatever the totals
            out = out_after[seat]
            # Those still in first; then those out later before those out earlier.
            stage = 0 if out is None else complete - out + 1
            return (1, stage, totals[seat])

        keys = [rank_key(seat) for seat in range(seats)]
        seat_places = tuple(places(keys))
        winners = tuple(seat for seat in range(seats) if seat_places[seat] == 1)
    return Standings(
        rounds_complete=complete,
        finished=finished,
        totals=tuple(totals),
        out_after=tuple(out_after),
        places=seat_places,
        winners=winners,
    )


# What a player is shown.


class PlayerView(msgspec.Struct, frozen=True):
    """A seat as a player sees it."""

    seat: int
    player_id: uuid.UUID | None
    name: str | None
    computer: Computer | None
    total: int
    """The sum of the scores in ``rounds`` (those shown)."""
    rounds: tuple[int | None, ...]
    """A score per round issued (once finished, per round counted); None: not played,
    not counted, or not shown."""
    out: bool
    place: int | None


class NextRound(msgspec.Struct, frozen=True):
    round: int
    dice: tuple[Roll, ...]


class SeriesView(msgspec.Struct, frozen=True):
    """A series as one of its players sees it."""

    code: str
    rules: Rules
    format: Format
    shut_wins: bool
    status: Status
    rounds_complete: int
    next: NextRound | None
    players: tuple[PlayerView, ...]
    winners: tuple[int, ...]
    """The seats that won, once finished."""


@dataclass(frozen=True)
class SeriesState:
    """A series as stored: who holds each seat (the creator the first, the computers the
    next, then the players in the order they joined) and every seat's score in every
    round issued."""

    row: SeriesRow
    rules: Rules
    format: Format
    holders: tuple[Seat | Computer, ...]
    rounds: tuple[IssuedRound, ...]
    scores: tuple[tuple[int | None, ...], ...]

    @property
    def code(self) -> str:
        return self.row.code

    @property
    def seat_count(self) -> int:
        return len(self.holders)

    def seat_of(self, player_id: uuid.UUID) -> int | None:
        return next(
            (s.seat for s in self.holders if isinstance(s, Seat) and s.player_id == player_id),
            None,
        )

    def has_played(self, seat: int, round_number: int) -> bool:
        return round_number <= len(self.rounds) and self.scores[seat][round_number - 1] is not None

    def played(self, seat: int) -> int:
        """How many rounds the seat has played (a player plays them in order)."""
        return sum(score is not None for score in self.scores[seat])

    def standings(self) -> Standings:
        return standings(self.format, self.row.shut_wins, self.scores)

    def round(self, number: int) -> IssuedRound | None:
        return self.rounds[number - 1] if number <= len(self.rounds) else None

    def with_score(self, seat: int, round_number: int, score: int) -> SeriesState:
        row = list(self.scores[seat])
        row[round_number - 1] = score
        scores = (*self.scores[:seat], tuple(row), *self.scores[seat + 1 :])
        return replace(self, scores=scores)


def state_of(
    row: SeriesRow,
    seats: Sequence[Seat],
    rounds: Sequence[IssuedRound],
    scores: Sequence[store.RoundScore],
) -> SeriesState:
    """The state of a series from its rows (a player's seat is stored; a computer's is
    1 + its index in ``row.computers``)."""
    levels = msgspec.convert(row.computers, tuple[Computer, ...])
    holders: list[Seat | Computer] = [seats[0], *levels, *seats[1:]]
    assert all(isinstance(h, str) or h.seat == at for at, h in enumerate(holders)), holders
    table: list[list[int | None]] = [
        [None] * len(rounds)
        if isinstance(holder, Seat)
        else [r.computer_scores[at - 1] for r in rounds]
        for at, holder in enumerate(holders)
    ]
    seat_of = {seat.player_id: seat.seat for seat in seats}
    for scored in scores:
        table[seat_of[scored.player_id]][scored.round - 1] = scored.score
    return SeriesState(
        row=row,
        rules=msgspec.convert(row.rules, Rules),
        format=msgspec.convert(row.format, Format),
        holders=tuple(holders),
        rounds=tuple(rounds),
        scores=tuple(tuple(r) for r in table),
    )


def next_round(state: SeriesState, result: Standings, seat: int) -> int | None:
    """The round the seat plays next, if any."""
    if result.finished or result.is_out(seat):
        return None
    number = state.played(seat) + 1
    return number if number <= last_round(state.format) else None


def view(
    state: SeriesState, result: Standings, viewer: int, coming: NextRound | None
) -> SeriesView:
    """The series as the player in seat ``viewer`` sees it: another seat's score in a
    round only once the viewer has played that round, or the series is finished."""
    shown_up_to = state.played(viewer)
    rounds_shown = result.rounds_complete if result.finished else len(state.rounds)
    players = []
    for seat, scores in enumerate(state.scores):
        rounds = tuple(
            scores[k]
            if result.counts(seat, k + 1) and (seat == viewer or k < shown_up_to or result.finished)
            else None
            for k in range(rounds_shown)
        )
        holder = state.holders[seat]
        human = holder if isinstance(holder, Seat) else None
        players.append(
            PlayerView(
                seat=seat,
                player_id=human.player_id if human is not None else None,
                name=human.name if human is not None else None,
                computer=holder if not isinstance(holder, Seat) else None,
                total=sum(score for score in rounds if score is not None),
                rounds=rounds,
                out=result.is_out(seat),
                place=result.places[seat] if result.places is not None else None,
            )
        )
    status: Status = (
        "finished" if result.finished else "open" if result.rounds_complete == 0 else "playing"
    )
    return SeriesView(
        code=state.code,
        rules=state.rules,
        format=state.format,
        shut_wins=state.row.shut_wins,
        status=status,
        rounds_complete=result.rounds_complete,
        next=coming,
        players=tuple(players),
        winners=result.winners,
    )


# The use cases.


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


HoldTables = Callable[[Rules], Awaitable[Tables]]
"""The exact tables of some rules, held in memory until the caller's next await (the
API's ``held_tables``: a variant not solved yet takes a solve, which it may refuse)."""


class PlayedRound(msgspec.Struct, frozen=True):
    """A run of a round just verified and stored: what its answer is made of."""

    verified: Report
    sequence: str
    run_id: uuid.UUID
    series: SeriesView


async def _state(database: Database, row: SeriesRow) -> SeriesState:
    code = row.code
    return state_of(
        row,
        await store.seats(database, code),
        await store.rounds(database, code),
        await store.scores(database, code),
    )


async def _seen_by(database: Database, cache: Cache, state: SeriesState, seat: int) -> SeriesView:
    """``view`` of the series for a seat, with the dice of the round it plays next."""
    result = state.standings()
    coming = None
    number = next_round(state, result, seat)
    issued = state.round(number) if number is not None else None
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
    state = await _state(database, await _series(database, code))
    seat = state.seat_of(player_id)
    if seat is None:
        raise NotAPlayer(code)
    return await _seen_by(database, cache, state, seat)


async def join(
    database: Database, cache: Cache, code: str, player_id: uuid.UUID, now: datetime
) -> tuple[bool, SeriesView]:
    """Take the next free seat of the series (True), or the player's own again (False).
    Raises ``SeriesStarted`` once its first round is complete, ``SeriesFull``."""
    async with connection_of(database) as connection, connection.transaction():
        row = await store.locked(connection, code)
        if row is None:
            raise UnknownSeries(code)
        state = await _state(connection, row)
        seat = state.seat_of(player_id)
        if seat is not None:
            return False, await _seen_by(connection, cache, state, seat)
        if state.standings().rounds_complete > 0:
            raise SeriesStarted(code)
        if state.seat_count >= MAX_SEATS:
            raise SeriesFull(code)
        await store.add_player(connection, code, player_id, state.seat_count, now)
        state = await _state(connection, row)
        seat = state.seat_of(player_id)
        assert seat is not None, "a seat just taken must be found"
        return True, await _seen_by(connection, cache, state, seat)


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
    state = await _state(database, await _series(database, code))
    seat = state.seat_of(player_id)
    if seat is None:
        raise NotAPlayer(code)
    if not state.has_played(seat, round_number):
        _may_play(state, seat, round_number)
    issued_round = state.round(round_number)
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
        state = await _state(connection, row)
        _may_play(state, seat, round_number)
        score = verified.run.score
        state = state.with_score(seat, round_number, score)
        result = state.standings()
        if result.finished:
            await store.finish(connection, code, now)
        else:
            coming = next_round(state, result, seat)
            if coming is not None and state.round(coming) is None:
                await _issue(connection, cache, secret, row, state.rules, coming, tables, now)
                state = _with_rounds(state, await store.rounds(connection, code))
        run_id = uuid.uuid4()
        body = respond(
            PlayedRound(
                verified=verified,
                sequence=issued.id,
                run_id=run_id,
                series=await _seen_by(connection, cache, state, seat),
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


def _with_rounds(state: SeriesState, rounds: Sequence[IssuedRound]) -> SeriesState:
    """The state with a round more issued: the computer seats' scores in it, no player's."""
    scores = [
        (*row, *([None] * (len(rounds) - len(row))))
        if isinstance(state.holders[seat], Seat)
        else tuple(r.computer_scores[seat - 1] for r in rounds)
        for seat, row in enumerate(state.scores)
    ]
    return replace(state, rounds=tuple(rounds), scores=tuple(scores))
