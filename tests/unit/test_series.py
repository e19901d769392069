"""The standings of a series: a pure function of its rounds' scores (``service.usecases.series``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.api.series import ROUND
from service.usecases.series import (
    MAX_ROUNDS,
    Elimination,
    Format,
    Rounds,
    ToScore,
    last_round,
    standings,
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
