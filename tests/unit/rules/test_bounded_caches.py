"""Every cache of the service stays within its bound, the most recently used kept.

The registry (``service.caching.registered``) is the list: these tests iterate it, so a
cache is checked from the moment it is made, whoever makes it.
"""

from __future__ import annotations

import gc
import itertools
import random
import weakref
from collections.abc import Iterator

import pytest

from service.caching import LRU, registered
from service.rules import solver
from service.rules.dice import derive_dice
from service.rules.replay import Move
from service.rules.ruleset import OpenTiles, Roll, Rules, tiles_of

VARIANTS = [
    Rules(tiles=tiles, one_die=one_die, move_rule=move_rule)
    for tiles in (2, 3, 4)
    for one_die in ("never", "high_closed", "sum_le_6")
    for move_rule in ("any", "dice_or_sum", "single")
]
PAST: int = 3  # entries put past a cache's bound


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


def fill_past_its_bound(cache: LRU[object, object]) -> None:
    """Keys no caller makes (fresh objects), one after another past the bound: never
    more than the bound kept, and the most recently used stay."""
    bound = cache.bound
    keys = [object() for _ in range(bound + PAST)]
    for n, key in enumerate(keys):
        cache.put(key, n)
        assert len(cache) <= bound, cache
    assert len(cache) == bound, cache
    assert all(key in cache for key in keys[PAST:]), cache
    assert not any(key in cache for key in keys[:PAST]), cache
    if bound >= 2:  # a read makes an entry the most recently used: the next one leaves
        oldest, next_oldest = keys[PAST], keys[PAST + 1]
        assert cache.get(oldest) == PAST
        cache.put(object(), -1)
        assert oldest in cache and next_oldest not in cache, cache


def test_a_process_holds_at_most_its_limit_of_variants(loaded: solver.Loaded) -> None:
    solver.solve(Rules())
    for rules in VARIANTS:
        solver.solve(rules)
        assert len(loaded) <= 3
        assert rules in loaded  # the one just asked for stays
        assert Rules() in loaded  # and the standard rules never leave
    assert solver.solve(VARIANTS[-1]) is solver.solve(VARIANTS[-1])


def test_sequences_kept_for_analysis_never_keep_their_tables(loaded: solver.Loaded) -> None:
    from service.rules.analysis import report

    rules = Rules(tiles=5, move_rule="single")
    dice = ((1, 2), (3, 1), (2, 2), (5, 5), (6, 6), (1, 1))
    report(rules, dice, greedy_moves(rules, dice), "seq")
    held = weakref.ref(solver.solve(rules))
    loaded.clear()
    gc.collect()
    assert held() is None  # gone with the variant, though its sequence is remembered
    assert report(rules, dice, greedy_moves(rules, dice), "seq").analysis.best_possible >= 0


def test_caches_fed_by_clients_dice_stay_within_their_bounds(loaded: solver.Loaded) -> None:
    """Reports on sequence after sequence of every variant: every cache stays within its
    bound all along, whatever the rules core keeps."""
    from service.rules.analysis import report

    rng = random.Random(3)
    for n in range(700):
        rules = VARIANTS[n % len(VARIANTS)]
        dice = tuple((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rules.rolls))
        report(rules, dice, greedy_moves(rules, dice), f"dice/{n}")
        assert all(len(cache) <= cache.bound for cache in registered())
        assert len(loaded) <= 3


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


def test_a_run_is_analysed_the_same_whatever_the_caches_kept() -> None:
    """Runs by the hundred on one sequence, then each cache emptied: the same analysis."""
    from service.rules.analysis import report

    rules = Rules(tiles=12)
    dice = tuple(derive_dice(b"bounded", "seq-6", rules.rolls))
    runs = list(itertools.islice(every_line(rules, dice), 1000))
    reports = [report(rules, dice, moves, "seq") for moves in runs]
    for cache in registered():
        if cache.name != "solver_tables":  # solving 12 tiles again proves nothing here
            cache.clear()
    assert [report(rules, dice, moves, "seq") for moves in runs[::50]] == reports[::50]
