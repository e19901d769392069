"""A move's JSON form is the rules core's (``Move.as_json``, what a stored run keeps):
the answer's typed struct for it (``move_out``) encodes to the very same bytes, so a
stored run's digest and its answer never disagree."""

from __future__ import annotations

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from service.api.schemas import move_out
from service.rules.replay import Move

moves = st.builds(
    Move,
    tiles=st.lists(st.integers(1, 12), unique=True, max_size=6).map(tuple),
    dice=st.sampled_from([1, 2]),
)


@given(moves)
def test_the_answer_writes_a_move_as_the_core_does(move: Move) -> None:
    assert msgspec.json.encode(move_out(move)) == msgspec.json.encode(move.as_json())
