"""Hindsight optimum, per-roll costs and labels on the dice a player actually got."""

from __future__ import annotations

import itertools

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules.analysis import Hindsight, hindsight_memo, label_for, report
from service.rules.computers import COMPUTERS, play
from service.rules.replay import Move, replay
from service.rules.ruleset import Roll, Rules
from service.rules.solver import solve
from tests.unit.rules.strategies import dice_of, played_moves, rolls, sequences, variants


def brute_force_best(rules: Rules, dice: tuple[Roll, ...]) -> int:
    """Every line of play enumerated, without the memoised search."""
    best = rules.score(rules.start_position)

    def walk(s: int, k: int) -> None:
        nonlocal best
        if s == 0:
            best = 0
            return
        for n in rules.dice_choices(s):
            sets = rules.legal_sets(s, dice[k], n)
            if not sets:
                best = min(best, rules.score(s))
            for m in sets:
                walk(s ^ m, k + 1)

    walk(rules.start_position, 0)
    return best


@settings(max_examples=150, deadline=None)
@given(st.data(), variants(max_tiles=8))
def test_costs_add_up_and_hindsight_beats_every_policy(data: st.DataObject, rules: Rules) -> None:
    tables = solve(rules)
    dice = data.draw(sequences(rules))
    moves = data.draw(played_moves(tables, rules, dice))
    result = report(rules, dice, moves, "box/TEST")
    analysis = result.analysis
    assert analysis.best_possible == brute_force_best(rules, dice)
    assert analysis.best_possible <= result.run.score
    for computer in result.computer.values():
        assert analysis.best_possible <= computer.score
    assert analysis.total_cost == result.run.score - analysis.best_possible
    assert sum(m.hindsight_cost for m in analysis.moves) == analysis.total_cost
    assert all(m.hindsight_cost >= 0 for m in analysis.moves)
    assert len(analysis.moves) == result.run.rolls_used
    assert analysis.could_be_better == tuple(m.index for m in analysis.moves if m.hindsight_cost)
    # The best line is itself a legal run reaching the best score.
    assert replay(rules, dice, analysis.best_line).score == analysis.best_possible
    for entry in analysis.moves:
        assert entry.expected_loss >= 0
        assert entry.expected_loss == pytest.approx(
            entry.expected_score - entry.best_expected_score + entry.dice_loss, abs=1e-9
        )
        assert (entry.label == "best") == (
            entry.expected_loss <= 1e-9 * max(1, entry.expected_score)
        )


@settings(max_examples=100, deadline=None)
@given(st.data(), variants(max_tiles=8))
def test_a_roll_graded_once_a_sequence_is_graded_as_on_its_own(
    data: st.DataObject, rules: Rules
) -> None:
    """Runs on a sequence share the rolls they play from the same position: a run
    analysed after others (from the full box too) is analysed as on a fresh memo."""
    tables = solve(rules)
    dice = data.draw(sequences(rules))
    moves = data.draw(played_moves(tables, rules, dice))
    for other in (msgspec.structs.replace(rules, start=None), rules):
        # (Its own tables: under first_must_close, the start is part of the variant.)
        report(other, dice, data.draw(played_moves(solve(other), other, dice)), "box/TEST")
    after_others = report(rules, dice, moves, "box/TEST")
    hindsight_memo.cache.clear()
    assert report(rules, dice, moves, "box/TEST") == after_others


@settings(max_examples=100, deadline=None)
@given(st.data(), variants(max_tiles=9))
def test_computer_runs_are_legal_and_deterministic(data: st.DataObject, rules: Rules) -> None:
    tables = solve(rules)
    dice = data.draw(sequences(rules))
    for player in COMPUTERS:
        first = play(tables, player, rules.start_position, dice, "daily/2026-11-29")
        again = play(tables, player, rules.start_position, dice, "daily/2026-11-29")
        assert first == again
        run = replay(rules, dice, first.moves)
        assert (run.score, run.shut) == (first.score, first.shut)


def test_easy_depends_on_the_sequence_id_and_follows_it() -> None:
    rules, tables = Rules(), solve(Rules())
    dice: tuple[Roll, ...] = ((6, 6),) * 10
    easy = COMPUTERS[0]
    lines = {play(tables, easy, rules.full, dice, f"box/{n}").moves for n in range(20)}
    assert len(lines) > 1  # different sequence ids meet different Easy players


def test_medium_closes_the_highest_tiles_first() -> None:
    rules, tables = Rules(), solve(Rules())
    dice = dice_of("55 44 34 66 11 11 11 11 11 11")
    medium = play(tables, COMPUTERS[1], rules.full, dice, "x").moves
    assert [m.tiles for m in medium] == [(1, 9), (8,), (7,), (2, 4, 6), ()][: len(medium)]


def test_hard_plays_the_expected_score_optimum() -> None:
    rules, tables = Rules(), solve(Rules())
    dice = dice_of("34 56 12 22 66 11 23 33 15 26")
    s = rules.full
    for k, move in enumerate(play(tables, COMPUTERS[2], s, dice, "x").moves):
        kid = tables.best_kid(s, dice[k], 2)
        assert kid is not None and s ^ kid == move.closed
        s = kid


def test_a_worked_example() -> None:
    rules = Rules()
    dice = dice_of("34 66 11 12 23 55 66 11 22 33")
    result = report(rules, dice, [Move(tiles=(3, 4)), Move(tiles=(1, 2, 9))], "daily/2026-11-29")
    analysis = result.analysis
    assert (result.run.score, result.run.rolls_used) == (26, 3)  # 5, 6, 7, 8 open; 1 + 1 ends it
    assert analysis.best_possible == 6 == brute_force_best(rules, dice)
    assert [str(m) for m in analysis.best_line] == ["7", "8+4", "2", "3", "5", "9+1"]
    assert [m.hindsight_cost for m in analysis.moves] == [18, 2, 0]
    assert analysis.could_be_better == (0, 1) and analysis.total_cost == 20
    first, second, last = analysis.moves
    assert (first.chosen, first.best, str(first.hindsight_best)) == ((3, 4), (7,), "7")
    assert (second.chosen, second.best, str(second.hindsight_best)) == ((1, 2, 9), (5, 7), "7+5")
    assert [m.label for m in analysis.moves] == ["blunder", "blunder", "best"]
    assert (last.chosen, last.roll, last.expected_loss) == ((), (1, 1), 0.0)
    assert {name: run.score for name, run in result.computer.items()} == {
        "easy": 24, "medium": 24, "hard": 24,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("loss", "label"),
    [(0.0, "best"), (1e-15, "best"), (0.3, "inaccuracy"), (0.55, "inaccuracy"),
     (0.6, "mistake"), (1.6, "mistake"), (1.7, "blunder"), (7.0, "blunder")],
)  # fmt: skip
def test_labels_scale_with_the_expected_score_of_the_turn(loss: float, label: str) -> None:
    assert label_for(loss, 11.1575) == label
    assert label_for(loss * 100, 1115.75) == label


def test_hindsight_line_reaches_the_best() -> None:
    rules, tables = Rules(), solve(Rules())
    for n, dice in enumerate(
        itertools.islice(itertools.product(((1, 2), (6, 6), (4, 5)), repeat=10), 0, 50)
    ):
        hindsight = Hindsight(tables, dice)
        line = hindsight.line(rules.full)
        assert replay(rules, dice, line).score == hindsight.best(rules.full, 0), n


@settings(max_examples=100, deadline=None)
@given(st.data(), variants(max_tiles=9))
def test_without_hindsight_no_later_roll_is_read(data: st.DataObject, rules: Rules) -> None:
    """Dice a client brings (PRODUCT.md §6b): every figure that needs no later roll is the
    full analysis's, the hindsight ones are None, and the rolls after a move decide
    nothing of it: a roll the run never reached changed, the analysis is the same."""
    tables = solve(rules)
    dice = data.draw(sequences(rules))
    moves = data.draw(played_moves(tables, rules, dice))
    full = report(rules, dice, moves, "box/TEST").analysis
    blind = report(rules, dice, moves, "box/TEST", hindsight=False).analysis
    assert not blind.hindsight and full.hindsight
    assert (blind.best_possible, blind.best_line, blind.could_be_better, blind.total_cost) == (
        (None,) * 4
    )
    assert blind.moves == tuple(
        msgspec.structs.replace(m, hindsight_best=None, hindsight_cost=None) for m in full.moves
    )
    used = len(blind.moves)
    later = st.lists(rolls, min_size=len(dice) - used, max_size=len(dice) - used)
    changed = dice[:used] + tuple(data.draw(later))
    assert report(rules, changed, moves, "box/TEST", hindsight=False).analysis == blind
