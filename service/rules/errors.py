"""Why a submitted run is not a legal turn: one error type per cause.

Every error names the first offending move (``index``, 0-based as in the moves
array), the roll it was played on, and a sentence a player understands; ``code`` is
a stable slug clients can switch on. The sentence is kept as its template and values
too (``template``, ``values``), so that an edge can say it in the player's language.
"""

from __future__ import annotations

from typing import ClassVar

from service.rules.ruleset import OpenTiles, Roll, tiles_of
from service.rules.words import N_


def describe_roll(roll: Roll, dice: int) -> str:
    """A roll as a player reads it: ``3 + 4 = 7`` or ``one die: 3``."""
    if dice == 1:
        return f"one die: {roll[0]}"
    return f"{roll[0]} + {roll[1]} = {roll[0] + roll[1]}"


def describe_sets(sets: tuple[OpenTiles, ...]) -> str:
    """Sets of tiles as a player reads them: ``9, 8+1, 7+2``."""
    return ", ".join("+".join(map(str, reversed(tiles_of(s)))) for s in sets)


class IllegalRun(ValueError):
    """A run that is not exactly a legal turn on its dice."""

    code: ClassVar[str] = "illegal-run"

    def __init__(
        self, index: int, roll: Roll | None, dice: int, reason: str, **values: object
    ) -> None:
        self.index = index
        self.roll = roll
        self.dice = dice
        self.template = reason
        self.values = values
        self.reason = reason.format(**values)
        super().__init__(self.detail)

    @property
    def detail(self) -> str:
        where = f"Move {self.index + 1}"
        if self.roll is not None:
            where += f" (roll {describe_roll(self.roll, self.dice)})"
        return f"{where}: {self.reason}"


class MalformedMove(IllegalRun):
    """A move that is not one die's or two dice's."""

    code = "malformed-move"


class NotATile(IllegalRun):
    """A tile number outside the box (1..tiles)."""

    code = "not-a-tile"


class TileRepeated(IllegalRun):
    """A tile listed twice in one move."""

    code = "tile-repeated"


class TileNotOpen(IllegalRun):
    """A tile that an earlier move closed, or the start left shut."""

    code = "tile-not-open"


class WrongTotal(IllegalRun):
    """Tiles whose sum is not what the roll counts as (its total, or with
    ``total`` ``sum_or_difference`` its difference too)."""

    code = "wrong-total"


class MoveRuleViolation(IllegalRun):
    """Tiles adding up right that the move rule does not allow on this roll
    (one tile, at most two, a die's own tile...), or a first move not closing
    ``first_must_close``."""

    code = "move-rule-violation"


class OneDieNotAllowed(IllegalRun):
    """One die rolled where the rules or the open tiles do not allow it."""

    code = "one-die-not-allowed"


class TwoDiceNotAllowed(IllegalRun):
    """A move on two dice where the rules make one die a must (``one_die_choice``)."""

    code = "two-dice-not-allowed"


class PlayableRollSkipped(IllegalRun):
    """An empty move on a roll that could have been played."""

    code = "playable-roll-skipped"

    def __init__(self, index: int, roll: Roll, dice: int, options: tuple[OpenTiles, ...]) -> None:
        self.options = options
        super().__init__(
            index,
            roll,
            dice,
            N_("this roll can be played, so a set must be closed (possible: {possible})"),
            possible=describe_sets(options),
        )


class RunEndsEarly(IllegalRun):
    """The moves stop while the next roll was still playable."""

    code = "run-ends-early"

    def __init__(
        self, index: int, roll: Roll, options: tuple[OpenTiles, ...], dice: int = 2
    ) -> None:
        self.options = options
        super().__init__(
            index,
            roll,
            dice,
            N_("the run stops here, but this roll can still be played (possible: {possible})"),
            possible=describe_sets(options),
        )


class MoveAfterEnd(IllegalRun):
    """A move after the roll that ended the turn."""

    code = "move-after-end"
