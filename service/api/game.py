"""Stateless game services: analyse a run, hint a move, the exact solution, the variants.

Nothing is stored; no account is needed.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.di import NamedDependency
from litestar.params import FromQuery, JSONBody, QueryParameter
from msgspec import Meta

from service.api.deps import Services
from service.api.problems import documented, problem
from service.api.schemas import DiceIn, Die, MovesIn, OpenIn, RunResult, move_in, run_result
from service.api.tables import held_tables
from service.rules.analysis import report
from service.rules.dice import check_dice
from service.rules.ruleset import (
    DESCRIPTIONS,
    MoveRule,
    OneDie,
    OpenTiles,
    Rules,
    Scoring,
    mask_of,
)
from service.rules.solver import Hint, Solution, hint, solution


class AnalyzeRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    dice: DiceIn
    moves: MovesIn
    rules: Rules = msgspec.field(default_factory=Rules)


class HintRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    open: OpenIn
    rules: Rules = msgspec.field(default_factory=Rules)
    roll: Annotated[list[Die], Meta(min_length=1, max_length=2)] | None = None


class Choice(msgspec.Struct, frozen=True):
    value: str
    description: str


class Variant(msgspec.Struct, frozen=True):
    field: str
    default: Any
    description: str
    choices: list[Choice] | None = None
    minimum: int | None = None
    maximum: int | None = None


class RulesCatalog(msgspec.Struct, frozen=True):
    standard: Rules
    fields: list[Variant]


def position(rules: Rules, tiles: list[int] | None) -> OpenTiles:
    """Open tiles from a request, checked against the rules (422 naming the tile)."""
    if tiles is None:
        return rules.start_position
    for tile in tiles:
        if tile > rules.tiles:
            raise problem(
                422, "not-a-tile", f"open: {tile} is not a tile of a {rules.tiles}-tile box"
            )
    if len(set(tiles)) != len(tiles):
        raise problem(422, "tile-repeated", "open: each tile may be listed only once")
    return mask_of(tiles)


def _catalog() -> RulesCatalog:
    def choices(field: str) -> list[Choice]:
        return [Choice(value, text) for value, text in DESCRIPTIONS[field].items()]

    return RulesCatalog(
        standard=Rules(),
        fields=[
            Variant("tiles", 9, "Tiles 1..N on the box.", minimum=2, maximum=12),
            Variant("start", None, "Tiles open at the start (default: all), e.g. 4..9."),
            Variant("one_die", "never", "When you may roll one die.", choices("one_die")),
            Variant("move_rule", "any", "Which tiles a roll lets you close.", choices("move_rule")),
            Variant("scoring", "sum", "How the open tiles score (lower wins).", choices("scoring")),
        ],
    )


CATALOG = _catalog()


class GameController(Controller):
    path = "/v1"
    tags = ["Game"]

    @post(
        "/analyze",
        operation_id="analyzeRun",
        summary="Verify and analyse a run on given dice",
        description=(
            "Replays the moves on the dice under the rules, then measures the run against "
            "the exact solution for those dice. Nothing is stored. Easy is seeded from the dice. "
            "The dice of a Daily Dice date still open somewhere on Earth, or of a Friend Box "
            "(compared by their first 7 rolls), are 403 `dice-in-play`: their analysis comes "
            "with the player's own run."
        ),
        responses=documented(403, 422, 429),
        status_code=200,
    )
    async def analyze(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[AnalyzeRequest],
        services: NamedDependency[Services],
    ) -> RunResult:
        rules = data.rules
        dice = check_dice(rules, data.dice)
        if await services.dice_in_play.refuses(dice, services.clock.now()):
            raise problem(
                403, "dice-in-play",
                "These dice are in play (a Daily Dice date still open somewhere, or a Friend "
                "Box): submit your run to see its analysis.",
                title="These dice are in play",
            )  # fmt: skip
        seed = "dice/" + "".join(f"{a}{b}" for a, b in dice)
        await held_tables(request, rules)
        return run_result(report(rules, dice, [move_in(m) for m in data.moves], seed), None)

    @post(
        "/hint",
        operation_id="hint",
        summary="Rank the choices of a position",
        description=(
            "With `roll` (two dice, or one die after choosing one): the legal sets ranked by "
            "shut chance, then expected score. Without it, where one die is allowed: whether "
            "to roll one die or two."
        ),
        responses=documented(422, 429),
        status_code=200,
    )
    async def hint(self, request: Request[Any, Any, Any], data: JSONBody[HintRequest]) -> Hint:
        rules = data.rules
        open_tiles = position(rules, data.open)
        if data.roll is not None and len(data.roll) == 1 and not rules.one_die_allowed(open_tiles):
            raise problem(
                422, "one-die-not-allowed", "roll: one die is not allowed here; send both dice"
            )
        roll = tuple(data.roll) if data.roll is not None else None
        await held_tables(request, rules)
        return hint(rules, open_tiles, roll)

    @get(
        "/solution",
        operation_id="solution",
        summary="The exact solution of a position",
        description=(
            "Expected score under the expected-score optimum, the best shut chance, the hint "
            "policy's figures and the final-score distribution (probabilities as fractions)."
        ),
        responses=documented(422, 429),
        cache_control=None,
    )
    async def solution(
        self,
        request: Request[Any, Any, Any],
        tiles: Annotated[int, QueryParameter(ge=2, le=12, description="Tiles 1..N.")] = 9,
        one_die: FromQuery[OneDie] = "never",
        move_rule: FromQuery[MoveRule] = "any",
        scoring: FromQuery[Scoring] = "sum",
        open: Annotated[
            str | None,
            QueryParameter(
                description="Open tiles, comma-separated (default: all).",
                pattern=r"^([1-9]|1[0-2])(,([1-9]|1[0-2])){0,11}$",
            ),
        ] = None,
    ) -> Solution:
        rules = Rules(tiles=tiles, one_die=one_die, move_rule=move_rule, scoring=scoring)
        tiles_open = [int(t) for t in open.split(",")] if open else None
        if tiles_open is not None and 0 in tiles_open:
            raise problem(422, "not-a-tile", "open: 0 is not a tile")
        open_tiles = position(rules, tiles_open)
        await held_tables(request, rules)
        return solution(rules, open_tiles)

    @get(
        "/rules",
        operation_id="listRules",
        summary="The rules variants",
        description="Every field of the rules object with its choices, each described in a line.",
    )
    async def rules(self) -> RulesCatalog:
        return CATALOG
