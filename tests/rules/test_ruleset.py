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
