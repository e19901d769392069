"""Replay and verification: a submitted move list against the dice of a sequence.

A run is accepted only if it is exactly a legal turn: each move closes distinct open
tiles that the rules allow for its roll in its position (``Rules.legal_sets``), no
playable roll is skipped, and the run stops exactly where the turn ends. An empty move
records an unplayable roll (``{"dice": 1, "tiles": []}`` after choosing one die); it
ends the turn. A run that stops is checked against the next roll on the dice the rules
have the player roll there: two, or one die where the rules make it a must.

>>> dice = ((3, 4), (6, 6), (1, 1), (1, 2), (2, 3), (5, 5), (6, 6), (1, 1), (2, 2), (3, 3))
>>> run = replay(Rules(), dice, [Move(tiles=(7,)), Move(tiles=(3, 9)), Move(tiles=(2,))])
>>> run.score, run.shut, run.rolls_used, tiles_of(run.open_tiles)
(24, False, 4, (1, 4, 5, 6, 8))
>>> replay(Rules(), dice, [Move(tiles=(7,))])
Traceback (most recent call last):
...
service.rules.errors.RunEndsEarly: Move 2 (roll 6 + 6 = 12): the run stops here, \
but this roll can still be played (possible: 9+3, 9+2+1, 8+4, ...)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import msgspec

from service.rules.errors import (
    IllegalRun,
    MalformedMove,
    MoveAfterEnd,
    MoveRuleViolation,
    NotATile,
    OneDieNotAllowed,
    PlayableRollSkipped,
    RunEndsEarly,
    TileNotOpen,
    TileRepeated,
    TwoDiceNotAllowed,
    WrongTotal,
    describe_sets,
)
from service.rules.ruleset import OpenTiles, Roll, Rules, mask_of, roll_total, tiles_of
from service.rules.words import N_


class Move(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One played roll: the tiles closed, and whether one die or two were rolled."""

    tiles: tuple[int, ...]
    dice: Annotated[int, msgspec.Meta(ge=1, le=2, description="Dice rolled: 1 or 2.")] = 2

    @property
    def closed(self) -> OpenTiles:
        return mask_of(self.tiles)

    def __str__(self) -> str:
        text = "+".join(map(str, sorted(self.tiles, reverse=True))) or "-"
        return f"1d:{text}" if self.dice == 1 else text

    def as_json(self) -> list[int] | dict[str, object]:
        """The move as a run writes it (PRODUCT.md §4): its tiles ascending, or after
        one die ``{"tiles": [...], "dice": 1}``.

        >>> Move(tiles=(8, 3)).as_json(), Move(tiles=(), dice=1).as_json()
        ([3, 8], {'tiles': [], 'dice': 1})
        """
        tiles = sorted(self.tiles)
        return {"tiles": tiles, "dice": 1} if self.dice == 1 else tiles

    @classmethod
    def from_json(cls, value: list[int] | dict[str, Any]) -> Move:
        """The move ``as_json`` wrote (a stored run's: not checked again).

        >>> Move.from_json([3, 8]), Move.from_json({"tiles": [], "dice": 1})
        (Move(tiles=(3, 8), dice=2), Move(tiles=(), dice=1))
        """
        if isinstance(value, dict):
            return cls(tiles=tuple(value["tiles"]), dice=value["dice"])
        return cls(tiles=tuple(value))


class Step(msgspec.Struct, frozen=True):
    """One roll of a replayed turn: where it was played from and what it closed."""

    index: int
    roll: Roll
    dice: int
    before: OpenTiles
    closed: OpenTiles

    @property
    def after(self) -> OpenTiles:
        return self.before ^ self.closed


class Run(msgspec.Struct, frozen=True):
    """A verified turn. ``steps`` has one entry per roll used, the final unplayable
    roll included (closing nothing); ``moves`` is the canonical form of the run."""

    rules: Rules
    dice: tuple[Roll, ...]
    moves: tuple[Move, ...]
    steps: tuple[Step, ...]
    open_tiles: OpenTiles
    score: int
    shut: bool

    @property
    def rolls_used(self) -> int:
        return len(self.steps)


def replay(rules: Rules, dice: Sequence[Roll], moves: Sequence[Move]) -> Run:
    """Verify ``moves`` on ``dice``; raise the ``IllegalRun`` of the first bad move."""
    position = rules.start_position
    steps: list[Step] = []
    canonical: list[Move] = []
    ended = False
    for index, move in enumerate(moves):
        roll = dice[index] if index < len(dice) else None
        if ended or position == 0 or roll is None:
            raise MoveAfterEnd(index, roll, move.dice, N_("the turn has already ended"))
        closed = _check_move(rules, position, index, roll, move)
        steps.append(Step(index, roll, move.dice, position, closed))
        position ^= closed
        if closed == 0:
            ended = True
            if move.dice == 1:
                canonical.append(Move(tiles=(), dice=1))
        else:
            canonical.append(Move(tiles=tiles_of(closed), dice=move.dice))
    if not ended and position:
        index = len(moves)
        roll = dice[index]
        count = rules.dice_choices(position)[0]  # two, or one die where it is a must
        options = rules.legal_sets(position, roll, count)
        if options:
            raise RunEndsEarly(index, roll, options, count)
        steps.append(Step(index, roll, count, position, 0))
        if count == 1:  # as a turn ended on one die is always written
            canonical.append(Move(tiles=(), dice=1))
    return Run(
        rules=rules,
        dice=tuple(dice),
        moves=tuple(canonical),
        steps=tuple(steps),
        open_tiles=position,
        score=rules.score(position),
        shut=position == 0,
    )


def _check_move(rules: Rules, position: OpenTiles, index: int, roll: Roll, move: Move) -> OpenTiles:
    """The tiles this move closes, if it is legal here."""
    dice = move.dice
    choices = rules.dice_choices(position)
    if dice in choices:
        # A legal set of distinct tiles (a set is open tiles of the box): the checks
        # below would all pass, so it is taken at once; anything else meets them in order
        # (a tile off the box never reaches mask_of: 10**9 would make a huge number).
        tiles = move.tiles
        if tiles and min(tiles) >= 1 and max(tiles) <= rules.tiles:
            closed = mask_of(tiles)
            distinct_and_open = closed.bit_count() == len(tiles) and closed & position == closed
            if distinct_and_open and rules.is_legal(position, roll, dice, closed):
                return closed
    if dice not in (1, 2):
        raise MalformedMove(
            index, roll, 2, N_("a move rolls one die or two, not {count}"), count=dice
        )
    if dice == 1 and not rules.one_die_allowed(position):
        raise OneDieNotAllowed(index, roll, dice, rules.one_die_variant.refusal)
    if dice not in choices:
        raise TwoDiceNotAllowed(index, roll, dice, rules.one_die_choice_variant.refusal)
    options = rules.legal_sets(position, roll, dice)
    if not options and move.tiles:
        raise _unplayable(rules, position, index, roll, dice)
    for tile in move.tiles:
        if not 1 <= tile <= rules.tiles:
            raise NotATile(
                index,
                roll,
                dice,
                N_("{tile} is not a tile (the box has 1..{tiles})"),
                tile=tile,
                tiles=rules.tiles,
            )
    repeated = sorted({t for t in move.tiles if move.tiles.count(t) > 1})
    if repeated:
        raise TileRepeated(index, roll, dice, N_("tile {tile} is listed twice"), tile=repeated[0])
    closed = mask_of(move.tiles)
    if closed & ~position:
        shut = tiles_of(closed & ~position)[0]
        raise TileNotOpen(index, roll, dice, N_("tile {tile} is already closed"), tile=shut)
    if closed == 0:
        if options:
            raise PlayableRollSkipped(index, roll, dice, options)
        return 0
    if closed in options:
        return closed
    raise _rule_error(rules, position, index, roll, dice, closed)


def _unplayable(rules: Rules, position: OpenTiles, index: int, roll: Roll, dice: int) -> IllegalRun:
    """Tiles closed on a roll that closes nothing here, the turn having ended on it: why."""
    if rules.stops(roll, dice):
        return MoveAfterEnd(
            index,
            roll,
            dice,
            N_("a roll of {total} ends the turn before it is played"),
            total=roll_total(roll, dice),
        )
    starting = rules.first_must_close is not None and position == rules.start_position
    if starting and rules.roll_moves(roll, dice).open_in(position):
        return MoveAfterEnd(
            index,
            roll,
            dice,
            N_("the first move must close tile {tile}, and this roll cannot, so the turn ended"),
            tile=rules.first_must_close,
        )
    return MoveAfterEnd(
        index, roll, dice, N_("this roll cannot be played, so the turn ended on it")
    )


def _rule_error(
    rules: Rules, position: OpenTiles, index: int, roll: Roll, dice: int, closed: OpenTiles
) -> IllegalRun:
    """Open, distinct tiles of the box that the rules do not allow here: why not."""
    moves = rules.roll_moves(roll, dice)
    tiles = tiles_of(closed)
    if closed in moves.sets:  # a set of the roll, refused in this position
        refused = moves.refusal_of(closed)
        if refused and refused & position == refused:
            return MoveRuleViolation(
                index,
                roll,
                dice,
                rules.move_variant.refusal,
                other=tiles_of(refused ^ closed)[0],
                both=describe_sets((refused,)),
            )
        assert rules.first_must_close is not None and position == rules.start_position
        return MoveRuleViolation(
            index,
            roll,
            dice,
            N_("the first move must close tile {tile} (possible: {possible})"),
            tile=rules.first_must_close,
            possible=describe_sets(rules.legal_sets(position, roll, dice)),
        )
    d1, d2 = roll if dice == 2 else (roll[0], 0)
    readings = rules.total_variant.readings(d1, d2)
    if rules.move_variant.blames_total(tiles, d1, d2) and sum(tiles) not in readings:
        reason = (
            N_("{tiles} adds up to {sum}, not {total}")
            if len(readings) == 1
            else N_("{tiles} adds up to {sum}, not {total} or {difference}")
        )
        return WrongTotal(
            index,
            roll,
            dice,
            reason,
            tiles=" + ".join(map(str, tiles)),
            sum=sum(tiles),
            **dict(zip(("total", "difference"), readings, strict=False)),
        )
    allowed = moves.sets
    return MoveRuleViolation(
        index,
        roll,
        dice,
        N_("{rule} On this roll that allows: {allowed}"),
        rule=rules.describe_move_rule(),
        allowed=describe_sets(allowed) or N_("nothing"),
    )
