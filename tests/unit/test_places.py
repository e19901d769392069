"""Places on a board: ties share a place, the next place counts everyone above."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.support.places import page_places, places


def test_ties_share_a_place_and_the_next_counts_everyone_above() -> None:
    assert places([3, 3, 5, 0, 3]) == [2, 2, 5, 1, 2]
    assert places([]) == []
    assert places([(1, 0), (0, 9), (1, 0)]) == [2, 1, 2]  # any ordered keys, e.g. a series'


@given(st.lists(st.integers(min_value=0, max_value=50), max_size=60))
def test_a_place_is_one_more_than_the_keys_below(scores: list[int]) -> None:
    assert places(scores) == [1 + sum(other < score for other in scores) for score in scores]


@given(st.lists(st.integers(min_value=0, max_value=9), max_size=40), st.data())
def test_a_page_s_places_are_the_whole_board_s(scores: list[int], data: st.DataObject) -> None:
    board = sorted(scores)
    start = data.draw(st.integers(min_value=0, max_value=len(board)))
    end = data.draw(st.integers(min_value=start, max_value=len(board)))
    page = board[start:end]
    lower = sum(score < page[0] for score in board) if page else 0
    assert page_places(page, start, lower) == places(board)[start:end]
