"""Replay and verification: legal runs are accepted, each kind of illegal run named."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import errors
from service.rules.replay import Move, replay
from service.rules.ruleset import Roll, Rules, mask_of, tiles_of
from service.rules.solver import solve
from tests.unit.rules.strategies import played_moves, sequences, variants

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

    # An open tile added: the wrong total where the move rule is one of totals (`any`, and
    # `dice_or_sum` on two dice), else against the move rule; unless the bigger set is
    # legal too (one die's tile and then the other's, under `die_or_sum`).
    extra = [t for t in tiles_of(before) if t not in move.tiles]
    roll = dice[k]
    if extra:
        bigger = (*move.tiles, data.draw(st.sampled_from(extra)))
        if mask_of(bigger) in rules.legal_sets(before, roll, move.dice):
            return
        d1, d2 = roll if move.dice == 2 else (roll[0], 0)
        differences = {abs(d1 - d2)} if rules.total == "sum_or_difference" and d2 else set()
        of_totals = rules.move_rule == "any" or (rules.move_rule == "dice_or_sum" and d2)
        expected = (
            errors.WrongTotal
            if of_totals and sum(bigger) not in {d1 + d2, *differences}
            else errors.MoveRuleViolation
        )
        with pytest.raises(expected) as wrong_total:
            replay(rules, dice, [*moves[:k], Move(tiles=bigger, dice=move.dice), *moves[k + 1 :]])
        assert wrong_total.value.index == k


def plays(rules: Rules, dice: tuple[Roll, ...], moves: list[Move]) -> bool:
    """Whether these moves are legal as far as they go (the turn may go on after them)."""
    try:
        replay(rules, dice, moves)
    except errors.RunEndsEarly as early:
        return early.index == len(moves)
    return True


def test_die_or_sum_both_refuses_one_die_alone_while_the_other_die_fits() -> None:
    rules = Rules(move_rule="die_or_sum_both")
    with pytest.raises(errors.MoveRuleViolation, match=r"tile 4 is open too.*close 4\+3"):
        replay(rules, DICE, [m(3)])
    assert plays(rules, DICE, [m(3, 4), m(6)])  # 6 + 6: a double closes one 6
    # Once tile 4 is closed, 3 alone is the way to use the roll's 3.
    dice: tuple[Roll, ...] = ((4, 5), (3, 4), *DICE[2:])
    assert plays(rules, dice, [m(4, 5), m(3)])


def test_one_die_s_tile_under_dice_or_sum_is_against_the_move_rule_not_the_total() -> None:
    with pytest.raises(errors.MoveRuleViolation, match="the two tiles equal to the two dice"):
        replay(Rules(move_rule="dice_or_sum"), DICE, [m(3)])


def test_the_difference_is_a_total_of_its_own() -> None:
    rules = Rules(total="sum_or_difference")
    with pytest.raises(errors.WrongTotal, match="8 adds up to 8, not 7 or 1"):
        replay(rules, DICE, [m(8)])
    assert plays(rules, DICE, [m(1), m(3, 9)])


def test_two_dice_are_refused_where_one_die_is_a_must() -> None:
    rules = Rules(tiles=3, one_die="sum_le_6", one_die_choice="mandatory")
    dice: tuple[Roll, ...] = ((3, 1), (2, 5), (1, 1), (6, 6))
    with pytest.raises(errors.TwoDiceNotAllowed, match="roll one die here") as caught:
        replay(rules, dice, [m(3)])
    assert caught.value.code == "two-dice-not-allowed" and caught.value.dice == 2
    run = replay(rules, dice, [m(3, dice=1), m(2, dice=1), m(1, dice=1)])
    assert run.shut and run.rolls_used == 3


def test_a_run_that_stops_is_checked_on_the_dice_the_rules_impose() -> None:
    rules = Rules(tiles=3, one_die="sum_le_6", one_die_choice="mandatory")
    # One die of 2 could close tile 2: the run may not stop there.
    with pytest.raises(errors.RunEndsEarly, match="possible: 2") as early:
        replay(rules, ((3, 1), (2, 5), (1, 1), (6, 6)), [m(3, dice=1)])
    assert early.value.dice == 1 and "one die: 2" in early.value.detail
    # One die of 6 closes nothing of 1 and 2: the turn ends, on one die.
    run = replay(rules, ((3, 1), (6, 2), (1, 1), (6, 6)), [m(3, dice=1)])
    assert run.moves == (m(3, dice=1), m(dice=1)) and run.steps[-1].dice == 1
    assert replay(rules, run.dice, run.moves) == run


def test_a_roll_of_the_stop_total_ends_the_turn_unplayed() -> None:
    rules = Rules(stop_on_total=7)
    run = replay(rules, DICE, [])
    assert (run.score, run.rolls_used, run.moves) == (45, 1, ())
    assert replay(rules, DICE, [m()]) == run
    with pytest.raises(errors.MoveAfterEnd, match="a roll of 7 ends the turn before it is played"):
        replay(rules, DICE, [m(7)])


def test_the_first_move_must_close_its_tile() -> None:
    rules = Rules(first_must_close=2)
    with pytest.raises(
        errors.MoveRuleViolation,
        match="the first move must close tile 2 \\(possible: 5\\+2, 4\\+2\\+1\\)",
    ):
        replay(rules, DICE, [m(7)])
    # Only the first move: the second (3+9) needs no 2.
    assert plays(rules, DICE, [m(2, 5), m(3, 9)])
    dice: tuple[Roll, ...] = ((2, 2), *DICE[1:])
    assert replay(rules, dice, []).score == 45  # 4 or 3+1, no 2: the turn ends at once
    with pytest.raises(errors.MoveAfterEnd, match="must close tile 2, and this roll cannot"):
        replay(rules, dice, [m(4)])
