"""The rules object: which variant of Shut the Box is played and what it allows.

Positions are plain integers: bit ``t - 1`` is set while tile ``t`` is open
(``OpenTiles``), so the full standard box is ``0b111111111``. A roll is the pair
of dice ``(d1, d2)``; when a player rolls one die, only ``d1`` counts.

Each value of a rules field is a variant object with its hooks (``ONE_DIE_VARIANTS``,
``MOVE_VARIANTS``, ``SCORING_VARIANTS``): the rest of the game asks the variant what it
allows, how a set is made and how tiles score, instead of testing the field's value.

>>> rules = Rules()
>>> tiles_of(rules.start_position)
(1, 2, 3, 4, 5, 6, 7, 8, 9)
>>> [tiles_of(s) for s in rules.candidate_sets((3, 4), dice=2)]
[(7,), (1, 6), (2, 5), (3, 4), (1, 2, 4)]
>>> Rules(scoring="digits").score(mask_of((2, 10)))
210
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Final, Literal, TypeAlias

import msgspec

from service.rules.words import N_

OpenTiles: TypeAlias = int
"""A position: bit ``t - 1`` is set while tile ``t`` is open."""

Roll: TypeAlias = tuple[int, int]
"""The two dice of one roll of a sequence, each 1..6."""

OneDie: TypeAlias = Literal["never", "high_closed", "sum_le_6"]
MoveRule: TypeAlias = Literal["any", "dice_or_sum", "single"]
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
class MoveVariant:
    """Which sets of tiles a roll lets the player close."""

    name: MoveRule
    description: str
    sets: Callable[[int, int, int], tuple[OpenTiles, ...]]  # (tiles, d1, d2): any set, open or not
    adds_up: Callable[[int], bool]  # whether a set must add up to the roll on this many dice
    by_total: bool  # whether the sets depend on the roll's total alone, not on its two dice


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


def _sets_adding_up(tiles: int, d1: int, d2: int) -> tuple[OpenTiles, ...]:
    return _sets_by_sum(tiles).get(d1 + d2, ())


def _total_or_both_dice(tiles: int, d1: int, d2: int) -> tuple[OpenTiles, ...]:
    total = d1 + d2
    sets: set[OpenTiles] = set()
    if total <= tiles:
        sets.add(mask_of((total,)))
    if d2 and d1 != d2 and max(d1, d2) <= tiles:
        sets.add(mask_of((d1, d2)))
    return tuple(sorted(sets, key=medium_order, reverse=True))


def _one_tile(tiles: int, d1: int, d2: int) -> tuple[OpenTiles, ...]:
    sets = {mask_of((t,)) for t in {d1, d2, d1 + d2} if 1 <= t <= tiles}
    return tuple(sorted(sets, key=medium_order, reverse=True))


MOVE_VARIANTS: Final[dict[MoveRule, MoveVariant]] = {
    "any": MoveVariant(
        "any",
        N_("Close any set of open tiles that adds up to the roll."),
        _sets_adding_up,
        lambda dice: True,
        by_total=True,
    ),
    "dice_or_sum": MoveVariant(
        "dice_or_sum",
        N_("Close the tile equal to the total, or the two tiles equal to the two dice."),
        _total_or_both_dice,
        lambda dice: dice == 2,
        by_total=False,
    ),
    "single": MoveVariant(
        "single",
        N_("Close exactly one tile, equal to either die or to the total."),
        _one_tile,
        lambda dice: False,
        by_total=False,
    ),
}
ONE_DIE_VARIANTS: Final[dict[OneDie, OneDieVariant]] = {
    v.name: v for v in (NEVER, HIGH_CLOSED, SUM_LE_6)
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
MOVE_RULE_VALUES: Final = tuple(MOVE_VARIANTS)
SCORING_VALUES: Final = tuple(SCORING_VARIANTS)

DESCRIPTIONS: Final[dict[str, dict[str, str]]] = {
    "one_die": {name: variant.description for name, variant in ONE_DIE_VARIANTS.items()},
    "move_rule": {name: variant.description for name, variant in MOVE_VARIANTS.items()},
    "scoring": {name: variant.description for name, variant in SCORING_VARIANTS.items()},
}


def _told(what: str, field: str) -> str:
    """A field of the rules object as the OpenAPI document describes it: what it decides,
    then each value in the words ``GET /v1/rules`` uses."""
    return " ".join([what, *(f"`{value}`: {text}" for value, text in DESCRIPTIONS[field].items())])


# The fields of the rules object, described (requests and answers alike).
OneDieField = Annotated[
    OneDie,
    msgspec.Meta(description=_told("When a player may roll one die instead of two.", "one_die")),
]
MoveRuleField = Annotated[
    MoveRule,
    msgspec.Meta(description=_told("Which tiles a roll lets a player close.", "move_rule")),
]
ScoringField = Annotated[
    Scoring,
    msgspec.Meta(
        description=_told(
            "How the tiles left open score (lower is better; a shut box scores 0).", "scoring"
        )
    ),
]
START: Final = (
    "The tiles open when a turn begins, e.g. [4, 5, 6, 7, 8, 9]; absent or null: every tile."
)


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

    def __post_init__(self) -> None:
        if self.start is None:
            return
        if not self.start:
            raise ValueError("start: at least one tile must be open at the start")
        outside = sorted({t for t in self.start if not 1 <= t <= self.tiles})
        if outside:
            raise ValueError(f"start: tile {outside[0]} is not on a box of tiles 1..{self.tiles}")
        if len(set(self.start)) != len(self.start):
            raise ValueError("start: each tile may be listed only once")

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
        """These rules without ``start``: the exact tables cover every position anyway."""
        return self if self.start is None else msgspec.structs.replace(self, start=None)

    @property
    def one_die_variant(self) -> OneDieVariant:
        return ONE_DIE_VARIANTS[self.one_die]

    @property
    def move_variant(self) -> MoveVariant:
        return MOVE_VARIANTS[self.move_rule]

    def one_die_allowed(self, open_tiles: OpenTiles) -> bool:
        """Whether the player may choose to roll one die in this position."""
        return self.one_die_variant.allows(open_tiles)

    def dice_choices(self, open_tiles: OpenTiles) -> tuple[int, ...]:
        """The numbers of dice the player may roll here: always 2, sometimes 1."""
        return (2, 1) if self.one_die_allowed(open_tiles) else (2,)

    def score(self, open_tiles: OpenTiles) -> int:
        """The final score when the turn ends with these tiles open (lower is better)."""
        return SCORING_VARIANTS[self.scoring].score(open_tiles)

    def candidate_sets(self, roll: Roll, dice: int) -> tuple[OpenTiles, ...]:
        """Every set of tiles the move rule allows for this roll, open or not.

        Sets come in the order that closes the highest tiles first (Medium's order).
        """
        return _candidate_sets(self.tiles, self.move_rule, roll if dice == 2 else (roll[0], 0))

    def legal_sets(self, open_tiles: OpenTiles, roll: Roll, dice: int) -> tuple[OpenTiles, ...]:
        """The sets the player may close in this position on this roll."""
        return tuple(m for m in self.candidate_sets(roll, dice) if m & open_tiles == m)

    def describe_move_rule(self) -> str:
        """One sentence a player reads when a move breaks the move rule."""
        return self.move_variant.description


def roll_total(roll: Roll, dice: int) -> int:
    """What the roll adds up to with the given number of dice."""
    return roll[0] + roll[1] if dice == 2 else roll[0]


@cache
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


@cache
def _candidate_sets(
    tiles: int, move_rule: MoveRule, dice: tuple[int, int]
) -> tuple[OpenTiles, ...]:
    # dice[1] == 0 stands for a one-die roll of dice[0].
    return MOVE_VARIANTS[move_rule].sets(tiles, *dice)
