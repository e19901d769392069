"""A box run against the owner's (``service.usecases.boxes.versus``): lower wins."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.usecases.boxes import versus


@given(st.integers(0, 200), st.integers(0, 200))
def test_the_lower_score_wins_and_the_same_ties(score: int, owner_score: int) -> None:
    against = versus(score, owner_score)
    assert against.owner_score == owner_score
    mirrored = versus(owner_score, score).outcome
    assert {against.outcome, mirrored} in ({"tie"}, {"win", "loss"})
    assert (against.outcome == "win") == (score < owner_score)
