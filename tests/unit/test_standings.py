"""The standings of a series: a pure function of its rounds' scores (``service.usecases.standings``)."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from service.api.series import ROUND
from service.rules.ruleset import Rules
from service.store.series import Seat
from service.usecases.standings import (
    MAX_ROUNDS,
    Computer,
    Elimination,
    Format,
    Holder,
    NextRound,
    Rounds,
    SeriesState,
    ToScore,
    last_round,
    next_round,
    standings,
    view,
)

Scores = list[list[int | None]]


def test_a_round_is_complete_when_every_seat_still_in_has_played_it() -> None:
    result = standings(Rounds(rounds=3), False, [[4, 7, 2], [5], [3, 1]])
    assert result.rounds_complete == 1
    assert not result.finished
    assert result.totals == (4, 5, 3)
    assert result.places is None and result.winners == ()


def test_rounds_the_lowest_total_wins_and_ties_share_a_place() -> None:
    result = standings(Rounds(rounds=2), False, [[4, 6], [9, 1], [5, 5], [12, 3]])
    assert result.finished and result.rounds_complete == 2
    assert result.totals == (10, 10, 10, 15)
    assert result.places == (1, 1, 1, 4)
    assert result.winners == (0, 1, 2)


def test_rounds_past_the_last_do_not_count() -> None:
    result = standings(Rounds(rounds=1), False, [[4, 30, 30], [5]])
    assert result.finished and result.rounds_complete == 1
    assert result.totals == (4, 5)
    assert not result.counts(0, 2)
    assert result.winners == (0,)


def test_to_score_ends_at_the_complete_round_where_a_total_reaches_the_target() -> None:
    # Seat 0 reaches 100 in round 2, but round 2 is complete only once seat 1 plays it.
    waiting = standings(ToScore(target=100), False, [[60, 45], [20]])
    assert not waiting.finished and waiting.rounds_complete == 1
    result = standings(ToScore(target=100), False, [[60, 45, 1], [20, 30, 1]])
    assert result.finished and result.rounds_complete == 2
    assert result.totals == (105, 50)
    assert result.winners == (1,) and result.places == (2, 1)


def test_to_score_a_total_just_below_the_target_goes_on() -> None:
    result = standings(ToScore(target=10), False, [[9], [3]])
    assert not result.finished
    assert standings(ToScore(target=10), False, [[10], [3]]).winners == (1,)


def test_elimination_the_last_player_left_wins() -> None:
    scores: Scores = [[20, 30], [10, 10], [46]]
    result = standings(Elimination(limit=45), False, scores)
    # Seat 2 is out after round 1; seat 0 after round 2, seat 1 is the last one left.
    assert result.finished and result.rounds_complete == 2
    assert result.out_after == (2, None, 1)
    assert result.winners == (1,)
    assert result.places == (2, 1, 3)


def test_elimination_players_out_in_the_same_last_round_are_ranked_by_total() -> None:
    result = standings(Elimination(limit=45), False, [[40, 9], [30, 20], [50]])
    assert result.finished and result.rounds_complete == 2
    assert result.out_after == (2, 2, 1)
    assert result.totals == (49, 50, 50)
    assert result.winners == (0,)
    assert result.places == (1, 2, 3)
    tied = standings(Elimination(limit=45), False, [[40, 10], [30, 20]])
    assert tied.places == (1, 1) and tied.winners == (0, 1)


def test_elimination_reached_or_exceeded() -> None:
    scores: Scores = [[45, 1], [10, 1]]
    assert standings(Elimination(limit=45), False, scores).out_after == (1, None)
    exceeded = standings(Elimination(limit=45, out_when="exceeded"), False, scores)
    assert exceeded.out_after == (2, None) and exceeded.rounds_complete == 2
    assert exceeded.winners == (1,)


def test_elimination_rounds_after_going_out_do_not_count() -> None:
    # Seat 0 played round 2 before round 1 was complete; out after round 1, it is not
    # waited for in round 2, and its score there counts for nothing.
    result = standings(Elimination(limit=45), False, [[50, 3], [10, 5], [10, 4]])
    assert result.rounds_complete == 2 and not result.finished
    assert result.out_after == (1, None, None)
    assert result.totals == (50, 15, 14)
    assert not result.counts(0, 2) and result.counts(1, 2)


def test_one_player_alone_plays_an_elimination_until_out() -> None:
    assert not standings(Elimination(limit=45), False, [[10, 20]]).finished
    alone = standings(Elimination(limit=45), False, [[10, 20, 15]])
    assert alone.finished and alone.winners == (0,) and alone.rounds_complete == 3


def test_a_shut_box_wins_at_once_when_its_round_is_complete() -> None:
    waiting = standings(Rounds(rounds=5), True, [[0], [None]])
    assert not waiting.finished
    result = standings(Rounds(rounds=5), True, [[9, 0], [3, 0], [2, 8]])
    assert result.finished and result.rounds_complete == 2
    assert result.winners == (0, 1)  # several who shut share the win, whatever the totals
    assert result.places == (1, 1, 3)
    assert not standings(Rounds(rounds=5), False, [[9, 0], [3, 0], [2, 8]]).finished


def test_shut_wins_under_elimination_before_anyone_goes_out() -> None:
    result = standings(Elimination(limit=5), True, [[0], [9], [7]])
    assert result.finished and result.winners == (0,)
    assert result.places == (1, 3, 2)


# Properties, over any format and any scores.

formats: st.SearchStrategy[Format] = st.one_of(
    st.builds(Rounds, rounds=st.integers(1, 20)),
    st.builds(ToScore, target=st.integers(10, 1000)),
    st.builds(
        Elimination,
        limit=st.integers(5, 1000),
        out_when=st.sampled_from(["reached", "exceeded"]),
    ),
)
scores_of_seats = st.integers(1, 6).flatmap(
    lambda seats: st.lists(
        st.lists(st.integers(0, 120), max_size=25), min_size=seats, max_size=seats
    )
)


@given(formats, st.booleans(), scores_of_seats)
def test_places_and_winners_agree_with_the_totals(
    format: Format, shut_wins: bool, table: list[list[int]]
) -> None:
    scores: Scores = [list(row) for row in table]
    result = standings(format, shut_wins, scores)
    seats = len(scores)
    assert 0 <= result.rounds_complete <= last_round(format)
    for seat in range(seats):
        counted = [
            score
            for k, score in enumerate(scores[seat][: result.rounds_complete])
            if result.counts(seat, k + 1)
        ]
        assert result.totals[seat] == sum(s for s in counted if s is not None)
    if not result.finished:
        assert result.places is None and result.winners == ()
        return
    assert result.places is not None
    assert result.winners and all(result.places[w] == 1 for w in result.winners)
    assert sorted(result.places)[0] == 1
    # Ties share a place: a place is 1 + the number of seats placed strictly better.
    for seat in range(seats):
        assert result.places[seat] == 1 + sum(p < result.places[seat] for p in result.places)
    if isinstance(format, Rounds | ToScore) and not shut_wins:
        for a in range(seats):
            for b in range(seats):
                if result.totals[a] < result.totals[b]:
                    assert result.places[a] < result.places[b]


@given(formats, st.booleans(), scores_of_seats, st.integers(0, 5), st.integers(0, 120))
def test_a_finished_series_stays_as_it_ended_whatever_is_played_after(
    format: Format, shut_wins: bool, table: list[list[int]], seat: int, extra: int
) -> None:
    scores: Scores = [list(row) for row in table]
    result = standings(format, shut_wins, scores)
    longer = [list(row) for row in scores]
    longer[seat % len(longer)].append(extra)
    after = standings(format, shut_wins, longer)
    # A score more never undoes a complete round, and changes nothing once finished.
    assert after.rounds_complete >= result.rounds_complete
    if result.finished:
        assert after == result


def test_a_round_in_a_path_is_one_to_the_last_written_plainly() -> None:
    # The pattern the OpenAPI document gives and parse_round reads by.
    texts = {str(n) for n in range(1000)} | {"01", "007", "+1", " 1", "1\n", "\u0661", ""}
    assert {text for text in texts if ROUND.fullmatch(text)} == {
        str(n) for n in range(1, MAX_ROUNDS + 1)
    }


# Who sees what: a pure function of the state and the viewer.

ANN, BOB = uuid.uuid4(), uuid.uuid4()


def state(
    scores: list[list[int | None]], holders: list[Holder | Computer] | None = None, rounds: int = 3
) -> SeriesState:
    seats: list[Holder | Computer] = holders or [
        Seat(player_id=ANN, name="Ann", seat=0),
        "easy",
        Seat(player_id=BOB, name="Bob", seat=2),
    ]
    return SeriesState(
        code="7M3QK2ZD2",
        rules=Rules(),
        format=Rounds(rounds=rounds),
        shut_wins=False,
        holders=tuple(seats),
        scores=tuple(tuple(row) for row in scores),
    )


def test_a_seat_is_found_by_its_player_and_a_computer_has_none() -> None:
    s = state([[None], [7], [None]])
    assert (s.seat_of(ANN), s.seat_of(BOB), s.seat_of(uuid.uuid4())) == (0, 2, None)
    assert s.seat_count == 3 and s.issued == 1


def test_another_seat_s_score_is_shown_once_the_viewer_has_played_that_round() -> None:
    s = state([[5, 3, None], [7, 9, None], [4, None, None]])
    result = s.standings()
    seen_by_bob = view(s, result, 2, NextRound(round=2, dice=()))
    # Bob has played round 1 only: round 2's scores are hidden from him, his own shown.
    assert [p.rounds for p in seen_by_bob.players] == [
        (5, None, None),
        (7, None, None),
        (4, None, None),
    ]
    assert [p.total for p in seen_by_bob.players] == [5, 7, 4]
    # Whether a seat has played a round is shown though its score is not: Ann and Easy
    # have played round 2, Bob not yet.
    assert [p.played for p in seen_by_bob.players] == [2, 2, 1]
    seen_by_ann = view(s, result, 0, None)
    assert [p.rounds for p in seen_by_ann.players] == [(5, 3, None), (7, 9, None), (4, None, None)]
    assert seen_by_ann.status == "playing" and seen_by_ann.next is None
    names = [(p.name, p.computer, p.player_id) for p in seen_by_ann.players]
    assert names == [("Ann", None, ANN), (None, "easy", None), ("Bob", None, BOB)]


def test_once_finished_everything_counted_is_shown_to_everyone() -> None:
    s = state([[5, 3], [7, 9], [4, 1]], rounds=2)
    result = s.standings()
    assert result.finished
    shown = view(s, result, 2, None)
    assert shown.status == "finished" and shown.winners == (2,)
    assert [p.rounds for p in shown.players] == [(5, 3), (7, 9), (4, 1)]
    assert [p.place for p in shown.players] == [2, 3, 1]


def test_the_next_round_is_one_after_the_last_played_until_the_end() -> None:
    s = state([[5, None, None], [7, 9, None], [None, None, None]])
    result = s.standings()
    assert (next_round(s, result, 0), next_round(s, result, 2)) == (2, 1)
    assert not s.has_played(0, 2) and s.has_played(0, 1) and not s.has_played(0, 4)
    done = state([[5, 3], [7, 9], [4, 1]], rounds=2)
    assert next_round(done, done.standings(), 0) is None
    out = SeriesState(
        code="X", rules=Rules(), format=Elimination(limit=5), shut_wins=False,
        holders=(Seat(player_id=ANN, name=None, seat=0), "hard", "easy"),
        scores=((9,), (1,), (2,)),
    )  # fmt: skip
    assert out.standings().is_out(0) and next_round(out, out.standings(), 0) is None


def test_a_score_and_a_round_issued_change_only_their_cells() -> None:
    s = state([[None], [7], [None]])
    played = s.with_score(2, 1, 4)
    assert played.scores == ((None,), (7,), (4,)) and s.scores == ((None,), (7,), (None,))
    more = played.with_rounds([[7], [8]])
    assert more.scores == ((None, None), (7, 8), (4, None)) and more.issued == 2
