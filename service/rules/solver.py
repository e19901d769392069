"""Exact solutions of a rules object, computed once per variant and cached.

Every position of the box (all ``2**tiles`` of them) gets:

- ``expected[position]``: the lowest expected final score any policy reaches from it
  (the expected-score optimum, which the Hard computer plays);
- ``p_shut[position]``: the highest probability of shutting the box from it;
- ``hint_expected[position]``: the expected score of the *hint policy*, which ranks moves
  by shut chance first, then by expected score (of that same policy).

Where one die is allowed, the choice of one or two dice (made before the roll) is
part of every policy (where the rules make one die a must, there is no choice). Closing
tiles only ever removes bits, so every child of a position is a smaller integer and one
pass in increasing order solves all three.

Rolls are grouped into classes that allow the same sets in every position (their
``RollMoves``); a class's legal sets in a position are ``Rules.legal_among``'s, which
knows the rules that depend on the position (``die_or_sum_both``, the start position
under ``first_must_close``).

Ties are broken deterministically: values within ``TOLERANCE`` (relative) are
equal, two dice are preferred to one, and among sets the one closing the highest
tiles first (Medium's order) wins.

A process keeps the tables of a few variants (``LOADED``, least recently used out
first, the standard rules always in). What takes work in a variant's tables is its
final scores, solved values (``Tables.values``) and optimal moves;
``Tables.from_values`` rebuilds the same tables from them, bit for bit, without
solving (the service solves in a separate process and shares them through its
database).

>>> tables = solve(Rules())
>>> round(tables.expected[Rules().full], 4), round(tables.p_shut[Rules().full], 4)
(11.1575, 0.0714)
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Mapping, MutableSequence, Sequence
from functools import cmp_to_key
from typing import Annotated, Final, NamedTuple

import msgspec

from service.caching import LRU
from service.rules.ruleset import ALL_ROLLS, OpenTiles, Roll, RollMoves, Rules, tiles_of

TOLERANCE: Final = 1e-12


def same(a: float, b: float) -> bool:
    """Whether two computed values are equal up to floating-point noise."""
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


class RollClass(NamedTuple):
    """Rolls that allow exactly the same sets in every position, with their joint
    probability."""

    probability: float
    moves: RollMoves

    @property
    def candidates(self) -> tuple[OpenTiles, ...]:
        """The sets the rolls allow, open or not, in Medium's order."""
        return self.moves.sets


class Option(NamedTuple):
    """A set the player may close, what it leaves, and what that is worth."""

    closed: OpenTiles
    after: OpenTiles
    p_shut: float
    expected_score: float
    hint_expected_score: float


Children = tuple[tuple[OpenTiles, ...], ...]
"""The positions reachable from one position, per class of rolls, in Medium's order."""


def children_on(rules: Rules, position: OpenTiles, moves: RollMoves) -> tuple[OpenTiles, ...]:
    """The positions a roll of these ``moves`` reaches from ``position``: the legal sets
    (``Rules.legal_among``) closed, in Medium's order."""
    return tuple(position ^ closed for closed in rules.legal_among(position, moves))


class ChildrenOf:
    """``children_of[position]``: a position's ``Children``, worked out on first use (tables
    rebuilt from stored values fill in only the positions they are asked about)."""

    def __init__(self, rules: Rules, classes: tuple[RollClass, ...], size: int) -> None:
        self._rules = rules
        self._classes = classes
        self._known: list[Children | None] = [None] * size

    def __getitem__(self, position: OpenTiles) -> Children:
        found = self._known[position]
        if found is None:
            found = self._known[position] = tuple(
                children_on(self._rules, position, roll_class.moves) for roll_class in self._classes
            )
        return found

    def __setitem__(self, position: OpenTiles, children: Children) -> None:
        self._known[position] = children


def dice_counts(rules: Rules) -> tuple[int, ...]:
    """The numbers of dice a player may ever roll under these rules: 2, and maybe 1."""
    return (2, 1) if rules.one_die_variant.ever else (2,)


def value_names(rules: Rules) -> tuple[str, ...]:
    """The names of a variant's solved values, in the order ``Tables.values`` gives them."""
    per_dice_names = (
        f"{name}/{dice}" for dice in dice_counts(rules) for name in ("expected", "p_shut", "hint")
    )
    return ("expected", "p_shut", "hint_expected", *per_dice_names)


class Tables:
    """Exact tables of one variant: every position is solved, so ``start`` plays no part,
    but under ``first_must_close``, whose start position is special (``Rules.solver_key``)."""

    def __init__(self, rules: Rules) -> None:
        size = self._lay_out(rules)
        self.score: Sequence[int] = [rules.score(position) for position in range(size)]
        # Per position and number of dice: value before the roll, for each table.
        self.expected_by_dice: dict[int, MutableSequence[float]] = {
            d: [0.0] * size for d in self.classes
        }
        self.p_shut_by_dice: dict[int, MutableSequence[float]] = {
            d: [1.0] * size for d in self.classes
        }
        self.hint_by_dice: dict[int, MutableSequence[float]] = {
            d: [0.0] * size for d in self.classes
        }
        self.expected: MutableSequence[float] = [0.0] * size
        self.p_shut: MutableSequence[float] = [1.0] * size
        self.hint_expected: MutableSequence[float] = [0.0] * size
        # optimal_moves[dice][position * classes + class]: where the expected-score optimum
        # moves from the position on a roll of that class (-1: the roll is unplayable there).
        self.optimal_moves: dict[int, MutableSequence[int]] = {
            d: array("h", [-1]) * (size * len(classes)) for d, classes in self.classes.items()
        }
        for position in range(1, size):
            self._solve_position(position)

    @classmethod
    def from_values(
        cls,
        rules: Rules,
        score: Sequence[int],
        values: Mapping[str, MutableSequence[float]],
        optimal_moves: Mapping[int, MutableSequence[int]],
    ) -> Tables:
        """The tables of ``rules`` rebuilt from their final scores, solved values (as
        ``values()`` gave them) and optimal moves, without solving: the same tables, bit
        for bit."""
        tables = cls.__new__(cls)
        size = tables._lay_out(rules)
        names = value_names(tables.rules)
        if set(values) != set(names) or any(len(values[n]) != size for n in names):
            raise ValueError(f"solved values of {tables.rules} expected: {', '.join(names)}")
        if len(score) != size:
            raise ValueError(f"{size} final scores expected, not {len(score)}")
        if set(optimal_moves) != set(tables.classes) or any(
            len(optimal_moves[d]) != size * len(classes) for d, classes in tables.classes.items()
        ):
            raise ValueError(f"optimal moves of {tables.rules} do not fit its roll classes")
        tables.optimal_moves = dict(optimal_moves)
        tables.score = score
        tables.expected = values["expected"]
        tables.p_shut = values["p_shut"]
        tables.hint_expected = values["hint_expected"]
        tables.expected_by_dice = {d: values[f"expected/{d}"] for d in tables.classes}
        tables.p_shut_by_dice = {d: values[f"p_shut/{d}"] for d in tables.classes}
        tables.hint_by_dice = {d: values[f"hint/{d}"] for d in tables.classes}
        return tables

    def values(self) -> dict[str, MutableSequence[float]]:
        """The solved values, named as ``value_names`` names them."""
        by_name: dict[str, MutableSequence[float]] = {
            "expected": self.expected,
            "p_shut": self.p_shut,
            "hint_expected": self.hint_expected,
        }
        for dice in self.classes:
            by_name[f"expected/{dice}"] = self.expected_by_dice[dice]
            by_name[f"p_shut/{dice}"] = self.p_shut_by_dice[dice]
            by_name[f"hint/{dice}"] = self.hint_by_dice[dice]
        return {name: by_name[name] for name in value_names(self.rules)}

    def _lay_out(self, rules: Rules) -> int:
        """What follows from the rules alone, cheap to work out: the roll classes, the
        dice choices, the children (on first use). Returns the number of positions."""
        self.rules = rules.solver_key
        size = 1 << rules.tiles
        self.classes: dict[int, tuple[RollClass, ...]] = {}
        self.class_of: dict[int, dict[Roll, int]] = {}
        for dice in dice_counts(rules):
            self._group_rolls(dice)
        self.dice_choices: list[tuple[int, ...]] = [
            rules.dice_choices(position) for position in range(size)
        ]
        # children[dice][position][class]: positions reachable on that roll, in Medium's order.
        self.children: dict[int, ChildrenOf] = {
            d: ChildrenOf(self.rules, classes, size) for d, classes in self.classes.items()
        }
        # Where legality is more than "the open sets of the class" (``Rules.legal_among``).
        self._special = self.rules.special_positions()
        return size

    def _group_rolls(self, dice: int) -> None:
        weights: dict[RollMoves, int] = defaultdict(int)
        for roll in ALL_ROLLS:
            weights[self.rules.roll_moves(roll, dice)] += 1
        keys = list(weights)
        self.classes[dice] = tuple(RollClass(weights[k] / 36, k) for k in keys)
        index = {k: i for i, k in enumerate(keys)}
        self.class_of[dice] = {roll: index[self.rules.roll_moves(roll, dice)] for roll in ALL_ROLLS}

    def _solve_position(self, position: OpenTiles) -> None:
        expected, p_shut, hint = self.expected, self.p_shut, self.hint_expected
        score = self.score[position]
        best_e = best_p = best_h = 0.0
        special = position in self._special
        for choice, dice in enumerate(self.dice_choices[position]):
            children_by_class = []
            e_total = p_total = h_total = 0.0
            moves = self.optimal_moves[dice]
            first = position * len(self.classes[dice])
            for class_index, (probability, roll_moves) in enumerate(self.classes[dice]):
                if special or roll_moves.refused_when_open:
                    children = children_on(self.rules, position, roll_moves)
                else:  # ``children_on``, inlined where legal means open: most positions
                    children = tuple(
                        position ^ closed
                        for closed in roll_moves.sets
                        if closed & position == closed
                    )
                children_by_class.append(children)
                if not children:
                    e_total += probability * score
                    h_total += probability * score
                    continue
                e_values = [expected[child] for child in children]
                e_best = min(e_values)
                e_total += probability * e_best
                # The optimum's move on this roll class: ``optimal_kid(children)``, inlined.
                for move, e in zip(children, e_values):
                    if e - e_best <= TOLERANCE * max(1.0, abs(e), abs(e_best)):
                        moves[first + class_index] = move
                        break
                p_values = [p_shut[child] for child in children]
                p_best = max(p_values)
                p_total += probability * p_best
                h_total += probability * min(
                    [hint[child] for child, p in zip(children, p_values) if same(p, p_best)]
                )
            self.children[dice][position] = tuple(children_by_class)
            self.expected_by_dice[dice][position] = e_total
            self.p_shut_by_dice[dice][position] = p_total
            self.hint_by_dice[dice][position] = h_total
            if choice == 0:  # the default choice (two dice, where there is one to make)
                best_e, best_p, best_h = e_total, p_total, h_total
            else:
                best_e = min(best_e, e_total)
                if p_total > best_p and not same(p_total, best_p):
                    best_p, best_h = p_total, h_total
                elif same(p_total, best_p):
                    best_h = min(best_h, h_total)
        expected[position], p_shut[position], hint[position] = best_e, best_p, best_h

    # -- policies ---------------------------------------------------------------

    def kids(self, position: OpenTiles, roll: Roll, dice: int) -> tuple[OpenTiles, ...]:
        """The positions reachable from ``position`` on this roll (its children), in
        Medium's order."""
        if position == 0:
            return ()
        return self.children[dice][position][self.class_of[dice][roll]]

    def best_dice(self, position: OpenTiles) -> int:
        """How many dice the expected-score optimum rolls from ``position``."""
        choices = self.dice_choices[position]
        if len(choices) == 1:
            return choices[0]
        one, two = self.expected_by_dice[1][position], self.expected_by_dice[2][position]
        return 1 if one < two and not same(one, two) else 2

    def best_kid(self, position: OpenTiles, roll: Roll, dice: int) -> OpenTiles | None:
        """Where the expected-score optimum moves on this roll (None: unplayable):
        ``optimal_kid`` of its children, read from ``optimal_moves`` where the rules let
        this many dice be rolled from ``position`` (only there was it solved)."""
        if dice not in self.dice_choices[position]:
            children = self.kids(position, roll, dice)
            return self.optimal_kid(children) if children else None
        move = self.optimal_moves[dice][
            position * len(self.classes[dice]) + self.class_of[dice][roll]
        ]
        return move if move >= 0 else None

    def optimal_kid(self, children: tuple[OpenTiles, ...]) -> OpenTiles:
        """The first of ``children`` (in Medium's order) with the lowest expected score."""
        value = min([self.expected[child] for child in children])
        return next(child for child in children if same(self.expected[child], value))

    def options(self, position: OpenTiles, roll: Roll, dice: int) -> list[Option]:
        """Every legal set on this roll, ranked as the hint ranks them: shut chance
        first, then the hint policy's expected score, then Medium's order."""
        p_shut, hint = self.p_shut, self.hint_expected

        def compare(a: tuple[int, OpenTiles], b: tuple[int, OpenTiles]) -> int:
            (i, x), (j, y) = a, b
            if not same(p_shut[x], p_shut[y]):
                return -1 if p_shut[x] > p_shut[y] else 1
            if not same(hint[x], hint[y]):
                return -1 if hint[x] < hint[y] else 1
            return i - j

        ranked = sorted(enumerate(self.kids(position, roll, dice)), key=cmp_to_key(compare))
        return [
            Option(position ^ child, child, p_shut[child], self.expected[child], hint[child])
            for _, child in ranked
        ]

    def hint_dice(self, position: OpenTiles) -> int:
        """How many dice the hint policy rolls from ``position``."""
        choices = self.dice_choices[position]
        if len(choices) == 1:
            return choices[0]
        p1, p2 = self.p_shut_by_dice[1][position], self.p_shut_by_dice[2][position]
        if same(p1, p2):
            h1, h2 = self.hint_by_dice[1][position], self.hint_by_dice[2][position]
            return 1 if h1 < h2 and not same(h1, h2) else 2
        return 1 if p1 > p2 else 2

    def distribution(self, position: OpenTiles) -> dict[int, float]:
        """The final-score distribution from ``position`` under the expected-score optimum."""
        return dict(_distribution(self, position))


def _distribution(tables: Tables, start: OpenTiles) -> list[tuple[int, float]]:
    mass: dict[OpenTiles, float] = {start: 1.0}
    final: dict[int, float] = defaultdict(float)
    # Children are smaller integers: process positions from the largest down.
    for position in range(start, -1, -1):
        weight = mass.pop(position, 0.0)
        if weight == 0.0:
            continue
        if position == 0:
            final[0] += weight
            continue
        dice = tables.best_dice(position)
        classes, moves = tables.classes[dice], tables.optimal_moves[dice]
        first = position * len(classes)
        for class_index, (probability, _) in enumerate(classes):
            child = moves[first + class_index]
            if child < 0:  # unplayable
                final[tables.score[position]] += weight * probability
                continue
            mass[child] = mass.get(child, 0.0) + weight * probability
    return sorted(final.items())


_STANDARD: Final = Rules()


class Loaded:
    """The tables a process holds, by variant: the standard rules' always, and the
    ``limit - 1`` other variants used most recently (an ``LRU``, ``solver_tables``; at
    least one, so that the tables just kept are held while a request uses them)."""

    def __init__(self, limit: int) -> None:
        self._standard: Tables | None = None
        self._others: LRU[Rules, Tables] = LRU("solver_tables", self._others_kept(limit))
        self._limit = limit

    @staticmethod
    def _others_kept(limit: int) -> int:
        return max(1, limit - 1)

    @property
    def limit(self) -> int:
        return self._limit

    @limit.setter
    def limit(self, limit: int) -> None:
        """Hold this many variants from now on (the settings' at start-up)."""
        self._limit = limit
        self._others.resize(self._others_kept(limit))

    def get(self, rules: Rules) -> Tables | None:
        """The tables of these rules if this process holds them."""
        key = rules.solver_key
        return self._standard if key == _STANDARD else self._others.get(key)

    def keep(self, tables: Tables) -> Tables:
        """Hold these tables (the most recently used now), letting the oldest go."""
        if tables.rules == _STANDARD:
            self._standard = tables
        else:
            self._others.put(tables.rules, tables)
        return tables

    def clear(self) -> None:
        self._standard = None
        self._others.clear()

    def __len__(self) -> int:
        return len(self._others) + (self._standard is not None)

    def __contains__(self, rules: Rules) -> bool:
        key = rules.solver_key
        return self._standard is not None if key == _STANDARD else key in self._others


LOADED: Final = Loaded(limit=8)
"""The tables this process holds."""


def solve(rules: Rules) -> Tables:
    """The exact tables of these rules: those held (``LOADED``), else solved here and held."""
    found = LOADED.get(rules)
    return found if found is not None else LOADED.keep(Tables(rules.solver_key))


class PolicyFigures(msgspec.Struct, frozen=True):
    """What a policy achieves from a position."""

    p_shut: Annotated[float, msgspec.Meta(description="The chance of shutting the box, 0..1.")]
    expected_score: Annotated[float, msgspec.Meta(description="The expected final score.")]


class Solution(msgspec.Struct, frozen=True):
    """A position under the exact solutions: the expected-score optimum's expected
    score and final-score distribution, the best shut chance, the hint policy."""

    expected_score: Annotated[
        float,
        msgspec.Meta(
            description="The expected final score under the expected-score optimum (what Hard "
            "plays): 11.16 from the standard start."
        ),
    ]
    p_shut: Annotated[
        float,
        msgspec.Meta(
            description="The best chance of shutting the box, 0..1 (the shut-chance optimum): "
            "0.0714 from the standard start."
        ),
    ]
    hint_policy: Annotated[
        PolicyFigures,
        msgspec.Meta(
            description="What following the hints achieves: the best shut chance, and the "
            "expected final score of playing for it (ties broken by expected score)."
        ),
    ]
    distribution: Annotated[
        dict[int, float],
        msgspec.Meta(
            description="The final score's distribution under the expected-score optimum: "
            'each score reachable (a JSON object\'s keys are strings: "0", "1", ...) and its '
            "probability; they add up to 1."
        ),
    ]


class HintOption(msgspec.Struct, frozen=True):
    """One legal set for the roll, with what closing it leads to."""

    tiles: Annotated[tuple[int, ...], msgspec.Meta(description="The set to close, ascending.")]
    p_shut: Annotated[
        float,
        msgspec.Meta(
            description="The best chance of shutting the box once these are closed, 0..1."
        ),
    ]
    expected_score: Annotated[
        float,
        msgspec.Meta(
            description="The expected final score once these are closed, following the hints."
        ),
    ]


class DiceChoice(msgspec.Struct, frozen=True):
    """Where one die is allowed, before the roll: one die or two."""

    best: Annotated[
        int,
        msgspec.Meta(
            description="The dice the hints roll, 1 or 2: the better shut chance, then the "
            "lower expected score (2 when they tie)."
        ),
    ]
    one: Annotated[PolicyFigures, msgspec.Meta(description="Rolling one die, then the hints.")]
    two: Annotated[PolicyFigures, msgspec.Meta(description="Rolling two dice, then the hints.")]


class Hint(msgspec.Struct, frozen=True, omit_defaults=True):
    """The hint for a position: sets ranked by shut chance, then expected score; without
    a roll, where one die is allowed, which number of dice to roll."""

    best: Annotated[
        tuple[int, ...] | None,
        msgspec.Meta(
            description="The set to close (the first option); null: no roll was sent, or the "
            "roll closes nothing and the turn ends."
        ),
    ]
    options: Annotated[
        tuple[HintOption, ...],
        msgspec.Meta(
            description="Every legal set for the roll, best first: by shut chance, then by "
            "expected score; empty without a roll or when the roll closes nothing."
        ),
    ]
    dice_choice: (
        Annotated[
            DiceChoice,
            msgspec.Meta(
                description="Without a roll, where one die is allowed: whether to roll one die or "
                "two. Absent otherwise."
            ),
        ]
        | msgspec.UnsetType
    ) = msgspec.UNSET


def solution(rules: Rules, open_tiles: OpenTiles | None = None) -> Solution:
    """The exact figures of a position (the rules' start position by default).

    >>> figures = solution(Rules())
    >>> round(figures.expected_score, 2), round(figures.p_shut, 4)
    (11.16, 0.0714)
    """
    tables = solve(rules)
    position = rules.start_position if open_tiles is None else open_tiles
    return Solution(
        expected_score=tables.expected[position],
        p_shut=tables.p_shut[position],
        hint_policy=PolicyFigures(
            p_shut=tables.p_shut[position], expected_score=tables.hint_expected[position]
        ),
        distribution=tables.distribution(position),
    )


def hint(rules: Rules, open_tiles: OpenTiles, roll: tuple[int, ...] | None = None) -> Hint:
    """Rank the choices of a position; ``roll`` is two dice, or one die after choosing one.

    >>> [o.tiles for o in hint(Rules(), Rules().full, (3, 4)).options][:3]
    [(7,), (2, 5), (3, 4)]
    """
    tables = solve(rules)
    if roll is None:
        if len(tables.dice_choices[open_tiles]) == 1 or open_tiles == 0:
            return Hint(best=None, options=())
        one, two = (
            PolicyFigures(
                p_shut=tables.p_shut_by_dice[n][open_tiles],
                expected_score=tables.hint_by_dice[n][open_tiles],
            )
            for n in (1, 2)
        )
        choice = DiceChoice(best=tables.hint_dice(open_tiles), one=one, two=two)
        return Hint(best=None, options=(), dice_choice=choice)
    dice = len(roll)
    if dice not in tables.dice_choices[open_tiles]:
        if dice == 2:
            raise ValueError("roll: these rules make you roll one die here; send one die")
        raise ValueError("roll: one die is not allowed in this position; send both dice")
    pair = (roll[0], roll[1] if dice == 2 else roll[0])
    options = tuple(
        HintOption(tiles=tiles_of(o.closed), p_shut=o.p_shut, expected_score=o.hint_expected_score)
        for o in tables.options(open_tiles, pair, dice)
    )
    return Hint(best=options[0].tiles if options else None, options=options)
