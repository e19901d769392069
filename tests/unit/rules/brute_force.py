"""An independent brute force of the rules: legal moves read from the rules' text
(PRODUCT.md section 2), not from ``Rules.legal_sets``, and a plain recursive expectimax
over positions and the 36 rolls. Slow, and only for checking the solver.

A set of tiles is legal on a roll when it is made of open tiles, the roll is not the
turn-ending total, and the move rule allows it for some reading of the roll (its sum,
or under ``sum_or_difference`` its difference too); under ``die_or_sum_both`` one die's
tile alone is refused while the other die's tile is open too, unless a reading of the
roll is that tile; in the start position under ``first_must_close`` the set must hold
that tile. Where ``one_die`` allows one die, the player chooses one or two dice, or
under ``one_die_choice: mandatory`` rolls one.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from typing import NamedTuple

from service.rules.ruleset import ALL_ROLLS, Rules

NEAR = 1e-9
"""Values this close are taken as a tie (the solver's own tolerance is tighter; the
figures compared never come this close without being equal)."""


class Values(NamedTuple):
    """A position's worth: the expected-score optimum, the best shut chance, and the
    expected score of playing for the shut chance first."""

    expected: float
    p_shut: float
    hint: float


def open_tiles(rules: Rules, position: int) -> list[int]:
    return [t for t in range(1, rules.tiles + 1) if position >> (t - 1) & 1]


def score(rules: Rules, position: int) -> int:
    tiles = open_tiles(rules, position)
    if rules.scoring == "sum":
        return sum(tiles)
    if rules.scoring == "count":
        return len(tiles)
    return int("".join(map(str, tiles)) or "0")


def dice_choices(rules: Rules, position: int) -> tuple[int, ...]:
    tiles = open_tiles(rules, position)
    if rules.one_die == "high_closed":
        one_die = all(t < 7 for t in tiles)
    elif rules.one_die == "sum_le_6":
        one_die = sum(tiles) <= 6
    else:
        one_die = False
    if not one_die:
        return (2,)
    return (1,) if rules.one_die_choice == "mandatory" else (2, 1)


def start_of(rules: Rules) -> int:
    tiles = rules.start if rules.start is not None else range(1, rules.tiles + 1)
    return sum(1 << (t - 1) for t in tiles)


class Reading(NamedTuple):
    """A roll as the rules' text reads it: its dice (``d2`` 0: one die), the values it
    counts as (its sum, and under ``sum_or_difference`` a difference above 0)."""

    d1: int
    d2: int
    values: frozenset[int]
    dice: frozenset[int]

    @classmethod
    def of(cls, rules: Rules, roll: tuple[int, int], dice: int) -> Reading:
        d1, d2 = roll if dice == 2 else (roll[0], 0)
        values = {d1 + d2}
        if rules.total == "sum_or_difference" and d2 and d1 != d2:
            values.add(abs(d1 - d2))
        return cls(d1, d2, frozenset(values), frozenset(d for d in (d1, d2) if d))


def allowed(rules: Rules, tiles: tuple[int, ...], roll: Reading, opened: set[int]) -> bool:
    """Whether the move rule lets the roll close exactly ``tiles``, all open
    (``opened``)."""
    d1, d2, values, dice = roll
    one = len(tiles) == 1
    if rules.move_rule == "any":
        return sum(tiles) in values
    both_dice = bool(d2) and d1 != d2 and len(tiles) == 2 and set(tiles) == {d1, d2}
    if rules.move_rule == "dice_or_sum":
        return (one and tiles[0] in values) or both_dice
    if rules.move_rule == "single":
        return one and (tiles[0] in values or tiles[0] in dice)
    die_or_sum = (one and (tiles[0] in values or tiles[0] in dice)) or both_dice
    if rules.move_rule == "die_or_sum":
        return die_or_sum
    assert rules.move_rule == "die_or_sum_both"
    one_die_only = one and tiles[0] in dice and tiles[0] not in values
    other_open = bool(d2) and d1 != d2 and d1 in opened and d2 in opened
    return die_or_sum and not (one_die_only and other_open)


@cache
def open_sets(tiles: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
    """Every set of these open tiles that a roll could ever close (adding up to 12 at
    most: a roll's sum, its difference, a die and both dice all are 12 or less), with
    its bits."""
    return [
        (chosen, sum(1 << (t - 1) for t in chosen))
        for size in range(1, len(tiles) + 1)
        for chosen in combinations(tiles, size)
        if sum(chosen) <= 12
    ]


def legal_moves(rules: Rules, position: int, roll: tuple[int, int], dice: int) -> list[int]:
    """The sets (as positions' bits) the player may close, read from the rules' text."""
    reading = Reading.of(rules, roll, dice)
    if rules.stop_on_total is not None and reading.d1 + reading.d2 == rules.stop_on_total:
        return []
    tiles = open_tiles(rules, position)
    opened = set(tiles)
    must = rules.first_must_close if position == start_of(rules) else None
    return [
        bits
        for chosen, bits in open_sets(tuple(tiles))
        if allowed(rules, chosen, reading, opened) and (must is None or must in chosen)
    ]


class BruteForce:
    """The values of every position of a variant, by recursion over its children."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._known: dict[int, Values] = {0: Values(0.0, 1.0, 0.0)}
        self._by_dice: dict[tuple[int, int], Values] = {}

    def __call__(self, position: int) -> Values:
        found = self._known.get(position)
        if found is None:
            per_dice = [self.rolling(position, dice) for dice in dice_choices(self.rules, position)]
            best_p = max(v.p_shut for v in per_dice)
            found = self._known[position] = Values(
                min(v.expected for v in per_dice),
                best_p,
                min(v.hint for v in per_dice if abs(v.p_shut - best_p) <= NEAR),
            )
        return found

    def rolling(self, position: int, dice: int) -> Values:
        """The position's worth once the player has chosen to roll ``dice`` dice."""
        key = (position, dice)
        found = self._by_dice.get(key)
        if found is not None:
            return found
        expected = p_shut = hint = 0.0
        final = score(self.rules, position)
        for roll in ALL_ROLLS:
            children = [self(position ^ s) for s in legal_moves(self.rules, position, roll, dice)]
            if not children:
                expected += final / 36
                hint += final / 36
                continue
            expected += min(c.expected for c in children) / 36
            best_p = max(c.p_shut for c in children)
            p_shut += best_p / 36
            hint += min(c.hint for c in children if abs(c.p_shut - best_p) <= NEAR) / 36
        found = self._by_dice[key] = Values(expected, p_shut, hint)
        return found
