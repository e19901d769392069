"""Every cache of the rules core keyed by what clients send stays within its bound."""

from __future__ import annotations

import gc
import itertools
import random
import weakref
from collections.abc import Iterator

import pytest

from service.rules import analysis, solver
from service.rules.analysis import (
    COMPUTER_RUNS_KEPT,
    GRADED_KEPT,
    HINDSIGHTS_KEPT,
    computers_on,
    hindsight_memo,
    report,
)
from service.rules.dice import derive_dice
from service.rules.replay import Move, replay
from service.rules.ruleset import OpenTiles, Roll, Rules, tiles_of

VARIANTS = [
    Rules(tiles=tiles, one_die=one_die, move_rule=move_rule)
    for tiles in (2, 3, 4)
    for one_die in ("never", "high_closed", "sum_le_6")
    for move_rule in ("any", "dice_or_sum", "single")
]


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> solver.Loaded:
    held = solver.Loaded(limit=3)
    monkeypatch.setattr(solver, "LOADED", held)
    return held


def greedy_moves(rules: Rules, dice: tuple[Roll, ...]) -> list[Move]:
    moves, open_tiles = [], rules.start_position
    for roll in dice:
        sets = rules.legal_sets(open_tiles, roll, 2) if open_tiles else ()
        if not sets:
            break
        moves.append(Move(tiles=tiles_of(sets[0])))
        open_tiles ^= sets[0]
    return moves


def test_a_process_holds_at_most_its_limit_of_variants(loaded: solver.Loaded) -> None:
    solver.solve(Rules())
    for rules in VARIANTS:
        solver.solve(rules)
        assert len(loaded) <= 3
        assert rules in loaded  # the one just asked for stays
        assert Rules() in loaded  # and the standard rules never leave
    assert solver.solve(VARIANTS[-1]) is solver.solve(VARIANTS[-1])


def test_sequences_kept_for_analysis_never_keep_their_tables(loaded: solver.Loaded) -> None:
    rules = Rules(tiles=5, move_rule="single")
    dice = ((1, 2), (3, 1), (2, 2), (5, 5), (6, 6), (1, 1))
    report(rules, dice, greedy_moves(rules, dice), "seq")
    held = weakref.ref(solver.solve(rules))
    loaded.clear()
    gc.collect()
    assert held() is None  # gone with the variant, though its sequence is remembered
    assert report(rules, dice, greedy_moves(rules, dice), "seq").analysis.best_possible >= 0


def test_caches_keyed_by_dice_stay_within_their_bounds(loaded: solver.Loaded) -> None:
    hindsight_memo.cache_clear()
    computers_on.cache_clear()
    rng = random.Random(3)
    for n in range(max(HINDSIGHTS_KEPT, COMPUTER_RUNS_KEPT) + 100):
        rules = VARIANTS[n % len(VARIANTS)]
        dice = tuple((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rules.rolls))
        report(rules, dice, greedy_moves(rules, dice), f"dice/{n}")
        assert hindsight_memo.cache_info().currsize <= HINDSIGHTS_KEPT
        assert computers_on.cache_info().currsize <= COMPUTER_RUNS_KEPT
        assert len(loaded) <= 3
    assert hindsight_memo.cache_info().currsize == HINDSIGHTS_KEPT
    assert analysis.HINDSIGHTS_KEPT <= 128  # a memo is up to some tens of KiB on 12 tiles


def every_line(rules: Rules, dice: tuple[Roll, ...]) -> Iterator[list[Move]]:
    """Every legal run on two dice, one after another."""

    def lines(position: OpenTiles, index: int) -> Iterator[list[Move]]:
        sets = rules.legal_sets(position, dice[index], 2) if position else ()
        if not sets:
            yield []
            return
        for closed in sets:
            for rest in lines(position ^ closed, index + 1):
                yield [Move(tiles=tiles_of(closed)), *rest]

    return lines(rules.start_position, 0)


def test_a_sequence_keeps_its_first_graded_rolls_only() -> None:
    """Runs by the hundred on one sequence: its memo keeps ``GRADED_KEPT`` graded rolls,
    and a run played past them is analysed as on a fresh memo."""
    rules = Rules(tiles=12)
    dice = tuple(derive_dice(b"bounded", "seq-6", rules.rolls))
    runs = list(itertools.islice(every_line(rules, dice), 1000))
    steps = {step for moves in runs for step in replay(rules, dice, moves).steps}
    assert len(steps) > GRADED_KEPT
    for moves in runs:
        report(rules, dice, moves, "seq")
    memo = hindsight_memo(rules.solver_key, dice)
    assert len(memo.graded) == GRADED_KEPT
    last = report(rules, dice, runs[-1], "seq")
    hindsight_memo.cache_clear()
    assert report(rules, dice, runs[-1], "seq") == last
