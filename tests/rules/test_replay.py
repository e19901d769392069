"""Replay and verification: legal runs are accepted, each kind of illegal run named."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import errors
from service.rules.replay import Move, replay
from service.rules.ruleset import Roll, Rules, tiles_of
from service.rules.solver import solve
from tests.rules.strategies import played_moves, sequences, variants

DICE: tuple[Roll, ...] = (
    (3, 4), (6, 6), (1, 1), (1, 2), (2, 3), (5, 5), (6, 6), (1, 1), (2, 2), (3, 3),
)  # fmt: skip


def m(*tiles: int, dice: int = 2) -> Move:
    return Move(tiles=tiles, dice=dice)


def test_a_legal_run_is_scored() -> None:
    run = replay(Rules(), DICE, [m(7), m(3, 9), m(2)])
    assert (run.score, run.shut, run.rolls_used) == (24, False, 4)
    assert tiles_of(run.open_tiles) == (1, 4, 5, 6, 8)
    assert [s.closed for s in run.steps][-1] == 0  # the unplayable roll 1 + 2 ends it


def test_shutting_the_box_scores_zero_under_every_scoring() -> None:
    dice: tuple[Roll, ...] = ((1, 2), (1, 2), (6, 6), (6, 6))
    for scoring in ("sum", "count", "digits"):
        rules = Rules(tiles=3, scoring=scoring)  # type: ignore[arg-type]
        run = replay(rules, dice, [m(3), m(1, 2)])
        assert (run.score, run.shut, run.rolls_used) == (0, True, 2)


def test_tiles_are_read_in_any_order() -> None:
    assert replay(Rules(), DICE, [m(7), m(9, 3), m(2)]).moves == (m(7), m(3, 9), m(2))


def test_an_explicit_empty_move_on_an_unplayable_roll_ends_the_turn() -> None:
    run = replay(Rules(), DICE, [m(7), m(3, 9), m(2), m()])
    assert run.moves == (m(7), m(3, 9), m(2))  # canonical: the end is implied
    assert run.rolls_used == 4


def test_one_die_ending_is_recorded() -> None:
    rules = Rules(tiles=3, one_die="sum_le_6")
    run = replay(rules, ((3, 1), (5, 5), (6, 6), (6, 6)), [m(1, 3), m(dice=1)])
    assert (run.score, run.rolls_used, run.moves[-1]) == (2, 2, m(dice=1))


@pytest.mark.parametrize(
    ("moves", "error", "index", "text"),
    [
        ([m(8)], errors.WrongTotal, 0, "8 adds up to 8, not 7"),
        ([m(7), m(3, 7, 2)], errors.TileNotOpen, 1, "tile 7 is already closed"),
        ([m(7), m(6, 6)], errors.TileRepeated, 1, "tile 6 is listed twice"),
        ([m(7), m(12)], errors.NotATile, 1, "12 is not a tile"),
        ([m(0, 7)], errors.NotATile, 0, "0 is not a tile"),
        ([m(7, dice=1)], errors.OneDieNotAllowed, 0, "never allow"),
        ([m(7), m()], errors.PlayableRollSkipped, 1, "possible: 9\\+3, 9\\+2\\+1"),
        ([m(7)], errors.RunEndsEarly, 1, "the run stops here"),
        ([m(7), m(3, 9), m(2), m(1)], errors.MoveAfterEnd, 3, "cannot be played"),
        ([m(7), m(3, 9), m(2), m(), m(1)], errors.MoveAfterEnd, 4, "already ended"),
    ],
)
def test_each_cause_of_rejection_has_its_error(
    moves: list[Move], error: type[errors.IllegalRun], index: int, text: str
) -> None:
    with pytest.raises(error, match=text) as caught:
        replay(Rules(), DICE, moves)
    assert caught.value.index == index
    assert caught.value.roll == DICE[index]
    assert caught.value.detail.startswith(f"Move {index + 1} (roll ")


def test_move_rule_violations_explain_the_rule() -> None:
    with pytest.raises(errors.MoveRuleViolation, match="allows: 7, 4\\+3"):
        replay(Rules(move_rule="dice_or_sum"), DICE, [m(1, 6)])
    with pytest.raises(errors.MoveRuleViolation, match="exactly one tile"):
        replay(Rules(move_rule="single"), DICE, [m(3, 4)])
    with pytest.raises(errors.WrongTotal):
        replay(Rules(move_rule="dice_or_sum"), DICE, [m(3, 5)])


def test_one_die_is_checked_against_the_position() -> None:
    rules = Rules(one_die="high_closed")
    dice: tuple[Roll, ...] = (
        (4, 5), (4, 4), (3, 4), (6, 1), (5, 1), (4, 1), (3, 1), (2, 1), (1, 1), (1, 1),
    )  # fmt: skip
    one_die = [m(t, dice=1) for t in (6, 5, 4, 3, 2, 1)]
    run = replay(rules, dice, [m(9), m(8), m(7), *one_die])
    assert run.shut and run.moves[3:] == tuple(one_die)
    with pytest.raises(errors.OneDieNotAllowed, match="7 or more"):
        replay(rules, dice, [m(9), m(8), m(3, dice=1)])


def test_a_malformed_move_is_refused() -> None:
    with pytest.raises(errors.MalformedMove):
        replay(Rules(), DICE, [Move(tiles=(7,), dice=3)])


@settings(max_examples=150, deadline=None)
@given(st.data(), variants())
def test_every_run_a_policy_plays_replays_with_the_same_score(
    data: st.DataObject, rules: Rules
) -> None:
    tables = solve(rules)
    dice = data.draw(sequences(rules))
    moves = data.draw(played_moves(tables, rules, dice))
    run = replay(rules, dice, moves)
    open_tiles = rules.start_position
    for move in moves:
        open_tiles ^= move.closed
    assert run.open_tiles == open_tiles
    assert run.score == rules.score(open_tiles)
    assert replay(rules, dice, run.moves) == run  # canonical moves replay identically


@settings(max_examples=200, deadline=None)
@given(st.data(), variants())
def test_every_illegal_change_to_a_legal_run_is_refused(data: st.DataObject, rules: Rules) -> None:
    tables = solve(rules)
    dice = data.draw(sequences(rules))
    moves = data.draw(played_moves(tables, rules, dice))
    played = [k for k, move in enumerate(moves) if move.tiles]
    run = replay(rules, dice, moves)

    # An extra move after the end.
    with pytest.raises(errors.MoveAfterEnd) as after:
        replay(rules, dice, [*moves, Move(tiles=(1,))])
    assert after.value.index == len(moves)
    if not played:
        return
    k = data.draw(st.sampled_from(played))
    move, before = moves[k], run.steps[k].before

    # A skipped playable roll: the move replaced by nothing, or the run cut short there.
    with pytest.raises(errors.PlayableRollSkipped) as skipped:
        replay(rules, dice, [*moves[:k], Move(tiles=(), dice=move.dice), *moves[k + 1 :]])
    assert skipped.value.index == k
    if move.dice == 2:
        with pytest.raises(errors.RunEndsEarly) as early:
            replay(rules, dice, moves[:k])
        assert early.value.index == k

    # A closed tile, or one that is not on the box.
    closed = [t for t in range(1, rules.tiles + 1) if not before >> (t - 1) & 1]
    if closed:
        wrong = (*move.tiles[1:], data.draw(st.sampled_from(closed)))
        with pytest.raises(errors.TileNotOpen) as not_open:
            replay(rules, dice, [*moves[:k], Move(tiles=wrong, dice=move.dice), *moves[k + 1 :]])
        assert not_open.value.index == k
    with pytest.raises(errors.NotATile):
        outside = (*move.tiles, rules.tiles + 1)
        replay(rules, dice, [*moves[:k], Move(tiles=outside, dice=move.dice), *moves[k + 1 :]])

    # An open tile added: the wrong total (or, under `single`, against the move rule).
    extra = [t for t in tiles_of(before) if t not in move.tiles]
    if extra:
        bigger = (*move.tiles, data.draw(st.sampled_from(extra)))
        expected = (
            errors.MoveRuleViolation
            if rules.move_rule == "single" or (move.dice == 1 and rules.move_rule != "any")
            else errors.WrongTotal
        )
        with pytest.raises(expected) as wrong_total:
            replay(rules, dice, [*moves[:k], Move(tiles=bigger, dice=move.dice), *moves[k + 1 :]])
        assert wrong_total.value.index == k
