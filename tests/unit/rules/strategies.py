"""Hypothesis strategies for the rules core: variants, sequences and played runs."""

from __future__ import annotations

from hypothesis import strategies as st

from service.rules.replay import Move
from service.rules.ruleset import (
    MOVE_RULE_VALUES,
    ONE_DIE_CHOICE_VALUES,
    ONE_DIE_VALUES,
    SCORING_VALUES,
    TOTAL_VALUES,
    Roll,
    Rules,
    tiles_of,
)
from service.rules.solver import Tables


def dice_of(text: str) -> tuple[Roll, ...]:
    """Rolls written compactly: ``dice_of("34 66")`` is ``((3, 4), (6, 6))``."""
    return tuple((int(pair[0]), int(pair[1])) for pair in text.split())


rolls = st.tuples(st.integers(1, 6), st.integers(1, 6))


@st.composite
def variants(draw: st.DrawFn, max_tiles: int = 10) -> Rules:
    tiles = draw(st.integers(2, max_tiles))
    start = draw(
        st.none() | st.sets(st.integers(1, tiles), min_size=1).map(lambda s: tuple(sorted(s)))
    )
    open_at_start = start if start is not None else tuple(range(1, tiles + 1))
    return Rules(
        tiles=tiles,
        start=start,
        one_die=draw(st.sampled_from(ONE_DIE_VALUES)),
        move_rule=draw(st.sampled_from(MOVE_RULE_VALUES)),
        scoring=draw(st.sampled_from(SCORING_VALUES)),
        total=draw(st.sampled_from(TOTAL_VALUES)),
        one_die_choice=draw(st.sampled_from(ONE_DIE_CHOICE_VALUES)),
        first_must_close=draw(st.none() | st.sampled_from(open_at_start)),
        stop_on_total=draw(st.none() | st.integers(2, 12)),
    )


def sequences(rules: Rules) -> st.SearchStrategy[tuple[Roll, ...]]:
    return st.lists(rolls, min_size=rules.rolls, max_size=rules.rolls).map(tuple)


@st.composite
def played_moves(
    draw: st.DrawFn, tables: Tables, rules: Rules, dice: tuple[Roll, ...]
) -> list[Move]:
    """A legal turn chosen by an arbitrary policy (hypothesis picks every choice)."""
    s = rules.start_position
    moves: list[Move] = []
    for roll in dice:
        if s == 0:
            break
        n = draw(st.sampled_from(tables.dice_choices[s]))
        kids = tables.kids(s, roll, n)
        if not kids:
            if n == 1:
                moves.append(Move(tiles=(), dice=1))
            break
        kid = draw(st.sampled_from(kids))
        moves.append(Move(tiles=tiles_of(s ^ kid), dice=n))
        s = kid
    return moves
