"""Legal runs for the tests and the benchmarks: dice played under rules by a policy.

One walk plays every run here (``runs``). On each roll it asks ``Rules.dice_choices``
how many dice may be rolled and ``Rules.legal_sets`` which sets may be closed, the two
functions that say what is legal (replay, the solver, ``/v1/moves`` and the page agree
with them), and a policy chooses where the player has a choice. So a run made here is
legal under every variant the rules core knows, new ones too, without a second copy of
the rules in the tests. The runs come in the JSON form the API takes and answers
(``legal_run``, ``legal_runs``: ``Move.as_json``), or as ``Move`` for the rules core.

The benchmarks import this module too (tests never import the benchmarks).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from service.rules.replay import Move
from service.rules.ruleset import OpenTiles, Roll, Rules, mask_of, tiles_of

STANDARD = Rules()

JsonMove = list[int] | dict[str, object]
"""A move as a run writes it (``Move.as_json``): its tiles, or after one die an object."""

Policy = Callable[[int], Iterable[int]]
"""Which of ``n`` options (``n`` >= 2) the player takes where it has a choice: their
indices, in turn. The options are the dice counts of ``Rules.dice_choices`` (two dice
first), then the legal sets in the order of ``Rules.legal_sets`` (Medium's: the highest
tiles first). One index plays one run; several branch, each branch played in turn."""

_Option = TypeVar("_Option")


def first(n: int) -> Iterable[int]:
    """The first option: two dice, and the set that closes the highest tiles (greedy)."""
    return (0,)


def every(n: int) -> Iterable[int]:
    """Every option: every line of play, depth first (each run different)."""
    return range(n)


def at_random(rng: random.Random) -> Policy:
    """One option at random each time: ``at_random(random.Random(seed))`` repeats a run."""
    return lambda n: (rng.randrange(n),)


def scripted(choices: Iterable[int]) -> Policy:
    """The ``choices`` in turn, one a choice (wrapping round its options), then the first:
    different scripts make different runs where the dice allow."""
    script = iter(choices)
    return lambda n: (next(script, 0) % n,)


def runs(
    dice: Sequence[Sequence[int]], rules: Rules = STANDARD, policy: Policy = first
) -> Iterator[list[Move]]:
    """The runs ``policy`` plays on ``dice`` under ``rules``, each a legal turn played to
    its end: the box shut, the dice used up, or a roll that allows no set (after one die
    that roll is a move too, ``{"tiles": [], "dice": 1}``, as the API wants it written)."""
    rolls: tuple[Roll, ...] = tuple((a, b) for a, b in dice)

    def chosen(options: tuple[_Option, ...]) -> Iterable[_Option]:
        return options if len(options) < 2 else (options[i] for i in policy(len(options)))

    def lines(position: OpenTiles, index: int) -> Iterator[list[Move]]:
        if position == 0 or index == len(rolls):
            yield []
            return
        for count in chosen(rules.dice_choices(position)):
            sets = rules.legal_sets(position, rolls[index], count)
            if not sets:
                yield [Move(tiles=(), dice=1)] if count == 1 else []
            for closed in chosen(sets):
                move = Move(tiles=tiles_of(closed), dice=count)
                for rest in lines(position ^ closed, index + 1):
                    yield [move, *rest]

    return lines(rules.start_position, 0)


def played(
    dice: Sequence[Sequence[int]], rules: Rules = STANDARD, policy: Policy = first
) -> list[Move]:
    """The first run ``policy`` plays on ``dice``, as the rules core's moves."""
    return next(runs(dice, rules, policy))


def legal_run(
    dice: Sequence[Sequence[int]], rules: Rules = STANDARD, policy: Policy = first
) -> list[JsonMove]:
    """The first run ``policy`` plays on ``dice``, as a run's JSON ``moves``."""
    return [move.as_json() for move in played(dice, rules, policy)]


def legal_runs(
    dice: Sequence[Sequence[int]], count: int, rules: Rules = STANDARD, policy: Policy = every
) -> list[list[JsonMove]]:
    """Up to ``count`` runs ``policy`` plays on ``dice`` (JSON ``moves``): by default every
    line of play in turn, so all different, and fewer when the dice allow fewer."""
    lines = itertools.islice(runs(dice, rules, policy), count)
    return [[move.as_json() for move in line] for line in lines]


def score_of(moves: Iterable[Any], rules: Rules = STANDARD) -> int:
    """The score of a legal run written as JSON ``moves``: the tiles it leaves open."""
    closed = 0
    for move in moves:
        closed |= mask_of(move["tiles"] if isinstance(move, dict) else move)
    return rules.score(rules.start_position & ~closed)


def run_with_score(
    dice: Sequence[Sequence[int]], wanted: set[int], rules: Rules = STANDARD
) -> dict[int, list[JsonMove]]:
    """A legal run (JSON ``moves``) for each score in ``wanted`` that one of the first
    20,000 lines of play reaches."""
    by_score: dict[int, list[JsonMove]] = {}
    for moves in legal_runs(dice, 20000, rules):
        score = score_of(moves, rules)
        if score in wanted and score not in by_score:
            by_score[score] = moves
    return by_score
