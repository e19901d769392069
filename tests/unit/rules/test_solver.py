"""Exact solutions: the published figures, the Bellman equations, the hint order."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings

from service.rules.computers import EASY, MEDIUM, expected_score
from service.rules.ruleset import ALL_ROLLS, Rules, mask_of, tiles_of
from service.rules.solver import hint, same, solution, solve
from tests.unit.rules.strategies import variants

PUBLISHED: dict[str, Any] = json.loads((Path(__file__).parent / "published.json").read_text())


def measure(rules: Rules, what: str) -> float:
    tables = solve(rules)
    start = rules.start_position
    if what == "expected_score":
        return tables.expected[start]
    if what == "p_shut":
        return tables.p_shut[start]
    if what == "medium":
        return expected_score(tables, MEDIUM, start)
    if what == "easy":
        return expected_score(tables, EASY, start)
    if what == "optimal_at_most_10":
        return sum(p for score, p in tables.distribution(start).items() if score <= 10)
    raise AssertionError(what)


@pytest.mark.parametrize("figure", PUBLISHED["figures"], ids=lambda f: f["what"])
def test_published_figures(figure: dict[str, Any]) -> None:
    rules = msgspec.convert(figure["rules"], Rules)
    assert round(measure(rules, figure["measure"]), figure["digits"]) == figure["printed"]


@pytest.mark.parametrize(("total", "tiles"), PUBLISHED["full_box_optimum"].items())
def test_the_optimum_on_a_full_box(total: str, tiles: list[int]) -> None:
    tables = solve(Rules())
    roll = next(r for r in ALL_ROLLS if sum(r) == int(total))
    kid = tables.best_kid(Rules().full, roll, 2)
    assert kid is not None and tiles_of(Rules().full ^ kid) == tuple(tiles)
    # Strictly best, not a tie settled by order: every other set is worse.
    for other in tables.kids(Rules().full, roll, 2):
        if other != kid:
            assert tables.expected[other] > tables.expected[kid] + 1e-9


def bellman(rules: Rules) -> None:
    """Recompute every position from the rules alone (all 36 rolls, no grouping)."""
    tables = solve(rules)
    for s in range(1, 1 << rules.tiles):
        per_dice_e, per_dice_p = [], []
        for dice in rules.dice_choices(s):
            e = p = 0.0
            for roll in ALL_ROLLS:
                kids = [s ^ m for m in rules.legal_sets(s, roll, dice)]
                e += min((tables.expected[k] for k in kids), default=rules.score(s)) / 36
                p += max((tables.p_shut[k] for k in kids), default=0.0) / 36
            per_dice_e.append(e)
            per_dice_p.append(p)
        assert abs(tables.expected[s] - min(per_dice_e)) <= 1e-9 * max(1.0, tables.expected[s])
        assert abs(tables.p_shut[s] - max(per_dice_p)) < 1e-12
    assert tables.expected[0] == 0.0 and tables.p_shut[0] == 1.0


def test_bellman_equations_hold_for_the_standard_rules() -> None:
    bellman(Rules())


@settings(max_examples=25, deadline=None)
@given(variants(max_tiles=8))
def test_bellman_equations_hold_for_every_variant(rules: Rules) -> None:
    bellman(rules)


@settings(max_examples=25, deadline=None)
@given(variants(max_tiles=9))
def test_the_distribution_sums_to_one_and_has_the_optimum_as_mean(rules: Rules) -> None:
    tables = solve(rules)
    start = rules.start_position
    distribution = tables.distribution(start)
    assert abs(sum(distribution.values()) - 1) < 1e-9
    mean = sum(score * p for score, p in distribution.items())
    assert abs(mean - tables.expected[start]) <= 1e-9 * max(1.0, tables.expected[start])
    assert abs(distribution.get(0, 0.0)) <= tables.p_shut[start] + 1e-12


def test_the_hint_ranks_by_shut_chance_then_expected_score() -> None:
    rules = Rules()
    for s in (rules.full, mask_of((1, 2, 3, 4, 6, 8)), mask_of((2, 3, 5, 7))):
        for roll in ALL_ROLLS:
            options = hint(rules, s, roll).options
            keys = [(-o.p_shut, o.expected_score) for o in options]
            for a, b in itertools.pairwise(keys):
                assert a[0] < b[0] or (same(a[0], b[0]) and (a[1] <= b[1] or same(a[1], b[1])))


def test_hint_policy_maximises_shut_chance_and_costs_expected_score() -> None:
    figures = solution(Rules())
    assert figures.hint_policy.p_shut == figures.p_shut
    assert figures.hint_policy.expected_score > figures.expected_score
    assert figures.distribution[0] < figures.p_shut  # the expected-score optimum shuts less


def test_hint_offers_the_dice_choice_where_one_die_is_allowed() -> None:
    rules = Rules(one_die="high_closed")
    choice = hint(rules, mask_of((1, 2, 3)), None).dice_choice
    assert choice is not None and choice.best == 1  # with 1, 2, 3 open, one die shuts more
    assert choice.one.p_shut > choice.two.p_shut
    assert hint(rules, rules.full, None).dice_choice is msgspec.UNSET
    with pytest.raises(ValueError, match="one die is not allowed"):
        hint(rules, rules.full, (3,))
    assert [o.tiles for o in hint(rules, mask_of((1, 2, 3)), (3,)).options] == [(3,), (1, 2)]


def test_twelve_tile_tables_are_consistent() -> None:
    rules = Rules(tiles=12)
    tables = solve(rules)
    assert len(tables.expected) == 4096
    assert 0 < tables.p_shut[rules.full] < solve(Rules()).p_shut[Rules().full]


def test_where_one_die_is_a_must_every_policy_rolls_it() -> None:
    rules = Rules(one_die="sum_le_6", one_die_choice="mandatory")
    tables = solve(rules)
    s = mask_of((1, 2, 3))
    assert tables.dice_choices[s] == (1,)
    assert tables.best_dice(s) == tables.hint_dice(s) == 1
    assert tables.expected[s] == tables.expected_by_dice[1][s]
    assert hint(rules, s, None).dice_choice is msgspec.UNSET  # no choice to make
    with pytest.raises(ValueError, match="send one die"):
        hint(rules, s, (3, 4))
    assert [o.tiles for o in hint(rules, s, (3,)).options] == [(3,), (1, 2)]
    # Medium and Easy follow the rule too, and the optimum beats them.
    assert expected_score(tables, MEDIUM, rules.full) > tables.expected[rules.full]
    assert expected_score(tables, EASY, rules.full) > tables.expected[rules.full]
    # A must is no better than a choice: the optional rules' optimum may roll one die too.
    assert tables.expected[rules.full] >= solve(Rules(one_die="sum_le_6")).expected[rules.full]
