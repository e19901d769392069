"""The rules object: variants, validation, candidate sets, one die and scoring."""

from __future__ import annotations

import msgspec
import pytest

from service.rules.ruleset import Rules, mask_of, tiles_of


def sets(rules: Rules, roll: tuple[int, int], dice: int = 2) -> list[tuple[int, ...]]:
    return [tiles_of(m) for m in rules.candidate_sets(roll, dice)]


def test_defaults_are_the_standard_rules() -> None:
    rules = msgspec.json.decode(b"{}", type=Rules)
    assert rules == Rules(tiles=9, one_die="never", move_rule="any", scoring="sum")
    assert tiles_of(rules.start_position) == tuple(range(1, 10))
    assert rules.rolls == 10


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"tiles": 13}', "tiles"),
        (b'{"tiles": 1}', "tiles"),
        (b'{"start": []}', "start"),
        (b'{"start": [0]}', "start"),
        (b'{"tiles": 6, "start": [7]}', "start"),
        (b'{"start": [3, 3]}', "start"),
        (b'{"one_die": "sometimes"}', "one_die"),
        (b'{"move_rule": "pairs"}', "move_rule"),
        (b'{"scoring": "product"}', "scoring"),
        (b'{"first_must_close": 10}', "first_must_close"),
        (b'{"tiles": 6, "first_must_close": 7}', "first_must_close: tile 7 is not on a box"),
        (b'{"start": [4, 5, 6], "first_must_close": 2}', "first_must_close: tile 2 is not open"),
        (b'{"first_must_close": 0}', "first_must_close"),
        (b'{"stop_on_total": 1}', "stop_on_total"),
        (b'{"stop_on_total": 13}', "stop_on_total"),
        (b'{"total": "product"}', "total"),
        (b'{"one_die_choice": "never"}', "one_die_choice"),
        (b'{"move_rule": "die_or_sums"}', "move_rule"),
        (b'{"colour": "red"}', "colour"),
    ],
)
def test_impossible_rules_are_refused_naming_the_field(body: bytes, field: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=field):
        msgspec.json.decode(body, type=Rules)


def test_any_rule_allows_every_set_adding_up_to_the_total() -> None:
    assert sets(Rules(), (6, 6)) == [
        (3, 9), (1, 2, 9), (4, 8), (1, 3, 8), (5, 7), (1, 4, 7), (2, 3, 7),
        (1, 5, 6), (2, 4, 6), (1, 2, 3, 6), (3, 4, 5), (1, 2, 4, 5),
    ]  # fmt: skip


def test_dice_or_sum_allows_the_total_or_both_dice_never_one() -> None:
    rules = Rules(move_rule="dice_or_sum")
    assert sets(rules, (3, 4)) == [(7,), (3, 4)]
    assert sets(rules, (2, 2)) == [(4,)]  # a double cannot close the same tile twice
    assert sets(rules, (6, 5)) == [(5, 6)]  # no tile 11 on the standard box
    assert sets(rules, (3, 5), dice=1) == [(3,)]


def test_single_allows_one_tile_equal_to_a_die_or_the_total() -> None:
    rules = Rules(move_rule="single")
    assert sets(rules, (3, 4)) == [(7,), (4,), (3,)]
    assert sets(rules, (6, 6)) == [(6,)]
    assert sets(Rules(move_rule="single", tiles=12), (6, 6)) == [(12,), (6,)]


def test_one_die_rolls_the_first_die() -> None:
    assert sets(Rules(), (4, 6), dice=1) == [(4,), (1, 3)]


@pytest.mark.parametrize(
    ("one_die", "open_tiles", "allowed"),
    [
        ("never", (1,), False),
        ("high_closed", (1, 2, 3, 4, 5, 6), True),
        ("high_closed", (1, 7), False),
        ("high_closed", (9,), False),
        ("sum_le_6", (1, 5), True),
        ("sum_le_6", (1, 2, 4), False),
        ("sum_le_6", (7,), False),
    ],
)
def test_when_one_die_is_allowed(one_die: str, open_tiles: tuple[int, ...], allowed: bool) -> None:
    rules = msgspec.convert({"one_die": one_die}, Rules)
    assert rules.one_die_allowed(mask_of(open_tiles)) is allowed
    assert rules.dice_choices(mask_of(open_tiles)) == ((2, 1) if allowed else (2,))


@pytest.mark.parametrize(
    ("scoring", "open_tiles", "score"),
    [
        ("sum", (2, 5, 7), 14),
        ("count", (2, 5, 7), 3),
        ("digits", (2, 5, 7), 257),
        ("digits", (2, 10), 210),
        ("digits", (1, 10, 12), 11012),
        ("sum", (), 0),
        ("count", (), 0),
        ("digits", (), 0),
    ],
)
def test_scoring(scoring: str, open_tiles: tuple[int, ...], score: int) -> None:
    rules = msgspec.convert({"scoring": scoring, "tiles": 12}, Rules)
    assert rules.score(mask_of(open_tiles)) == score


def test_start_sets_the_open_tiles_and_is_not_part_of_the_solver_key() -> None:
    rules = Rules(start=(4, 5, 6, 7, 8, 9))
    assert tiles_of(rules.start_position) == (4, 5, 6, 7, 8, 9)
    assert rules.solver_key == Rules()


def test_newer_fields_refuse_bad_values_given_in_python_too() -> None:
    with pytest.raises(ValueError, match="stop_on_total: "):
        Rules(stop_on_total=1)
    with pytest.raises(ValueError, match="first_must_close: "):
        Rules(tiles=4, first_must_close=5)


def test_die_or_sum_allows_the_total_one_die_or_both() -> None:
    rules = Rules(move_rule="die_or_sum")
    assert sets(rules, (3, 4)) == [(7,), (3, 4), (4,), (3,)]  # Medium's order: 4+3 before 4
    assert sets(rules, (2, 2)) == [(4,), (2,)]
    assert sets(rules, (6, 5)) == [(5, 6), (6,), (5,)]  # no tile 11
    assert sets(rules, (3, 5), dice=1) == [(3,)]


def test_die_or_sum_both_uses_the_second_die_whenever_its_tile_is_open() -> None:
    rules = Rules(move_rule="die_or_sum_both")
    assert sets(rules, (3, 4)) == [(7,), (3, 4), (4,), (3,)]  # in some position
    legal = [tiles_of(s) for s in rules.legal_sets(rules.full, (3, 4), 2)]
    assert legal == [(7,), (3, 4)]  # 3 and 4 both open: not one of them alone
    assert [tiles_of(s) for s in rules.legal_sets(mask_of((1, 3, 7)), (3, 4), 2)] == [(7,), (3,)]
    assert [tiles_of(s) for s in rules.legal_sets(mask_of((2, 3)), (2, 2), 2)] == [(2,)]  # a double
    assert [tiles_of(s) for s in rules.legal_sets(mask_of((3, 4)), (3, 4), 1)] == [(3,)]
    difference = Rules(move_rule="die_or_sum_both", total="sum_or_difference")
    # 2 is one die's tile and the difference of 4 and 2: allowed that way.
    assert [tiles_of(s) for s in difference.legal_sets(mask_of((2, 4)), (4, 2), 2)] == [
        (2, 4),
        (2,),
    ]


def test_sum_or_difference_adds_the_difference_to_every_move_rule() -> None:
    assert sets(Rules(total="sum_or_difference"), (5, 2)) == [
        (7,), (1, 6), (2, 5), (3, 4), (1, 2, 4), (3,), (1, 2),
    ]  # fmt: skip
    assert sets(Rules(total="sum_or_difference"), (3, 3)) == sets(Rules(), (3, 3))  # 0: nothing
    assert sets(Rules(total="sum_or_difference"), (3, 5), dice=1) == sets(Rules(), (3, 5), dice=1)
    assert sets(Rules(move_rule="dice_or_sum", total="sum_or_difference"), (5, 2)) == [
        (7,), (2, 5), (3,),
    ]  # fmt: skip
    assert sets(Rules(move_rule="single", total="sum_or_difference"), (6, 1)) == [
        (7,), (6,), (5,), (1,),
    ]  # fmt: skip


def test_a_roll_of_the_stop_total_allows_nothing() -> None:
    rules = Rules(stop_on_total=7)
    assert sets(rules, (3, 4)) == [] and sets(rules, (6, 1)) == []
    assert sets(rules, (3, 3)) == sets(Rules(), (3, 3))
    assert sets(Rules(stop_on_total=3), (3, 5), dice=1) == []  # one die: the die is the total


def test_the_first_move_must_close_the_tile() -> None:
    rules = Rules(first_must_close=2)
    first = [tiles_of(s) for s in rules.legal_sets(rules.full, (3, 4), 2)]
    assert first == [(2, 5), (1, 2, 4)]
    assert rules.legal_sets(rules.full, (2, 2), 2) == ()  # 4 or 3+1: no 2, the turn ends
    later = mask_of((2, 3, 4, 5, 6, 7))
    assert rules.legal_sets(later, (3, 4), 2) == Rules().legal_sets(later, (3, 4), 2)
    assert rules.special_positions() == frozenset({rules.full})


def test_one_die_may_be_a_must_where_it_is_allowed() -> None:
    rules = Rules(one_die="sum_le_6", one_die_choice="mandatory")
    assert rules.dice_choices(mask_of((1, 5))) == (1,)
    assert rules.dice_choices(mask_of((1, 6))) == (2,)
    assert Rules(one_die_choice="mandatory").dice_choices(mask_of((1,))) == (2,)  # never


def test_first_must_close_keeps_start_in_the_solver_key() -> None:
    assert Rules(first_must_close=4, start=(6, 5, 4)).solver_key == Rules(
        first_must_close=4, start=(4, 5, 6)
    )
    assert Rules(first_must_close=4, start=tuple(range(1, 10))).solver_key == Rules(
        first_must_close=4
    )
    assert Rules(stop_on_total=7, start=(4, 5)).solver_key == Rules(stop_on_total=7)


def test_earlier_variants_are_stored_as_they_always_were() -> None:
    """``Rules.stored``: the five first fields only, for every variant of them."""
    assert Rules().stored() == {
        "tiles": 9, "start": None, "one_die": "never", "move_rule": "any", "scoring": "sum",
    }  # fmt: skip
    rules = Rules(tiles=5, start=(2, 3), one_die="sum_le_6", move_rule="single", scoring="digits")
    assert list(rules.stored()) == ["tiles", "start", "one_die", "move_rule", "scoring"]
    newer = Rules(total="sum_or_difference", first_must_close=2, one_die_choice="optional")
    assert newer.stored() == {
        **Rules().stored(),
        "total": "sum_or_difference",
        "first_must_close": 2,
    }
    assert msgspec.convert(newer.stored(), Rules) == newer
