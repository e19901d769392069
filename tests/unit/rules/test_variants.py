"""The newer rules fields, exactly: the published figures of their variants, each
checked against a brute force written from the rules' text (``tests/unit/rules/brute_force``),
every first move of every roll with them; and on small random variants of every field,
every position's legal sets and values against that brute force."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings

from service.rules.ruleset import ALL_ROLLS, Rules, tiles_of
from service.rules.solver import hint, solution, solve
from tests.unit.rules import brute_force
from tests.unit.rules.brute_force import BruteForce
from tests.unit.rules.strategies import variants

PUBLISHED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "published_variants.json").read_text()
)


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def rules_of(figure: dict[str, Any]) -> Rules:
    return msgspec.convert(figure["rules"], Rules)


@pytest.mark.parametrize("figure", PUBLISHED["figures"], ids=lambda f: f["what"])
def test_published_figures_of_the_newer_variants(figure: dict[str, Any]) -> None:
    figures = solution(rules_of(figure))
    digits = PUBLISHED["digits"]
    assert round(figures.expected_score, digits) == figure["expected_score"]
    assert round(figures.p_shut, digits) == figure["p_shut"]
    assert round(figures.hint_policy.p_shut, digits) == figure["hint_policy"]["p_shut"]
    assert (
        round(figures.hint_policy.expected_score, digits) == figure["hint_policy"]["expected_score"]
    )


def agrees_from_the_start(rules: Rules, brute: BruteForce) -> None:
    """The start position's figures, and every legal first move of every roll on every
    number of dice the player may roll there: the same sets as the rules' text gives,
    each worth what the brute force says, ranked by the hint as it ranks them."""
    tables, start = solve(rules), rules.start_position
    values = brute(start)
    figures = solution(rules)
    assert close(figures.expected_score, values.expected)
    assert close(figures.p_shut, values.p_shut)
    assert close(figures.hint_policy.p_shut, values.p_shut)
    assert close(figures.hint_policy.expected_score, values.hint)
    assert tables.dice_choices[start] == brute_force.dice_choices(rules, start)
    for dice in brute_force.dice_choices(rules, start):
        rolling = brute.rolling(start, dice)
        assert close(tables.expected_by_dice[dice][start], rolling.expected)
        assert close(tables.p_shut_by_dice[dice][start], rolling.p_shut)
        assert close(tables.hint_by_dice[dice][start], rolling.hint)
        for roll in ALL_ROLLS:
            legal = brute_force.legal_moves(rules, start, roll, dice)
            options = tables.options(start, roll, dice)
            assert sorted(o.closed for o in options) == sorted(legal), (roll, dice)
            for option in options:
                child = brute(option.after)
                assert close(option.expected_score, child.expected), (roll, option)
                assert close(option.p_shut, child.p_shut), (roll, option)
                assert close(option.hint_expected_score, child.hint), (roll, option)
            shown = hint(rules, start, roll if dice == 2 else (roll[0],))
            assert [o.tiles for o in shown.options] == [tiles_of(o.closed) for o in options]
            best = tables.best_kid(start, roll, dice)
            if not legal:
                assert best is None and shown.best is None
                continue
            assert best is not None
            assert close(brute(best).expected, min(brute(start ^ s).expected for s in legal))


@pytest.mark.parametrize("figure", PUBLISHED["figures"], ids=lambda f: f["what"])
def test_the_published_variants_agree_with_the_brute_force_on_every_first_move(
    figure: dict[str, Any],
) -> None:
    rules = rules_of(figure)
    agrees_from_the_start(rules, BruteForce(rules))


@settings(max_examples=60, deadline=None)
@given(variants(max_tiles=6))
def test_every_position_of_every_variant_agrees_with_the_brute_force(rules: Rules) -> None:
    """Small boxes under every field: each position's legal sets (``Rules.legal_sets`` and
    the solver's children alike) are the rules' text's, and its values the brute force's."""
    tables, brute = solve(rules), BruteForce(rules)
    for position in range(1, 1 << rules.tiles):
        assert rules.dice_choices(position) == brute_force.dice_choices(rules, position)
        for dice in (2, 1):
            for roll in ALL_ROLLS:
                legal = rules.legal_sets(position, roll, dice)
                assert sorted(legal) == sorted(
                    brute_force.legal_moves(rules, position, roll, dice)
                ), (tiles_of(position), roll, dice)
                if dice in tables.classes:
                    kids = tables.kids(position, roll, dice)
                    assert kids == tuple(position ^ s for s in legal)
        values = brute(position)
        assert close(tables.expected[position], values.expected), tiles_of(position)
        assert close(tables.p_shut[position], values.p_shut), tiles_of(position)
        assert close(tables.hint_expected[position], values.hint), tiles_of(position)
    agrees_from_the_start(rules, brute)
