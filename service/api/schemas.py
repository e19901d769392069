"""Request and response shapes shared by several resources (moves, rules, run results)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Final, Literal

import msgspec
from litestar.openapi.spec import Schema
from litestar.params import QueryParameter
from msgspec import Meta

from service.caching import IdentityMemo, cached
from service.rules.analysis import COMPUTER_RUNS_KEPT, Analysis, Label, MoveAnalysis, Report
from service.rules.computers import ComputerRun
from service.rules.replay import Move
from service.rules.ruleset import (
    FIRST_MUST_CLOSE,
    START,
    STOP_ON_TOTAL,
    MoveRuleField,
    OneDieChoiceField,
    OneDieField,
    Roll,
    Rules,
    ScoringField,
    TileCount,
    TotalField,
    tiles_of,
)
from service.store.ranks import Rank
from service.support import codes
from service.support.calendar import ISO_DATE
from service.support.i18n import LANGUAGES, LOCALISED, N_, Language, _, current, speaking
from service.usecases.players import StreakNow

TileIn = Annotated[int, Meta(ge=1, le=12, description="A tile, 1..12.")]
Die = Annotated[int, Meta(ge=1, le=6)]
RollIn = tuple[Die, Die]
DiceIn = Annotated[
    list[RollIn],
    Meta(
        min_length=3,
        max_length=13,
        description="The rolls in order, [d1, d2] each (1..6): exactly tiles + 1 of them.",
    ),
]
OpenIn = Annotated[list[TileIn], Meta(max_length=12, description="The open tiles.")]
RulesIn = Annotated[Rules, Meta(description="The rules; left out: the standard rules.")]


def said(json_schema: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema keywords as Litestar's ``schema_extra`` takes them (``minLength`` as
    ``min_length``): said in the OpenAPI document, not checked by the framework, for a
    parameter that its handler reads and refuses with a problem of its own."""
    names = {field.replace("_", ""): field for field in Schema.__dataclass_fields__}
    return {names[keyword.lower()]: value for keyword, value in json_schema.items()}


DATE_TEXT: Final = {"pattern": f"^{ISO_DATE}$"}
"""A date a client writes, with ``format: date``: what ``calendar.named_date`` reads."""
CODE_TEXT: Final = said(codes.text_schema())
"""A box, friend or series code as people type it: what ``codes.parse`` reads."""

# A list of dates paged back, newest first (the history, the practice runs).
BeforeQuery = Annotated[
    date | None,
    QueryParameter(description="Only dates before this one (YYYY-MM-DD).", schema_extra=DATE_TEXT),
]
LimitQuery = Annotated[int, QueryParameter(ge=1, le=100, description="Page size.")]
OffsetQuery = Annotated[
    int, QueryParameter(ge=0, le=10**9, description="How many of the list to pass over.")
]
PAGE_SIZE: Final = 30


class MoveObject(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A move with its dice stated: ``{"dice": 1, "tiles": [4]}``."""

    tiles: Annotated[
        list[TileIn],
        Meta(
            max_length=12,
            description="The tiles the move closes, each once; empty: the roll closes nothing "
            "(a one-die roll that can't be played, which ends the turn).",
        ),
    ]
    dice: Annotated[
        Literal[1, 2],
        Meta(
            description="The dice rolled: 2, or 1 where the rules allow one die (the roll's "
            "first die is the one)."
        ),
    ] = 2


class OneDieMove(msgspec.Struct, frozen=True):
    """A move on one die: ``{"tiles": [4], "dice": 1}``."""

    tiles: Annotated[
        list[int],
        Meta(
            description="The tiles closed on the one die (the roll's first), ascending; empty: "
            "it closed nothing and the turn ended."
        ),
    ]
    dice: Annotated[
        Literal[1], Meta(description="Always 1 (a move on two dice is a plain list of tiles).")
    ]


MoveIn = Annotated[list[TileIn], Meta(max_length=12)] | MoveObject
MovesIn = Annotated[list[MoveIn], Meta(max_length=13, description="One move per played roll.")]
MoveOut = list[int] | OneDieMove


def move_in(raw: MoveIn) -> Move:
    if isinstance(raw, MoveObject):
        return Move(tiles=tuple(raw.tiles), dice=raw.dice)
    return Move(tiles=tuple(raw))


def move_out(move: Move) -> MoveOut:
    """``Move.as_json`` as the answer's typed struct (a test holds the two to the same
    bytes)."""
    if move.dice == 1:
        return OneDieMove(tiles=sorted(move.tiles), dice=1)
    return sorted(move.tiles)


class RulesOut(msgspec.Struct, frozen=True, omit_defaults=True):
    """The rules of a sequence or run, every field given (``start`` only when not all,
    ``first_must_close`` and ``stop_on_total`` only when set)."""

    tiles: TileCount
    one_die: OneDieField
    move_rule: MoveRuleField
    scoring: ScoringField
    total: TotalField
    one_die_choice: OneDieChoiceField
    start: Annotated[list[int] | None, Meta(description=START)] = None
    first_must_close: Annotated[int | None, Meta(description=FIRST_MUST_CLOSE)] = None
    stop_on_total: Annotated[int | None, Meta(description=STOP_ON_TOTAL)] = None


@cached("rules_out", 256)  # the variants played lately
def rules_out(rules: Rules) -> RulesOut:
    """The rules as answers show them: every field, the start's tiles ascending."""
    out = msgspec.convert(rules, RulesOut, from_attributes=True)
    return out if rules.start is None else msgspec.structs.replace(out, start=sorted(rules.start))


LABEL_WORDS: Final[dict[Label, str]] = {
    "best": N_("best"),
    "inaccuracy": N_("inaccuracy"),
    "mistake": N_("mistake"),
    "blunder": N_("blunder"),
}


# Words of the answers' fields, said the same wherever a field of that name is.
ROLL: Final = "A roll of two dice, [d1, d2], each 1..6 (with one die, d1 is the die)."
DICE: Final = (
    "The rolls of the sequence in order, [d1, d2] each (1..6): tiles + 1 of them, more than "
    "any turn uses. Every player of the sequence gets these same rolls."
)
MOVES: Final = (
    "One move per roll played, in order: a list of the tiles closed (two dice), or "
    '`{"dice": 1, "tiles": [...]}` (one die); tiles ascending.'
)
SCORE: Final = "The final score under the rules' scoring: lower is better, 0 is a shut box."
SHUT: Final = "Whether every tile was closed (the score is 0)."
NAME: Final = "The player's name; null: the player has not given one."
NO_HINDSIGHT: Final = "Null when `hindsight` is false (dice the client brought)."


class MoveAnalysisOut(msgspec.Struct, frozen=True):
    """One roll of a run, measured against the exact solutions."""

    index: Annotated[
        int,
        Meta(
            description="The roll's index in `dice`, 0-based, which is its move's index in "
            "`moves` (a roll that ended the turn unplayed has no move there, or a one-die "
            "move closing nothing)."
        ),
    ]
    roll: Annotated[Roll, Meta(description=ROLL)]
    dice_used: Annotated[
        int,
        Meta(description="The dice rolled: 2, or 1 where the rules allowed one die and it was."),
    ]
    chosen: Annotated[
        list[int],
        Meta(description="The tiles the player closed, ascending; empty: the roll closed none."),
    ]
    best: Annotated[
        list[int],
        Meta(
            description="The tiles the expected-score optimum (Hard) closes on this roll from "
            "the same position, with the same dice, ascending; empty: the roll closes none."
        ),
    ]
    hindsight_best: Annotated[
        MoveOut | None,
        Meta(
            description="The best move knowing the rolls to come: this roll's move of a line "
            "reaching the lowest score still possible on these dice (it may roll another "
            "number of dice), as a move of `moves`. " + NO_HINDSIGHT
        ),
    ]
    hindsight_cost: Annotated[
        int | None,
        Meta(
            description="What the move cost with hindsight, 0 or more: the lowest final score "
            "reachable on these dice after it minus the lowest reachable before it. A run's "
            "costs add up to `total_cost`. " + NO_HINDSIGHT
        ),
    ]
    expected_score: Annotated[
        float,
        Meta(
            description="The expected final score after the move under the expected-score "
            "optimum, not knowing the rolls to come (after a roll that closed nothing: the "
            "final score)."
        ),
    ]
    best_expected_score: Annotated[
        float,
        Meta(
            description="The same after the best set for this roll (`best`): the lowest "
            "expected final score the roll allows with the dice used."
        ),
    ]
    dice_loss: Annotated[
        float,
        Meta(
            description="What rolling this number of dice cost in expected final score, "
            "before the roll was seen: 0 when it was the better choice, or the only one."
        ),
    ]
    expected_loss: Annotated[
        float,
        Meta(
            description="The move's loss against the expected-score optimum, in points of "
            "expected final score, 0 or more: `expected_score - best_expected_score` plus "
            "`dice_loss`. It uses no later roll."
        ),
    ]
    label: Annotated[
        Label,
        Meta(
            description="`expected_loss` graded against the expected score of the whole turn "
            "under optimal play (11.16 points with the standard rules): `best` no loss, "
            "`inaccuracy` up to 5% of it, `mistake` up to 15%, `blunder` beyond."
        ),
    ]
    label_text: Annotated[str, Meta(description="The label in words. " + LOCALISED)]


class AnalysisOut(msgspec.Struct, frozen=True):
    """A run against the exact solution for its dice: hindsight and the expected score."""

    hindsight: Annotated[
        bool,
        Meta(
            description="Whether the figures that know the later rolls are given: true for "
            "dice the service chose (a Daily Dice, a box, a series round, a practice run, a "
            "deal); false for dice a client brought to `POST /v1/analyze`, whose hindsight "
            "figures are null (PRODUCT.md §6b)."
        ),
    ]
    best_possible: Annotated[
        int | None,
        Meta(
            description="The lowest final score any line of choices reaches on these dice "
            "(knowing every roll), under the run's scoring. " + NO_HINDSIGHT
        ),
    ]
    best_line: Annotated[
        list[MoveOut] | None,
        Meta(description="One line of moves that reaches `best_possible`. " + NO_HINDSIGHT),
    ]
    could_be_better: Annotated[
        list[int] | None,
        Meta(
            description="The `index` of each roll whose `hindsight_cost` is above 0, in order. "
            + NO_HINDSIGHT
        ),
    ]
    total_cost: Annotated[
        int | None,
        Meta(
            description="`score - best_possible`, 0 or more: the sum of the moves' "
            "`hindsight_cost`. " + NO_HINDSIGHT
        ),
    ]
    moves: Annotated[
        list[MoveAnalysisOut],
        Meta(description="One entry per roll used, in order (an unplayable last roll too)."),
    ]


class ComputerOut(msgspec.Struct, frozen=True):
    """A computer player's turn on the run's dice and rules."""

    score: Annotated[int, Meta(description=SCORE)]
    shut: Annotated[bool, Meta(description=SHUT)]
    moves: Annotated[list[MoveOut], Meta(description=MOVES)]


class Computers(msgspec.Struct, frozen=True):
    """The three computer players on the same dice."""

    easy: Annotated[
        ComputerOut,
        Meta(
            description="Easy: a uniformly random legal move each roll, seeded from the "
            "sequence (everyone on it meets the same Easy)."
        ),
    ]
    medium: Annotated[
        ComputerOut,
        Meta(description="Medium: closes the highest tiles it can (sets compared high to low)."),
    ]
    hard: Annotated[
        ComputerOut,
        Meta(description="Hard: the expected-score optimum (the lowest expected final score)."),
    ]


class RunResult(msgspec.Struct, frozen=True):
    """A verified run, measured against the exact solution for its dice."""

    sequence: Annotated[
        str | None,
        Meta(
            description="The dice sequence's id: `daily/YYYY-MM-DD`, `box/<code>` or "
            "`series/<code>/<round>`; null: dice the client sent (`POST /v1/analyze`)."
        ),
    ]
    rules: Annotated[RulesOut, Meta(description="The rules the run was played under.")]
    dice: Annotated[list[Roll], Meta(description=DICE)]
    moves: Annotated[list[MoveOut], Meta(description="The run's moves as verified. " + MOVES)]
    rolls_used: Annotated[
        int,
        Meta(
            description="The rolls the turn used: its moves, and the roll that ended it when "
            "that one could not be played."
        ),
    ]
    open: Annotated[
        list[int], Meta(description="The tiles left open, ascending; empty: the box is shut.")
    ]
    score: Annotated[int, Meta(description=SCORE)]
    shut: Annotated[bool, Meta(description=SHUT)]
    analysis: Annotated[AnalysisOut, Meta(description="What each choice was worth.")]
    computer: Annotated[Computers, Meta(description="Easy, Medium and Hard on the same dice.")]


class StoredRunResult(RunResult, frozen=True, kw_only=True):
    """A run kept by the service: a Daily Dice or Friend Box run."""

    run_id: Annotated[str, Meta(description="The id of the stored run (a UUID).")]
    official: Annotated[
        Literal[True],
        Meta(description="Always true: the run is stored as the one that stands, never replaced."),
    ]


@cached("label_words", len(LANGUAGES))
def label_words(language: Language) -> dict[Label, str]:
    """The labels in words, in a language."""
    with speaking(language):
        return {label: _(words) for label, words in LABEL_WORDS.items()}


def _move_analysis_out(m: MoveAnalysis, language: Language) -> MoveAnalysisOut:
    return MoveAnalysisOut(
        index=m.index,
        roll=m.roll,
        dice_used=m.dice_used,
        chosen=list(m.chosen),
        best=list(m.best),
        hindsight_best=None if m.hindsight_best is None else move_out(m.hindsight_best),
        hindsight_cost=m.hindsight_cost,
        expected_score=m.expected_score,
        best_expected_score=m.best_expected_score,
        dice_loss=m.dice_loss,
        expected_loss=m.expected_loss,
        label=m.label,
        label_text=label_words(language)[m.label],
    )


# An answer's sections made of objects the rules core keeps and hands to every run on a
# sequence again: made once per object (and language), by identity (``IdentityMemo``).
# The core grades a roll once a sequence (``analysis.GRADED_KEPT`` graded rolls in all)
# and keeps a sequence's best line: most runs are shown from sections made already.
_graded_shown: IdentityMemo[MoveAnalysis, Language, MoveAnalysisOut] = IdentityMemo(
    "graded_rolls_shown", 8192, _move_analysis_out
)
_line_shown: IdentityMemo[tuple[Move, ...], None, list[MoveOut]] = IdentityMemo(
    "best_lines_shown", 1024, lambda line, _: [move_out(m) for m in line]
)


def _analysis_out(analysis: Analysis) -> AnalysisOut:
    language = current()
    line, better = analysis.best_line, analysis.could_be_better
    return AnalysisOut(
        hindsight=analysis.hindsight,
        best_possible=analysis.best_possible,
        best_line=None if line is None else _line_shown(line, None),
        could_be_better=None if better is None else list(better),
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


computers_out: IdentityMemo[dict[str, ComputerRun], None, Computers] = IdentityMemo(
    "computer_runs_shown", COMPUTER_RUNS_KEPT, _computers_out
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
        computer=computers_out(report.computer, None),
    )


class WeeklyStreak(msgspec.Struct, frozen=True):
    """Consecutive weeks (Monday to Sunday in the player's time zone) with an official run."""

    current: Annotated[
        int,
        Meta(
            description="Consecutive weeks with an official run, counted back from the week "
            "of the latest played date while the week after it has not closed; else 0."
        ),
    ]
    best: Annotated[int, Meta(description="The longest weekly streak ever, in weeks.")]


class Streak(msgspec.Struct, frozen=True):
    """Consecutive daily dates with an official run (PRODUCT.md §6): the same object
    wherever a streak appears."""

    current: Annotated[
        int,
        Meta(
            description="Consecutive dates played, counted back from the latest played one "
            "while every date closed for the player since is frozen (its next date still "
            "open, or the dates between covered by freezes); else 0. Frozen dates neither "
            "count nor break it."
        ),
    ]
    best: Annotated[int, Meta(description="The longest streak ever, in dates played.")]
    last_played: Annotated[
        date | None,
        Meta(description="The latest date with an official run; null: none yet."),
    ]
    played_today: Annotated[
        bool,
        Meta(description="Whether today's date (in the player's time zone) has an official run."),
    ]
    freezes: Annotated[
        int,
        Meta(
            ge=0,
            le=2,
            description="Streak freezes held now, 0..2: each 7th consecutive date played "
            "earns one (none beyond 2); a missed date spends one, in date order, and is "
            "shown frozen in the history.",
        ),
    ]
    weekly: Annotated[WeeklyStreak, Meta(description="The weekly streak.")]


def streak_out(streak: StreakNow) -> Streak:
    return Streak(
        current=streak.current,
        best=streak.best,
        last_played=streak.last_played,
        played_today=streak.played_today,
        freezes=streak.freezes,
        weekly=WeeklyStreak(current=streak.weekly_current, best=streak.weekly_best),
    )


class DailyRunResult(StoredRunResult, frozen=True, kw_only=True):
    """An official daily run as submitted: the run result, the streak after it and its
    rank as it stood then."""

    streak: Annotated[Streak, Meta(description="The player's streak, this run counted.")]
    rank: Annotated[
        Rank, Meta(description="The run among the date's official runs, as it stood then.")
    ]


class OfficialRunResult(StoredRunResult, frozen=True, kw_only=True):
    """A player's official daily run, with its rank as it stands now."""

    rank: Annotated[
        Rank, Meta(description="The run among the date's official runs, as it stands now.")
    ]
