"""The computer players, who play the same sequence after the player.

- ``EASY`` picks uniformly at random among the legal choices (the number of dice
  where one die is allowed, then the set to close). Its random numbers come from
  Python's Mersenne Twister seeded with the first 8 bytes of SHA-256 of
  ``easy/<sequence id>`` (only ``random()`` is used, whose sequence Python keeps
  stable for a seed), so everyone meets the same Easy on the same dice.
- ``MEDIUM`` closes the highest tiles first: candidate sets compared by their tiles
  in descending order (9+1 before 6+4 before 4+3+2+1); where the rules let it choose
  one die, it rolls one once the open tiles add up to 6 or less (two dice would show
  more than that most of the time).
- ``HARD`` plays the expected-score optimum of ``solver``.

A strategy gives weights over the choices of a position; the same weights drive a
game on a known sequence and the exact expected score of the strategy.

>>> from service.rules.solver import solve
>>> round(expected_score(solve(Rules()), MEDIUM, Rules().full), 2)
11.37
"""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from typing import Final, Protocol, TypeVar

import msgspec

from service.rules.replay import Move
from service.rules.ruleset import SUM_LE_6, OpenTiles, Roll, Rules, tiles_of
from service.rules.solver import Tables

T = TypeVar("T")


class Strategy(Protocol):
    """A computer player: weights over its choices, which need not sum to 1. They give
    its exact expected score, and its choices in a game: a draw by the weights with the
    game's random numbers if it ``uses_rng``, else the one choice its weights are on."""

    name: str
    uses_rng: bool

    def dice_weights(
        self, tables: Tables, position: OpenTiles, choices: tuple[int, ...]
    ) -> Sequence[float]: ...

    def move_weights(
        self, tables: Tables, position: OpenTiles, children: tuple[OpenTiles, ...]
    ) -> Sequence[float]: ...


def _one_hot(size: int, index: int) -> list[float]:
    weights = [0.0] * size
    weights[index] = 1.0
    return weights


class Easy:
    name = "easy"
    uses_rng = True

    def dice_weights(
        self, tables: Tables, position: OpenTiles, choices: tuple[int, ...]
    ) -> Sequence[float]:
        return [1.0] * len(choices)

    def move_weights(
        self, tables: Tables, position: OpenTiles, children: tuple[OpenTiles, ...]
    ) -> Sequence[float]:
        return [1.0] * len(children)


class Deterministic:
    """A player whose every choice is fixed: its weights are all on that choice."""

    name = "deterministic"
    uses_rng = False

    def choose_dice(self, tables: Tables, position: OpenTiles) -> int:
        raise NotImplementedError

    def choose(
        self, tables: Tables, position: OpenTiles, children: tuple[OpenTiles, ...]
    ) -> OpenTiles:
        raise NotImplementedError

    def dice_weights(
        self, tables: Tables, position: OpenTiles, choices: tuple[int, ...]
    ) -> Sequence[float]:
        return _one_hot(len(choices), choices.index(self.choose_dice(tables, position)))

    def move_weights(
        self, tables: Tables, position: OpenTiles, children: tuple[OpenTiles, ...]
    ) -> Sequence[float]:
        return _one_hot(len(children), children.index(self.choose(tables, position, children)))


class Medium(Deterministic):
    name = "medium"

    def choose_dice(self, tables: Tables, position: OpenTiles) -> int:
        # One die wherever the rules let it choose and the sum_le_6 variant would allow it
        # too; where the rules leave no choice, what they impose.
        choices = tables.dice_choices[position]
        if len(choices) == 1:
            return choices[0]
        return 1 if SUM_LE_6.allows(position) else 2

    def choose(
        self, tables: Tables, position: OpenTiles, children: tuple[OpenTiles, ...]
    ) -> OpenTiles:
        return children[0]  # children come in Medium's order


class Hard(Deterministic):
    name = "hard"

    def choose_dice(self, tables: Tables, position: OpenTiles) -> int:
        return tables.best_dice(position)

    def choose(
        self, tables: Tables, position: OpenTiles, children: tuple[OpenTiles, ...]
    ) -> OpenTiles:
        return tables.optimal_kid(children)


EASY: Final = Easy()
MEDIUM: Final = Medium()
HARD: Final = Hard()
COMPUTERS: Final[tuple[Strategy, ...]] = (EASY, MEDIUM, HARD)


class ComputerRun(msgspec.Struct, frozen=True):
    """A computer player's turn on a sequence."""

    score: int
    shut: bool
    moves: tuple[Move, ...]


def play(
    tables: Tables, strategy: Strategy, start: OpenTiles, dice: Sequence[Roll], sequence_id: str
) -> ComputerRun:
    """The turn ``strategy`` plays on ``dice`` from ``start``."""
    rng = None
    if strategy.uses_rng:
        seed = hashlib.sha256(f"{strategy.name}/{sequence_id}".encode()).digest()
        rng = random.Random(int.from_bytes(seed[:8]))
    position = start
    moves: list[Move] = []
    for roll in dice:
        if position == 0:
            break
        choices = tables.dice_choices[position]
        dice_count = choices[0]  # what the rules impose where there is no choice
        if len(choices) > 1:
            dice_count = (
                strategy.choose_dice(tables, position)
                if isinstance(strategy, Deterministic)
                else _chosen(choices, strategy.dice_weights(tables, position, choices), rng)
            )
        children = tables.kids(position, roll, dice_count)
        if not children:
            if dice_count == 1:
                moves.append(Move(tiles=(), dice=1))
            break
        # A deterministic player's choice itself, not the weights made of it: the same
        # choice, without a list of weights a roll (a third of a fresh analysis's players).
        child = (
            strategy.choose(tables, position, children)
            if isinstance(strategy, Deterministic)
            else _chosen(children, strategy.move_weights(tables, position, children), rng)
        )
        moves.append(Move(tiles=tiles_of(position ^ child), dice=dice_count))
        position = child
    return ComputerRun(score=tables.score[position], shut=position == 0, moves=tuple(moves))


def _chosen(options: Sequence[T], weights: Sequence[float], rng: random.Random | None) -> T:
    """A draw by the weights from one ``random()`` (with equal weights, option
    ``int(random() * len(options))``), or without random numbers the heaviest option."""
    if rng is None:
        return options[max(range(len(options)), key=weights.__getitem__)]
    bounds = list(accumulate(weights))
    return options[bisect_right(bounds, rng.random() * bounds[-1])]


def expected_score(tables: Tables, strategy: Strategy, start: OpenTiles) -> float:
    """The exact expected final score of ``strategy`` from ``start``."""
    value = [0.0] * (start + 1)
    for position in range(1, start + 1):
        if position & start != position:
            continue
        choices = tables.dice_choices[position]
        dice_weights = strategy.dice_weights(tables, position, choices)
        total = 0.0
        for dice_count, dice_weight in zip(choices, dice_weights):
            if not dice_weight:
                continue
            per_dice = 0.0
            for (probability, _), children in zip(
                tables.classes[dice_count], tables.children[dice_count][position]
            ):
                if not children:
                    per_dice += probability * tables.score[position]
                    continue
                weights = strategy.move_weights(tables, position, children)
                per_dice += (
                    probability
                    * sum(weight * value[child] for child, weight in zip(children, weights))
                    / sum(weights)
                )
            total += dice_weight * per_dice
        value[position] = total / sum(dice_weights)
    return value[start]


def play_all(
    tables: Tables, rules: Rules, dice: Sequence[Roll], sequence_id: str
) -> dict[str, ComputerRun]:
    """Easy, Medium and Hard on the same dice."""
    return {p.name: play(tables, p, rules.start_position, dice, sequence_id) for p in COMPUTERS}
