"""The exact solution for the dice a player actually got, and what each choice cost.

- **Hindsight optimum** (only for dice the service chose: ``analyse(..., hindsight=True)``;
  PRODUCT.md §6b): the lowest final score any line of choices reaches on the
  sequence (``best_possible``), with one line that reaches it (``best_line``).
- **hindsight_cost** of the move on roll k: best reachable after the chosen move
  minus best reachable before it, both on the actual dice. The costs telescope, so
  they add up exactly to ``score - best_possible``. The analysis has one entry per
  roll used: a turn that ends on an unplayable roll gets an entry for that roll
  too, because choosing two dice where one die was allowed can cost there.
- **expected_loss**: the decision measured without future dice, against the
  expected-score optimum: the expected score after the chosen set minus after the
  best set for that roll, plus ``dice_loss``, what choosing that number of dice
  cost in expectation before the roll.
- **label** grades ``expected_loss`` relative to the expected score of the whole
  turn under optimal play, so the grades mean the same under every scoring
  (11.16 points for the standard rules): ``best`` for no loss, ``inaccuracy`` up to
  5% of it (about half a point on the standard box: a close call), ``mistake`` up to
  15% (about 1.7 points: a clear error), ``blunder`` beyond.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

import msgspec

from service.caching import LRU, cached
from service.rules.computers import ComputerRun, play_all
from service.rules.replay import Move, Run, Step, replay
from service.rules.ruleset import OpenTiles, Roll, Rules, tiles_of
from service.rules.solver import Tables, same, solve

Label = Literal["best", "inaccuracy", "mistake", "blunder"]
INACCURACY_UP_TO: Final = 0.05
MISTAKE_UP_TO: Final = 0.15


HINDSIGHTS_KEPT: Final = 128
"""Sequences whose hindsight memo a process keeps (a memo is at most some tens of KiB
on 12 tiles: the positions reachable on its dice)."""
COMPUTER_RUNS_KEPT: Final = 512
"""Sequences whose computer players' runs a process keeps (a few KiB each)."""
GRADED_KEPT: Final = 256
"""Rolls whose analysis a sequence's memo keeps (``HindsightMemo.graded``), those played
most recently: the positions its players share most come again and again (every run
starts at the same one); under 1 KiB each, some 200 KiB a sequence at most."""


BLIND_GRADED_KEPT: Final = 4096
"""Rolls graded without hindsight (dice a client brought) a process keeps: such a grade
depends on the variant, the start and the roll's step alone, not on the dice, so it is
shared by every run that plays the same roll from the same position (the first rolls of
every standard game come from the full box), under 1 KiB each."""
_graded_blind: LRU[tuple[Rules, OpenTiles, Step], MoveAnalysis] = LRU(
    "graded_rolls_blind", BLIND_GRADED_KEPT
)


class HindsightMemo:
    """What a hindsight search on one sequence has found so far, and the rolls graded
    on it. It depends only on the variant and the dice, not on which copy of the tables
    found it, and it holds no tables: a memo kept for a sequence never keeps its
    variant's tables in memory."""

    def __init__(self) -> None:
        self.best: dict[tuple[OpenTiles, int], int] = {}
        self.choice: dict[tuple[OpenTiles, int], tuple[int, OpenTiles | None]] = {}
        self.lines: dict[OpenTiles, tuple[Move, ...]] = {}
        # A roll's analysis, by the start of the turn (its grade's scale) and the step.
        self.graded: LRU[tuple[OpenTiles, Step], MoveAnalysis] = LRU("graded_rolls", GRADED_KEPT)


class Hindsight:
    """Best reachable final scores on one known sequence, memoised by (position, roll)."""

    def __init__(
        self, tables: Tables, dice: Sequence[Roll], memo: HindsightMemo | None = None
    ) -> None:
        self.tables = tables
        self.dice = dice
        memo = memo if memo is not None else HindsightMemo()
        self._best = memo.best
        self._choice = memo.choice
        self._lines = memo.lines

    def best(self, position: OpenTiles, roll_index: int) -> int:
        """The lowest final score reachable from ``position`` at roll ``roll_index``."""
        if position == 0:
            return 0
        key = (position, roll_index)
        found = self._best.get(key)
        if found is not None:
            return found
        tables, roll = self.tables, self.dice[roll_index]
        value = None
        for dice_count in tables.dice_choices[position]:
            children = tables.kids(position, roll, dice_count)
            option = (
                min([self.best(child, roll_index + 1) for child in children])
                if children
                else tables.score[position]
            )
            if value is None or option < value:
                value = option
        assert value is not None
        self._best[key] = value
        return value

    def choice(self, position: OpenTiles, roll_index: int) -> tuple[int, OpenTiles | None]:
        """Dice and next position of a line that reaches ``best(position, roll_index)``
        (None: the turn ends)."""
        found = self._choice.get((position, roll_index))
        if found is None:
            found = self._choice[(position, roll_index)] = self._first_best(position, roll_index)
        return found

    def _first_best(self, position: OpenTiles, roll_index: int) -> tuple[int, OpenTiles | None]:
        target = self.best(position, roll_index)
        for dice_count in self.tables.dice_choices[position]:
            children = self.tables.kids(position, self.dice[roll_index], dice_count)
            if not children and self.tables.score[position] == target:
                return dice_count, None
            for child in children:
                if self.best(child, roll_index + 1) == target:
                    return dice_count, child
        raise AssertionError("best() and choice() disagree")

    def best_line(self, start: OpenTiles) -> tuple[Move, ...]:
        """``line(start)``, kept: the same for every run on the sequence."""
        found = self._lines.get(start)
        if found is None:
            found = self._lines[start] = self.line(start)
        return found

    def line(self, position: OpenTiles, roll_index: int = 0) -> tuple[Move, ...]:
        """One line of moves from ``position`` at roll ``roll_index`` that reaches the
        best score."""
        moves: list[Move] = []
        while position:
            dice_count, child = self.choice(position, roll_index)
            if child is None:
                if dice_count == 1:
                    moves.append(Move(tiles=(), dice=1))
                break
            moves.append(Move(tiles=tiles_of(position ^ child), dice=dice_count))
            position, roll_index = child, roll_index + 1
        return tuple(moves)


class MoveAnalysis(msgspec.Struct, frozen=True):
    """What one roll of the run was worth."""

    index: int
    roll: Roll
    dice_used: int
    chosen: tuple[int, ...]
    best: tuple[int, ...]
    hindsight_best: Move | None
    hindsight_cost: int | None
    expected_score: float
    best_expected_score: float
    dice_loss: float
    expected_loss: float
    label: Label


class Analysis(msgspec.Struct, frozen=True):
    """The run measured against the exact solution for its dice. Without ``hindsight``
    (dice the service did not choose) the figures that know the later rolls are None."""

    hindsight: bool
    best_possible: int | None
    best_line: tuple[Move, ...] | None
    could_be_better: tuple[int, ...] | None
    total_cost: int | None
    moves: tuple[MoveAnalysis, ...]


class Report(msgspec.Struct, frozen=True):
    """A verified run, its analysis and the computer players on the same dice."""

    run: Run
    analysis: Analysis
    computer: dict[str, ComputerRun]

    @property
    def best_possible(self) -> int:
        """The hindsight optimum of a report made with hindsight (dice the service chose)."""
        best = self.analysis.best_possible
        assert best is not None, "analysed with hindsight"
        return best


def label_for(loss: float, scale: float) -> Label:
    """Grade an expected-score loss against the expected score of the whole turn."""
    if loss <= 0 or same(loss, 0.0):
        return "best"
    if loss <= INACCURACY_UP_TO * scale:
        return "inaccuracy"
    if loss <= MISTAKE_UP_TO * scale:
        return "mistake"
    return "blunder"


@cached("hindsight_memos", HINDSIGHTS_KEPT)
def hindsight_memo(rules: Rules, dice: tuple[Roll, ...]) -> HindsightMemo:
    """The hindsight memo of a sequence (``rules`` without a start), shared by every
    run on it; it grows with the positions those runs visit."""
    return HindsightMemo()


@cached("computer_runs", COMPUTER_RUNS_KEPT)
def computers_on(rules: Rules, dice: tuple[Roll, ...], sequence_id: str) -> dict[str, ComputerRun]:
    """Easy, Medium and Hard on a sequence: the same for every run on it."""
    return play_all(solve(rules), rules, dice, sequence_id)


def analyse(tables: Tables, run: Run, *, hindsight: bool = True) -> Analysis:
    """Per-roll expected-score losses of a verified run and, with ``hindsight`` (dice the
    service chose), the hindsight optimum and per-roll costs. A roll is graded once a
    sequence: every run that plays it from the same position shares its analysis
    (``HindsightMemo.graded``). Without hindsight no later roll is read: nothing is
    searched or kept."""
    rules = run.rules
    start = rules.start_position
    scale = max(tables.expected[start], 1e-9)
    if not hindsight:
        blind: list[MoveAnalysis] = []
        for step in run.steps:
            key = (rules.solver_key, start, step)
            entry = _graded_blind.get(key)
            if entry is None:
                entry = _graded(tables, None, step, scale)
                _graded_blind.put(key, entry)
            blind.append(entry)
        return Analysis(
            hindsight=False,
            best_possible=None,
            best_line=None,
            could_be_better=None,
            total_cost=None,
            moves=tuple(blind),
        )
    memo = hindsight_memo(rules.solver_key, run.dice)
    search = Hindsight(tables, run.dice, memo)
    graded = memo.graded
    entries: list[MoveAnalysis] = []
    for step in run.steps:
        entry = graded.get((start, step))
        if entry is None:
            entry = _graded(tables, search, step, scale)
            graded.put((start, step), entry)
        entries.append(entry)
    best_possible = search.best(start, 0)
    return Analysis(
        hindsight=True,
        best_possible=best_possible,
        best_line=search.best_line(start),
        could_be_better=tuple(e.index for e in entries if e.hindsight_cost),
        total_cost=run.score - best_possible,
        moves=tuple(entries),
    )


def _graded(tables: Tables, hindsight: Hindsight | None, step: Step, scale: float) -> MoveAnalysis:
    """One roll of a run measured: against the expected-score optimum (its label on
    ``scale``, the expected score of the whole turn) and, given a ``hindsight`` search
    of the dice, against hindsight."""
    position, roll_index, dice_count = step.before, step.index, step.dice
    after = step.after
    expected_after = tables.expected[after] if step.closed else float(tables.score[position])
    best_child = tables.best_kid(position, step.roll, dice_count)
    best_expected = (
        tables.expected[best_child] if best_child is not None else float(tables.score[position])
    )
    dice_loss = max(tables.expected_by_dice[dice_count][position] - tables.expected[position], 0.0)
    loss = max(expected_after - best_expected, 0.0) + dice_loss
    hindsight_best: Move | None = None
    hindsight_cost: int | None = None
    if hindsight is not None:
        best_after = (
            hindsight.best(after, roll_index + 1) if step.closed else tables.score[position]
        )
        hindsight_dice, hindsight_child = hindsight.choice(position, roll_index)
        hindsight_best = Move(
            tiles=tiles_of(position ^ hindsight_child) if hindsight_child is not None else (),
            dice=hindsight_dice,
        )
        hindsight_cost = best_after - hindsight.best(position, roll_index)
    return MoveAnalysis(
        index=roll_index,
        roll=step.roll,
        dice_used=dice_count,
        chosen=tiles_of(step.closed),
        best=tiles_of(position ^ best_child) if best_child is not None else (),
        hindsight_best=hindsight_best,
        hindsight_cost=hindsight_cost,
        expected_score=expected_after,
        best_expected_score=best_expected,
        dice_loss=dice_loss,
        expected_loss=loss,
        label=label_for(loss, scale),
    )


def report(
    rules: Rules,
    dice: Sequence[Roll],
    moves: Sequence[Move],
    sequence_id: str,
    *,
    hindsight: bool = True,
) -> Report:
    """Verify ``moves`` on ``dice``, analyse the run (with ``hindsight`` only on dice the
    service chose) and play the computers on the same dice.

    Raises the ``IllegalRun`` of the first bad move.
    """
    tables = solve(rules)
    run = replay(rules, dice, moves)
    return Report(
        run=run,
        analysis=analyse(tables, run, hindsight=hindsight),
        computer=computers_on(rules, run.dice, sequence_id),
    )
