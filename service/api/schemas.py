"""Request and response shapes shared by several resources (moves, rules, run results)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import date, datetime
from functools import cache, lru_cache
from typing import Annotated, Any, Final, Generic, Literal, TypeVar

import msgspec
from msgspec import Meta

from service.calendar import StreakRuns, current_streak
from service.i18n import LOCALISED, N_, Language, _, current, speaking
from service.rules.analysis import COMPUTER_RUNS_KEPT, Analysis, Label, MoveAnalysis, Report
from service.rules.computers import ComputerRun
from service.rules.replay import Move
from service.rules.ruleset import MoveRule, OneDie, Roll, Rules, Scoring, tiles_of
from service.store.ranks import Rank

TileIn = Annotated[int, Meta(ge=1, le=12, description="A tile, 1..12.")]
Die = Annotated[int, Meta(ge=1, le=6)]
RollIn = tuple[Die, Die]
DiceIn = Annotated[list[RollIn], Meta(min_length=3, max_length=13, description="tiles + 1 rolls.")]
OpenIn = Annotated[list[TileIn], Meta(max_length=12, description="The open tiles.")]


class MoveObject(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A move with its dice stated: ``{"dice": 1, "tiles": [4]}``."""

    tiles: Annotated[list[TileIn], Meta(max_length=12)]
    dice: Literal[1, 2] = 2


class OneDieMove(msgspec.Struct, frozen=True):
    """A move on one die: ``{"tiles": [4], "dice": 1}``."""

    tiles: list[int]
    dice: Literal[1]


MoveIn = Annotated[list[TileIn], Meta(max_length=12)] | MoveObject
MovesIn = Annotated[list[MoveIn], Meta(max_length=13, description="One move per played roll.")]
MoveOut = list[int] | OneDieMove


def move_in(raw: MoveIn) -> Move:
    if isinstance(raw, MoveObject):
        return Move(tiles=tuple(raw.tiles), dice=raw.dice)
    return Move(tiles=tuple(raw))


def move_out(move: Move) -> MoveOut:
    """Two dice: the list of tiles; one die: ``{"dice": 1, "tiles": [...]}``."""
    if move.dice == 1:
        return OneDieMove(tiles=sorted(move.tiles), dice=1)
    return sorted(move.tiles)


class RulesOut(msgspec.Struct, frozen=True, omit_defaults=True):
    tiles: int
    one_die: OneDie
    move_rule: MoveRule
    scoring: Scoring
    start: list[int] | None = None


@lru_cache(maxsize=256)
def rules_out(rules: Rules) -> RulesOut:
    return RulesOut(
        tiles=rules.tiles,
        one_die=rules.one_die,
        move_rule=rules.move_rule,
        scoring=rules.scoring,
        start=sorted(rules.start) if rules.start is not None else None,
    )


LABEL_WORDS: Final[dict[Label, str]] = {
    "best": N_("best"),
    "inaccuracy": N_("inaccuracy"),
    "mistake": N_("mistake"),
    "blunder": N_("blunder"),
}


class MoveAnalysisOut(msgspec.Struct, frozen=True):
    index: int
    roll: Roll
    dice_used: int
    chosen: list[int]
    best: list[int]
    hindsight_best: MoveOut
    hindsight_cost: int
    expected_score: float
    best_expected_score: float
    dice_loss: float
    expected_loss: float
    label: Label
    label_text: Annotated[str, Meta(description="The label in words. " + LOCALISED)]


class AnalysisOut(msgspec.Struct, frozen=True):
    best_possible: int
    best_line: list[MoveOut]
    could_be_better: list[int]
    total_cost: int
    moves: list[MoveAnalysisOut]


class ComputerOut(msgspec.Struct, frozen=True):
    score: int
    shut: bool
    moves: list[MoveOut]


class Computers(msgspec.Struct, frozen=True):
    easy: ComputerOut
    medium: ComputerOut
    hard: ComputerOut


class RunResult(msgspec.Struct, frozen=True):
    """A verified run, measured against the exact solution for its dice."""

    sequence: str | None
    rules: RulesOut
    dice: list[Roll]
    moves: list[MoveOut]
    rolls_used: int
    open: list[int]
    score: int
    shut: bool
    analysis: AnalysisOut
    computer: Computers


class StoredRunResult(RunResult, frozen=True, kw_only=True):
    """A run kept by the service: a Daily Dice or Friend Box run."""

    run_id: str
    official: Literal[True]


@cache
def label_words(language: Language) -> dict[Label, str]:
    """The labels in words, in a language."""
    with speaking(language):
        return {label: _(words) for label, words in LABEL_WORDS.items()}


Kept = TypeVar("Kept")
Shown = TypeVar("Shown")


class ShownOnce(Generic[Kept, Shown]):
    """An answer's section made of an object the rules core keeps and hands to every run
    on a sequence again (a computer player's run, a graded roll, a best line): made once
    per object (and ``variant``, e.g. a language) and kept beside it, by identity (the
    object held, so that its id stays its own). The ``kept`` most recently shown stay."""

    def __init__(self, show: Callable[[Kept, Any], Shown], kept: int) -> None:
        self._show = show
        self._kept = kept
        self._shown: OrderedDict[tuple[int, Hashable], tuple[Kept, Shown]] = OrderedDict()

    def __call__(self, obj: Kept, variant: Hashable = None) -> Shown:
        key = (id(obj), variant)
        found = self._shown.get(key)
        if found is not None and found[0] is obj:
            self._shown.move_to_end(key)
            return found[1]
        shown = self._show(obj, variant)
        self._shown[key] = (obj, shown)
        if len(self._shown) > self._kept:
            self._shown.popitem(last=False)
        return shown


def _move_analysis_out(m: MoveAnalysis, language: Language) -> MoveAnalysisOut:
    return MoveAnalysisOut(
        index=m.index,
        roll=m.roll,
        dice_used=m.dice_used,
        chosen=list(m.chosen),
        best=list(m.best),
        hindsight_best=move_out(m.hindsight_best),
        hindsight_cost=m.hindsight_cost,
        expected_score=m.expected_score,
        best_expected_score=m.best_expected_score,
        dice_loss=m.dice_loss,
        expected_loss=m.expected_loss,
        label=m.label,
        label_text=label_words(language)[m.label],
    )


# The core grades a roll once a sequence (``GRADED_KEPT`` a sequence) and keeps a
# sequence's best line: most runs are shown from sections made already.
_graded_shown = ShownOnce(_move_analysis_out, kept=8192)
_line_shown: ShownOnce[tuple[Move, ...], list[MoveOut]] = ShownOnce(
    lambda line, _: [move_out(m) for m in line], kept=1024
)


def _analysis_out(analysis: Analysis) -> AnalysisOut:
    language = current()
    return AnalysisOut(
        best_possible=analysis.best_possible,
        best_line=_line_shown(analysis.best_line),
        could_be_better=list(analysis.could_be_better),
        total_cost=analysis.total_cost,
        moves=[_graded_shown(m, language) for m in analysis.moves],
    )


def _computers_out(runs: dict[str, ComputerRun], _: object) -> Computers:
    return Computers(
        **{
            name: ComputerOut(score=c.score, shut=c.shut, moves=[move_out(m) for m in c.moves])
            for name, c in runs.items()
        }
    )


computers_out: ShownOnce[dict[str, ComputerRun], Computers] = ShownOnce(
    _computers_out, kept=COMPUTER_RUNS_KEPT
)
"""The computer players' section of an answer. The core keeps their runs per sequence
(``computers_on``): every run on the sequence hands the same dict."""


def run_result(report: Report, sequence: str | None) -> RunResult:
    run = report.run
    return RunResult(
        sequence=sequence,
        rules=rules_out(run.rules),
        dice=list(run.dice),
        moves=[move_out(m) for m in run.moves],
        rolls_used=run.rolls_used,
        open=list(tiles_of(run.open_tiles)),
        score=run.score,
        shut=run.shut,
        analysis=_analysis_out(report.analysis),
        computer=computers_out(report.computer),
    )


class Streak(msgspec.Struct, frozen=True):
    """Consecutive daily dates with an official run."""

    current: int
    best: int
    last_played: date | None
    played_today: bool


def streak_out(
    runs: StreakRuns | None, played_today: bool, now: datetime, time_zone: str
) -> Streak:
    if runs is None:
        return Streak(current=0, best=0, last_played=None, played_today=False)
    return Streak(
        current=current_streak(runs, now, time_zone),
        best=runs.best,
        last_played=runs.last_played,
        played_today=played_today,
    )


class DailyRunResult(StoredRunResult, frozen=True, kw_only=True):
    """An official daily run as submitted: the run result, the streak after it and its
    rank as it stood then."""

    streak: Streak
    rank: Rank


class OfficialRunResult(StoredRunResult, frozen=True, kw_only=True):
    """A player's official daily run, with its rank as it stands now."""

    rank: Rank
