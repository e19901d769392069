"""The rules object: which variant of Shut the Box is played and what it allows.

Positions are plain integers: bit ``t - 1`` is set while tile ``t`` is open
(``OpenTiles``), so the full standard box is ``0b111111111``. A roll is the pair
of dice ``(d1, d2)``; when a player rolls one die, only ``d1`` counts.

Each value of a rules field is a variant object with its hooks (``ONE_DIE_VARIANTS``,
``ONE_DIE_CHOICE_VARIANTS``, ``MOVE_VARIANTS``, ``TOTAL_VARIANTS``, ``SCORING_VARIANTS``):
the rest of the game asks the variant what it allows, how a set is made and how tiles
score, instead of testing the field's value.

What a roll allows is ``Rules.legal_sets``, the one function that says it: the move
rule's sets for what the roll counts as (its sum, or under ``sum_or_difference`` its sum
or its difference), none on a roll of ``stop_on_total``, those open in the position
(under ``die_or_sum_both``, one die's tile alone only while the other die's is not open),
and in the start position, under ``first_must_close``, only those closing that tile.

>>> rules = Rules()
>>> tiles_of(rules.start_position)
(1, 2, 3, 4, 5, 6, 7, 8, 9)
>>> [tiles_of(s) for s in rules.candidate_sets((3, 4), dice=2)]
[(7,), (1, 6), (2, 5), (3, 4), (1, 2, 4)]
>>> Rules(scoring="digits").score(mask_of((2, 10)))
210
>>> [tiles_of(s) for s in Rules(total="sum_or_difference").legal_sets(0b111, (5, 2), dice=2)]
[(3,), (1, 2)]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Final, Literal, NamedTuple, TypeAlias

import msgspec

from service.caching import cached
from service.rules.words import N_

OpenTiles: TypeAlias = int
"""A position: bit ``t - 1`` is set while tile ``t`` is open."""

Roll: TypeAlias = tuple[int, int]
"""The two dice of one roll of a sequence, each 1..6."""

OneDie: TypeAlias = Literal["never", "high_closed", "sum_le_6"]
OneDieChoice: TypeAlias = Literal["optional", "mandatory"]
MoveRule: TypeAlias = Literal["any", "dice_or_sum", "single", "die_or_sum", "die_or_sum_both"]
Total: TypeAlias = Literal["sum", "sum_or_difference"]
Scoring: TypeAlias = Literal["sum", "count", "digits"]

TileCount = Annotated[int, msgspec.Meta(ge=2, le=12, description="Tiles 1..N on the box.")]
Tile = Annotated[int, msgspec.Meta(ge=1, le=12)]

ALL_ROLLS: Final[tuple[Roll, ...]] = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, 7))
"""The 36 equally likely outcomes of two dice, in order (d1, d2)."""


def mask_of(tiles: tuple[int, ...] | list[int]) -> OpenTiles:
    """The position with exactly these tiles open."""
    mask = 0
    for tile in tiles:
        mask |= 1 << (tile - 1)
    return mask


def _tiles_of(mask: OpenTiles) -> tuple[int, ...]:
    return tuple(t + 1 for t in range(mask.bit_length()) if mask >> t & 1)


_TILES: Final = tuple(_tiles_of(mask) for mask in range(1 << 12))


def tiles_of(mask: OpenTiles) -> tuple[int, ...]:
    """The tiles of a position, ascending."""
    return _TILES[mask]


def medium_order(mask: OpenTiles) -> tuple[int, ...]:
    """Sort key that ranks a set of tiles by its tiles in descending order."""
    return tuple(reversed(tiles_of(mask)))


class RollMoves(NamedTuple):
    """What one roll allows in any position: the sets it lets a player close, open or
    not, in Medium's order (``sets``); and where a set is refused in some positions, for
    each set the tiles whose being all open refuses it (``refused_when_open``, 0: never;
    empty when no set ever is, as under every move rule but ``die_or_sum_both``)."""

    sets: tuple[OpenTiles, ...]
    refused_when_open: tuple[OpenTiles, ...] = ()

    def open_in(self, open_tiles: OpenTiles) -> tuple[OpenTiles, ...]:
        """The sets the roll allows in this position (before ``first_must_close``, which
        only ``Rules.legal_among`` knows): open, and not refused there."""
        if not self.refused_when_open:
            return tuple(s for s in self.sets if s & open_tiles == s)
        return tuple(
            s
            for s, refused in zip(self.sets, self.refused_when_open)
            if s & open_tiles == s and (refused == 0 or refused & open_tiles != refused)
        )

    def refusal_of(self, closed: OpenTiles) -> OpenTiles:
        """The tiles whose being all open refuses this set (0: it is never refused)."""
        if closed not in self.sets or not self.refused_when_open:
            return 0
        return self.refused_when_open[self.sets.index(closed)]


# The variants: each value of a rules field is an object with its hooks. ------------------


@dataclass(frozen=True)
class OneDieVariant:
    """When a player may roll one die instead of two."""

    name: OneDie
    description: str  # a line of the rules catalogue
    refusal: str  # why a move on one die is refused where it is not allowed
    allows: Callable[[OpenTiles], bool]  # whether one die may be rolled in a position

    @property
    def ever(self) -> bool:
        """Whether one die is ever allowed."""
        return self.name != "never"


@dataclass(frozen=True)
class OneDieChoiceVariant:
    """Where one die is allowed, whether the player chooses it or must roll it."""

    name: OneDieChoice
    description: str
    choices: tuple[int, ...]  # the numbers of dice a player may roll where one die is allowed
    refusal: str  # why a move on two dice is refused where only one die may be rolled


@dataclass(frozen=True)
class MoveVariant:
    """Which sets of tiles a roll lets the player close."""

    name: MoveRule
    description: str
    # (tiles, d1, d2, readings): the roll's sets, open or not; d2 is 0 on one die, and the
    # readings are what the roll counts as (``TotalVariant.readings``).
    sets: Callable[[int, int, int, tuple[int, ...]], RollMoves]
    # (tiles closed, d1, d2): whether a set the roll does not allow is refused for what it
    # adds up to ("adds up to 8, not 7"), else in the move rule's own words.
    blames_total: Callable[[tuple[int, ...], int, int], bool]
    by_total: bool  # whether the sets depend on the roll's total alone, not on its two dice
    # Why a set the roll allows is refused where its ``refused_when_open`` tiles are all
    # open (only ``die_or_sum_both`` refuses any); placeholders {other} and {both}.
    refusal: str = ""


@dataclass(frozen=True)
class TotalVariant:
    """What a roll counts as: its sum, or its sum or its difference."""

    name: Total
    description: str
    readings: Callable[[int, int], tuple[int, ...]]  # (d1, d2; d2 0 on one die): the values
    by_sum: bool  # whether a roll counts as its sum alone


@dataclass(frozen=True)
class ScoringVariant:
    """How the tiles left open score (lower is better)."""

    name: Scoring
    description: str
    score: Callable[[OpenTiles], int]


NEVER: Final = OneDieVariant(
    "never",
    N_("Always roll two dice."),
    N_("these rules never allow rolling one die"),
    lambda open_tiles: False,
)
HIGH_CLOSED: Final = OneDieVariant(
    "high_closed",
    N_("You may roll one die once every tile of 7 or more is closed."),
    N_("one die is allowed only once every tile of 7 or more is closed"),
    lambda open_tiles: open_tiles >> 6 == 0,
)
SUM_LE_6: Final = OneDieVariant(
    "sum_le_6",
    N_("You may roll one die once the open tiles add up to 6 or less."),
    N_("one die is allowed only once the open tiles add up to 6 or less"),
    lambda open_tiles: sum(tiles_of(open_tiles)) <= 6,
)


def _in_order(sets: set[OpenTiles]) -> tuple[OpenTiles, ...]:
    """Sets in Medium's order: the highest tiles first."""
    return tuple(sorted(sets, key=medium_order, reverse=True))


def _single_tiles(tiles: int, values: tuple[int, ...]) -> set[OpenTiles]:
    """The one-tile sets of these values that are tiles of the box."""
    return {mask_of((v,)) for v in values if 1 <= v <= tiles}


def _both_dice(tiles: int, d1: int, d2: int) -> set[OpenTiles]:
    """The two tiles of the two dice, where there are two different dice on the box."""
    return {mask_of((d1, d2))} if d2 and d1 != d2 and max(d1, d2) <= tiles else set()


def _sets_adding_up(tiles: int, d1: int, d2: int, readings: tuple[int, ...]) -> RollMoves:
    by_sum = _sets_by_sum(tiles)
    if len(readings) == 1:
        return RollMoves(by_sum.get(readings[0], ()))
    return RollMoves(_in_order({s for value in readings for s in by_sum.get(value, ())}))


def _readings_or_both_dice(tiles: int, d1: int, d2: int, readings: tuple[int, ...]) -> RollMoves:
    return RollMoves(_in_order(_single_tiles(tiles, readings) | _both_dice(tiles, d1, d2)))


def _one_tile(tiles: int, d1: int, d2: int, readings: tuple[int, ...]) -> RollMoves:
    return RollMoves(_in_order(_single_tiles(tiles, (d1, d2, *readings))))


def _die_or_sum(tiles: int, d1: int, d2: int, readings: tuple[int, ...]) -> RollMoves:
    return RollMoves(
        _in_order(_single_tiles(tiles, (d1, d2, *readings)) | _both_dice(tiles, d1, d2))
    )


def _die_or_sum_both(tiles: int, d1: int, d2: int, readings: tuple[int, ...]) -> RollMoves:
    """``die_or_sum``'s sets; one die's tile alone is refused while both dice's tiles are
    open, unless it is also what the roll counts as (then the roll allows it that way)."""
    sets = _die_or_sum(tiles, d1, d2, readings).sets
    both = _both_dice(tiles, d1, d2)
    if not both:
        return RollMoves(sets)
    both_tiles = next(iter(both))
    refused = tuple(
        both_tiles
        if s.bit_count() == 1 and s & both_tiles and tiles_of(s)[0] not in readings
        else 0
        for s in sets
    )
    return RollMoves(sets, refused if any(refused) else ())


def _always(tiles: tuple[int, ...], d1: int, d2: int) -> bool:
    return True


def _never(tiles: tuple[int, ...], d1: int, d2: int) -> bool:
    return False


def _unless_a_die(tiles: tuple[int, ...], d1: int, d2: int) -> bool:
    # On two dice: for its total, unless it is the tile of one die (the move rule's way).
    return d2 > 0 and not (len(tiles) == 1 and tiles[0] in (d1, d2))


MOVE_VARIANTS: Final[dict[MoveRule, MoveVariant]] = {
    "any": MoveVariant(
        "any",
        N_("Close any set of open tiles that adds up to the roll."),
        _sets_adding_up,
        _always,
        by_total=True,
    ),
    "dice_or_sum": MoveVariant(
        "dice_or_sum",
        N_("Close the tile equal to the total, or the two tiles equal to the two dice."),
        _readings_or_both_dice,
        _unless_a_die,
        by_total=False,
    ),
    "single": MoveVariant(
        "single",
        N_("Close exactly one tile, equal to either die or to the total."),
        _one_tile,
        _never,
        by_total=False,
    ),
    "die_or_sum": MoveVariant(
        "die_or_sum",
        N_(
            "Close the tile equal to the total, or the tile of one die, or the two tiles "
            "equal to the two dice."
        ),
        _die_or_sum,
        _never,
        by_total=False,
    ),
    "die_or_sum_both": MoveVariant(
        "die_or_sum_both",
        N_(
            "Close the tile equal to the total, or the two tiles equal to the two dice, or "
            "the tile of one die when the other die's tile is not open too: the second die "
            "is used whenever it fits."
        ),
        _die_or_sum_both,
        _never,
        by_total=False,
        refusal=N_(
            "tile {other} is open too, and these rules use the second die whenever it fits "
            "(close {both})"
        ),
    ),
}
ONE_DIE_VARIANTS: Final[dict[OneDie, OneDieVariant]] = {
    v.name: v for v in (NEVER, HIGH_CLOSED, SUM_LE_6)
}
ONE_DIE_CHOICE_VARIANTS: Final[dict[OneDieChoice, OneDieChoiceVariant]] = {
    "optional": OneDieChoiceVariant(
        "optional",
        N_("Where one die is allowed, you choose: one die or two."),
        (2, 1),
        "",
    ),
    "mandatory": OneDieChoiceVariant(
        "mandatory",
        N_("Where one die is allowed, you must roll one die."),
        (1,),
        N_("these rules make you roll one die here"),
    ),
}


def _difference_too(d1: int, d2: int) -> tuple[int, ...]:
    # The difference exists on two dice only, and a difference of 0 closes nothing.
    return (d1 + d2, abs(d1 - d2)) if d2 and d1 != d2 else (d1 + d2,)


TOTAL_VARIANTS: Final[dict[Total, TotalVariant]] = {
    "sum": TotalVariant(
        "sum", N_("A roll counts as the sum of its dice."), lambda d1, d2: (d1 + d2,), by_sum=True
    ),
    "sum_or_difference": TotalVariant(
        "sum_or_difference",
        N_(
            "A roll counts as the sum of its dice or as their difference, as you choose "
            "(5 and 2: 7 or 3); a difference of 0 closes nothing."
        ),
        _difference_too,
        by_sum=False,
    ),
}
SCORING_VARIANTS: Final[dict[Scoring, ScoringVariant]] = {
    "sum": ScoringVariant(
        "sum", N_("Your score is the sum of the open tiles."), lambda s: sum(tiles_of(s))
    ),
    "count": ScoringVariant(
        "count", N_("Your score is the number of open tiles."), lambda s: s.bit_count()
    ),
    "digits": ScoringVariant(
        "digits",
        N_("The open tiles in ascending order, read as one number (2, 5, 7 is 257)."),
        lambda s: int("".join(map(str, tiles_of(s))) or "0"),
    ),
}

ONE_DIE_VALUES: Final = tuple(ONE_DIE_VARIANTS)
ONE_DIE_CHOICE_VALUES: Final = tuple(ONE_DIE_CHOICE_VARIANTS)
MOVE_RULE_VALUES: Final = tuple(MOVE_VARIANTS)
TOTAL_VALUES: Final = tuple(TOTAL_VARIANTS)
SCORING_VALUES: Final = tuple(SCORING_VARIANTS)

DESCRIPTIONS: Final[dict[str, dict[str, str]]] = {
    "one_die": {name: variant.description for name, variant in ONE_DIE_VARIANTS.items()},
    "move_rule": {name: variant.description for name, variant in MOVE_VARIANTS.items()},
    "scoring": {name: variant.description for name, variant in SCORING_VARIANTS.items()},
    "total": {name: variant.description for name, variant in TOTAL_VARIANTS.items()},
    "one_die_choice": {
        name: variant.description for name, variant in ONE_DIE_CHOICE_VARIANTS.items()
    },
}


def _told(what: str, field: str) -> msgspec.Meta:
    """A field of the rules object as the OpenAPI document describes it: what it decides,
    then each value in the words ``GET /v1/rules`` uses."""
    values = (f"`{value}`: {text}" for value, text in DESCRIPTIONS[field].items())
    return msgspec.Meta(description=" ".join([what, *values]))


# The fields of the rules object, described (requests and answers alike).
OneDieField = Annotated[OneDie, _told("When a player may roll one die instead of two.", "one_die")]
MoveRuleField = Annotated[MoveRule, _told("Which tiles a roll lets a player close.", "move_rule")]
ScoringField = Annotated[
    Scoring,
    _told("How the tiles left open score (lower is better; a shut box scores 0).", "scoring"),
]
TotalField = Annotated[Total, _told("What a roll counts as, for the tiles it closes.", "total")]
OneDieChoiceField = Annotated[
    OneDieChoice,
    _told(
        "Where `one_die` allows one die, whether the player may or must roll it "
        "(with `one_die` `never`, nothing).",
        "one_die_choice",
    ),
]
START: Final = (
    "The tiles open when a turn begins, e.g. [4, 5, 6, 7, 8, 9]; absent or null: every tile."
)
FIRST_MUST_CLOSE: Final = (
    'A tile the first move must close ("2 to go", "3 to go"): in the start position only '
    "sets with this tile are legal, and a first roll that cannot close it ends the turn at "
    "once. It must be open at the start. Absent or null: no such rule."
)
STOP_ON_TOTAL: Final = (
    'A total, 2..12, that ends the turn when rolled, before it is played ("Unlucky 7"; on '
    "one die the die is the total). Absent or null: no such rule."
)
NEWER_FIELDS: Final = ("total", "one_die_choice", "first_must_close", "stop_on_total")
"""The fields added after the first five: ``Rules.stored`` leaves them out at their
defaults, so that the rules of every earlier variant are stored as they always were."""


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A variant of the game; the defaults are the standard rules."""

    tiles: TileCount = 9
    start: Annotated[
        Annotated[tuple[Tile, ...], msgspec.Meta(min_length=1, max_length=12)] | None,
        msgspec.Meta(description=START),
    ] = None
    one_die: OneDieField = "never"
    move_rule: MoveRuleField = "any"
    scoring: ScoringField = "sum"
    total: TotalField = "sum"
    one_die_choice: OneDieChoiceField = "optional"
    first_must_close: Annotated[Tile | None, msgspec.Meta(description=FIRST_MUST_CLOSE)] = None
    stop_on_total: Annotated[
        Annotated[int, msgspec.Meta(ge=2, le=12)] | None, msgspec.Meta(description=STOP_ON_TOTAL)
    ] = None

    def __post_init__(self) -> None:
        if self.start is not None:
            if not self.start:
                raise ValueError("start: at least one tile must be open at the start")
            outside = sorted({t for t in self.start if not 1 <= t <= self.tiles})
            if outside:
                raise ValueError(
                    f"start: tile {outside[0]} is not on a box of tiles 1..{self.tiles}"
                )
            if len(set(self.start)) != len(self.start):
                raise ValueError("start: each tile may be listed only once")
        tile = self.first_must_close
        if tile is not None:
            if not 1 <= tile <= self.tiles:
                raise ValueError(
                    f"first_must_close: tile {tile} is not on a box of tiles 1..{self.tiles}"
                )
            if not self.start_position >> (tile - 1) & 1:
                raise ValueError(f"first_must_close: tile {tile} is not open at the start")
        if self.stop_on_total is not None and not 2 <= self.stop_on_total <= 12:
            raise ValueError(
                f"stop_on_total: a total of two dice is 2..12, not {self.stop_on_total}"
            )

    @property
    def full(self) -> OpenTiles:
        """Every tile of the box open."""
        return (1 << self.tiles) - 1

    @property
    def start_position(self) -> OpenTiles:
        """The tiles open when a turn begins."""
        return self.full if self.start is None else mask_of(self.start)

    @property
    def rolls(self) -> int:
        """How many rolls a sequence for these rules holds: enough for any turn."""
        return self.tiles + 1

    @property
    def solver_key(self) -> Rules:
        """These rules as their exact tables are keyed: without ``start``, since the
        tables cover every position anyway; but under ``first_must_close`` the start
        position is special, so ``start`` stays there, as the tiles it opens (ascending;
        None for every tile)."""
        if self.first_must_close is None:
            return self if self.start is None else msgspec.structs.replace(self, start=None)
        start = None if self.start_position == self.full else tiles_of(self.start_position)
        return self if start == self.start else msgspec.structs.replace(self, start=start)

    def stored(self) -> dict[str, object]:
        """These rules as plain data to store or cache: every field, but the newer ones
        (``NEWER_FIELDS``) only where they differ from their defaults, so the rules of an
        earlier variant are stored exactly as before they existed (and read back alike
        by every process, whichever fields it knows)."""
        data: dict[str, object] = msgspec.to_builtins(self)
        for name in NEWER_FIELDS:
            if data[name] == _DEFAULTS[name]:
                del data[name]
        return data

    @property
    def one_die_variant(self) -> OneDieVariant:
        return ONE_DIE_VARIANTS[self.one_die]

    @property
    def one_die_choice_variant(self) -> OneDieChoiceVariant:
        return ONE_DIE_CHOICE_VARIANTS[self.one_die_choice]

    @property
    def move_variant(self) -> MoveVariant:
        return MOVE_VARIANTS[self.move_rule]

    @property
    def total_variant(self) -> TotalVariant:
        return TOTAL_VARIANTS[self.total]

    def one_die_allowed(self, open_tiles: OpenTiles) -> bool:
        """Whether the rules allow one die in this position (to choose, or as a must:
        ``dice_choices`` says which)."""
        return self.one_die_variant.allows(open_tiles)

    def dice_choices(self, open_tiles: OpenTiles) -> tuple[int, ...]:
        """The numbers of dice the player may roll here, the default first: 2 where one
        die is not allowed; where it is, (2, 1) to choose, or (1,) where it is a must."""
        return self.one_die_choice_variant.choices if self.one_die_allowed(open_tiles) else (2,)

    def score(self, open_tiles: OpenTiles) -> int:
        """The final score when the turn ends with these tiles open (lower is better)."""
        return SCORING_VARIANTS[self.scoring].score(open_tiles)

    def stops(self, roll: Roll, dice: int) -> bool:
        """Whether this roll ends the turn before it is played: a roll of ``stop_on_total``
        (on one die, the die is the total)."""
        return roll_total(roll, dice) == self.stop_on_total

    def roll_moves(self, roll: Roll, dice: int) -> RollMoves:
        """What this roll allows in any position: the move rule's sets for what the roll
        counts as (none where it ``stops`` the turn), and where some are refused."""
        if self.stop_on_total is not None and self.stops(roll, dice):
            return RollMoves(())
        return _roll_moves(
            self.tiles, self.move_rule, self.total, roll if dice == 2 else (roll[0], 0)
        )

    def candidate_sets(self, roll: Roll, dice: int) -> tuple[OpenTiles, ...]:
        """Every set of tiles the move rule allows for this roll, open or not (in some
        position: see ``legal_sets``).

        Sets come in the order that closes the highest tiles first (Medium's order).
        """
        return self.roll_moves(roll, dice).sets

    def legal_among(self, open_tiles: OpenTiles, moves: RollMoves) -> tuple[OpenTiles, ...]:
        """The sets of a roll's ``moves`` the player may close in this position: those
        open and not refused there, and in the start position under ``first_must_close``
        only those closing that tile. (The solver groups rolls by their ``RollMoves`` and
        asks this once per group.)"""
        legal = moves.open_in(open_tiles)
        if self.first_must_close is not None and open_tiles == self.start_position:
            return tuple(s for s in legal if self._closes_the_first(s))
        return legal

    def is_legal(self, open_tiles: OpenTiles, roll: Roll, dice: int, closed: OpenTiles) -> bool:
        """Whether ``closed`` is one of ``legal_sets(open_tiles, roll, dice)``, without
        making them all (a replay's every move asks)."""
        moves = self.roll_moves(roll, dice)
        if closed & open_tiles != closed or closed not in moves.sets:
            return False
        if moves.refused_when_open or (
            self.first_must_close is not None and open_tiles == self.start_position
        ):
            return closed in self.legal_among(open_tiles, moves)
        return True

    def _closes_the_first(self, closed: OpenTiles) -> bool:
        return self.first_must_close is None or bool(closed >> (self.first_must_close - 1) & 1)

    def legal_sets(self, open_tiles: OpenTiles, roll: Roll, dice: int) -> tuple[OpenTiles, ...]:
        """The sets the player may close in this position on this roll (on ``dice``
        dice: one die counts ``roll[0]``), in Medium's order: the one function that says
        what is legal."""
        return self.legal_among(open_tiles, self.roll_moves(roll, dice))

    def special_positions(self) -> frozenset[OpenTiles]:
        """The positions whose legal sets are not just the open ones of each roll's
        sets: the start position under ``first_must_close``."""
        return frozenset() if self.first_must_close is None else frozenset({self.start_position})

    def describe_move_rule(self) -> str:
        """One sentence a player reads when a move breaks the move rule."""
        return self.move_variant.description


def roll_total(roll: Roll, dice: int) -> int:
    """What the roll adds up to with the given number of dice."""
    return roll[0] + roll[1] if dice == 2 else roll[0]


@cached("sets_by_sum", 11)  # one a box: 2..12 tiles
def _sets_by_sum(tiles: int) -> dict[int, tuple[OpenTiles, ...]]:
    by_sum: dict[int, list[OpenTiles]] = {}
    for mask in range(1, 1 << tiles):
        total = sum(tiles_of(mask))
        if total <= 12:
            by_sum.setdefault(total, []).append(mask)
    return {
        total: tuple(sorted(masks, key=medium_order, reverse=True))
        for total, masks in by_sum.items()
    }


_ROLL_MOVES_KEPT: Final = 11 * len(MOVE_VARIANTS) * len(TOTAL_VARIANTS) * 42
"""Rolls' moves kept (``_roll_moves``): every roll (36 of two dice, 6 of one) of every box,
move rule and total, the whole domain; some 100 bytes each."""


@cached("roll_moves", _ROLL_MOVES_KEPT)
def _roll_moves(tiles: int, move_rule: MoveRule, total: Total, dice: tuple[int, int]) -> RollMoves:
    # dice[1] == 0 stands for a one-die roll of dice[0].
    d1, d2 = dice
    return MOVE_VARIANTS[move_rule].sets(tiles, d1, d2, TOTAL_VARIANTS[total].readings(d1, d2))


_DEFAULTS: Final[dict[str, object]] = msgspec.to_builtins(Rules())
"""Every field's default, as ``Rules.stored`` compares them."""
