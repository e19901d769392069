"""Series, the pure rules: formats, standings, and what a player is shown of them
(PRODUCT.md §9). No I/O: the use case (``service.usecases.series``) reads the store and
hands these a series' state.

The standings are a pure function of the rounds' scores (``standings``); what a player
is shown of them is another (``view``): a round's scores only to a player who has played
that round (or once the series is over), the dice of the round the player plays next and
of no later one.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Final, Literal, Protocol

import msgspec
from msgspec import Meta

from service.rules.ruleset import Roll, Rules
from service.support.places import places

MAX_SEATS: Final = 16
"""Seats of a series, the computers' counted."""
MAX_ROUNDS: Final = 200
"""The most rounds a series is played: one that has not ended by then ends there (the
lowest total wins; under ``elimination``, among the players still in). It bounds what a
series holds: 16 seats of 200 scores at most."""

Computer = Literal["easy", "medium", "hard"]
OutWhen = Literal["reached", "exceeded"]
Status = Literal["open", "playing", "finished"]


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
    played: int
    """How many rounds the seat has played: whether it has played a round is shown to
    everyone, its score in it only as ``rounds`` says."""
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


class Holder(Protocol):
    """A player's seat (the store's ``Seat``)."""

    @property
    def player_id(self) -> uuid.UUID: ...

    @property
    def name(self) -> str | None: ...

    @property
    def seat(self) -> int: ...


@dataclass(frozen=True)
class SeriesState:
    """A series as it stands: who holds each seat (the creator the first, the computers
    the next, then the players in the order they joined) and every seat's score in every
    round issued (``issued`` of them)."""

    code: str
    rules: Rules
    format: Format
    shut_wins: bool
    holders: tuple[Holder | Computer, ...]
    scores: tuple[tuple[int | None, ...], ...]

    @property
    def seat_count(self) -> int:
        return len(self.holders)

    @property
    def issued(self) -> int:
        """The rounds issued so far."""
        return len(self.scores[0])

    def seat_of(self, player_id: uuid.UUID) -> int | None:
        return next(
            (h.seat for h in self.holders if not isinstance(h, str) and h.player_id == player_id),
            None,
        )

    def has_played(self, seat: int, round_number: int) -> bool:
        return round_number <= self.issued and self.scores[seat][round_number - 1] is not None

    def played(self, seat: int) -> int:
        """How many rounds the seat has played (a player plays them in order)."""
        return sum(score is not None for score in self.scores[seat])

    def standings(self) -> Standings:
        return standings(self.format, self.shut_wins, self.scores)

    def with_score(self, seat: int, round_number: int, score: int) -> SeriesState:
        row = list(self.scores[seat])
        row[round_number - 1] = score
        scores = (*self.scores[:seat], tuple(row), *self.scores[seat + 1 :])
        return replace(self, scores=scores)

    def with_rounds(self, computer_scores: Sequence[Sequence[int]]) -> SeriesState:
        """The state with the rounds issued now (``computer_scores``: each round's
        scores of the computer seats, in their order): no player has played the new."""
        rounds = len(computer_scores)
        scores = [
            tuple(r[seat - 1] for r in computer_scores)
            if isinstance(self.holders[seat], str)
            else (*row, *([None] * (rounds - len(row))))
            for seat, row in enumerate(self.scores)
        ]
        return replace(self, scores=tuple(scores))


def next_round(state: SeriesState, result: Standings, seat: int) -> int | None:
    """The round the seat plays next, if any."""
    if result.finished or result.is_out(seat):
        return None
    number = state.played(seat) + 1
    return number if number <= last_round(state.format) else None


def status_of(result: Standings) -> Status:
    """``open`` until its first round is complete (players may join), then ``playing``
    until it is ``finished``."""
    return "finished" if result.finished else "open" if result.rounds_complete == 0 else "playing"


def view(
    state: SeriesState, result: Standings, viewer: int, coming: NextRound | None
) -> SeriesView:
    """The series as the player in seat ``viewer`` sees it: another seat's score in a
    round only once the viewer has played that round, or the series is finished."""
    shown_up_to = state.played(viewer)
    rounds_shown = result.rounds_complete if result.finished else state.issued
    players = []
    for seat, scores in enumerate(state.scores):
        rounds = tuple(
            scores[k]
            if result.counts(seat, k + 1) and (seat == viewer or k < shown_up_to or result.finished)
            else None
            for k in range(rounds_shown)
        )
        holder = state.holders[seat]
        human = None if isinstance(holder, str) else holder
        players.append(
            PlayerView(
                seat=seat,
                player_id=human.player_id if human is not None else None,
                name=human.name if human is not None else None,
                computer=holder if isinstance(holder, str) else None,
                total=sum(score for score in rounds if score is not None),
                rounds=rounds,
                played=state.played(seat),
                out=result.is_out(seat),
                place=result.places[seat] if result.places is not None else None,
            )
        )
    return SeriesView(
        code=state.code,
        rules=state.rules,
        format=state.format,
        shut_wins=state.shut_wins,
        status=status_of(result),
        rounds_complete=result.rounds_complete,
        next=coming,
        players=tuple(players),
        winners=result.winners,
    )
