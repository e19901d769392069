"""Stateless game services: analyse a run, hint a move, the exact solution, the variants.

Nothing is stored; no account is needed.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Annotated, Any, Final

import msgspec
from litestar import Controller, get, post
from litestar.params import FromQuery, JSONBody, QueryParameter
from litestar.types import Scope
from msgspec import Meta

from service.api import problems
from service.api.bodies import decode
from service.api.deps import AnyRequest, Services, ServicesDep
from service.api.hot import DATABASE_DOWN, Answer
from service.api.problems import documented
from service.api.schemas import (
    DiceIn,
    Die,
    MovesIn,
    OpenIn,
    RulesIn,
    RunResult,
    move_in,
    run_result,
)
from service.api.tables import held_tables
from service.i18n import LOCALISED, N_, Language, _, current, speaking
from service.rules.analysis import report
from service.rules.dice import check_dice
from service.rules.ruleset import (
    DESCRIPTIONS,
    START,
    MoveRule,
    MoveRuleField,
    OneDie,
    OneDieField,
    OpenTiles,
    Roll,
    Rules,
    Scoring,
    ScoringField,
    TileCount,
    mask_of,
)
from service.rules.solver import LOADED, Hint, Solution, hint, solution


class AnalyzeRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A run to verify and analyse on dice the client gives."""

    dice: DiceIn
    moves: MovesIn
    rules: RulesIn = msgspec.field(default_factory=Rules)


async def dice_to_analyse(data: AnalyzeRequest, services: Services) -> tuple[Roll, ...]:
    """The request's dice, if they fit its rules and are not in play."""
    dice = check_dice(data.rules, data.dice)
    if await services.dice_in_play.refuses(dice, services.clock.now()):
        raise problems.DICE_IN_PLAY(
            _(
                "These dice are in play (a Daily Dice date still open somewhere, or a "
                "Friend Box): submit your run to see its analysis."
            ),
        )
    return dice


_WRITTEN: Final = {(a, b): f"{a}{b}" for a in range(1, 7) for b in range(1, 7)}


def analysed(data: AnalyzeRequest, dice: tuple[Roll, ...]) -> RunResult:
    """The run verified and analysed on its dice (the rules' tables held in memory)."""
    seed = "dice/" + "".join(map(_WRITTEN.__getitem__, dice))  # Easy's seed: "dice/3466..."
    return run_result(report(data.rules, dice, [move_in(m) for m in data.moves], seed), None)


_analyze_request = msgspec.json.Decoder(AnalyzeRequest, strict=True)
_run_result = msgspec.json.Encoder()


async def analyze_answer(scope: Scope, body: bytes, _path: re.Match[str]) -> Answer | None:
    """``POST /v1/analyze`` when all goes well (``service.api.hot``): a body decoded
    strictly, dice that fit and are not in play, a legal run, the rules' tables in
    memory. Else None: the handler answers (problems included); a database that cannot
    answer raises."""
    try:
        data: AnalyzeRequest = decode(_analyze_request, body)
        if LOADED.get(data.rules) is None:
            return None
        dice = await dice_to_analyse(data, scope["app"].state.services)
        return 200, _run_result.encode(analysed(data, dice))
    except DATABASE_DOWN:
        raise
    except Exception:
        return None


class HintRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A position, and the roll to play there if it is known."""

    open: OpenIn
    rules: RulesIn = msgspec.field(default_factory=Rules)
    roll: Annotated[
        Annotated[list[Die], Meta(min_length=1, max_length=2)] | None,
        Meta(
            description="The roll to play: [d1, d2], or [d] after choosing one die where the "
            "rules allow it; null or left out: before the roll (whether to roll one die)."
        ),
    ] = None


class Choice(msgspec.Struct, frozen=True):
    """One value a field of the rules object takes."""

    value: Annotated[str, Meta(description="The value, as the rules object takes it.")]
    description: Annotated[str, Meta(description="What it means. " + LOCALISED)]


class Variant(msgspec.Struct, frozen=True, kw_only=True):
    """One field of the rules object."""

    field: Annotated[str, Meta(description="The field's name in the rules object.")]
    default: Annotated[
        Any, Meta(description="Its value in the standard rules (null: `start`, all tiles open).")
    ]
    description: Annotated[str, Meta(description="What the field decides. " + LOCALISED)]
    choices: Annotated[
        list[Choice] | None,
        Meta(
            description="The values it takes, the default first; null: it takes a number or a "
            "list of tiles (`tiles`, `start`)."
        ),
    ]
    minimum: Annotated[
        int | None, Meta(description="The lowest value of a number (`tiles`); null for the rest.")
    ]
    maximum: Annotated[
        int | None, Meta(description="The highest value of a number (`tiles`); null for the rest.")
    ]


class StandardRules(msgspec.Struct, frozen=True):
    """The standard rules, every field given."""

    tiles: TileCount
    start: Annotated[list[int] | None, Meta(description=START)]
    one_die: OneDieField
    move_rule: MoveRuleField
    scoring: ScoringField


class RulesCatalog(msgspec.Struct, frozen=True):
    """The rules object's fields, each with its values and default."""

    standard: Annotated[
        StandardRules, Meta(description="The default of every field: the standard game.")
    ]
    fields: Annotated[list[Variant], Meta(description="Every field of the rules object.")]


def position(rules: Rules, tiles: list[int] | None) -> OpenTiles:
    """Open tiles from a request, checked against the rules (422 naming the tile)."""
    if tiles is None:
        return rules.start_position
    for tile in tiles:
        if tile > rules.tiles:
            raise problems.NOT_A_TILE(
                _("open: {tile} is not a tile of a {tiles}-tile box", tile=tile, tiles=rules.tiles)
            )
    if len(set(tiles)) != len(tiles):
        raise problems.TILE_REPEATED(_("open: each tile may be listed only once"))
    return mask_of(tiles)


@cache
def catalog(language: Language) -> RulesCatalog:
    """The rules variants, each described in a line of ``language``."""

    def variant(
        field: str,
        description: str,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> Variant:
        choices = DESCRIPTIONS.get(field)
        return Variant(
            field=field,
            default=getattr(standard, field),
            description=_(description),
            choices=[Choice(v, _(text)) for v, text in choices.items()] if choices else None,
            minimum=minimum,
            maximum=maximum,
        )

    standard = Rules()
    with speaking(language):
        return RulesCatalog(
            standard=StandardRules(
                standard.tiles, None, standard.one_die, standard.move_rule, standard.scoring
            ),
            fields=[
                variant("tiles", N_("Tiles 1..N on the box."), minimum=2, maximum=12),
                variant("start", N_("Tiles open at the start (default: all), e.g. 4..9.")),
                variant("one_die", N_("When you may roll one die.")),
                variant("move_rule", N_("Which tiles a roll lets you close.")),
                variant("scoring", N_("How the open tiles score (lower wins).")),
            ],
        )


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
        responses=documented(
            problems.BODY,
            problems.DICE_IN_PLAY,
            problems.INVALID_DICE,
            problems.ILLEGAL_RUN,
            problems.SOLVED,
        ),
        status_code=200,
    )
    async def analyze(
        self, request: AnyRequest, data: JSONBody[AnalyzeRequest], services: ServicesDep
    ) -> RunResult:
        dice = await dice_to_analyse(data, services)
        await held_tables(request, data.rules)
        return analysed(data, dice)

    @post(
        "/hint",
        operation_id="hint",
        summary="Rank the choices of a position",
        description=(
            "With `roll` (two dice, or one die after choosing one): the legal sets ranked by "
            "shut chance, then expected score. Without it, where one die is allowed: whether "
            "to roll one die or two."
        ),
        responses=documented(
            problems.BODY,
            problems.NOT_A_TILE,
            problems.TILE_REPEATED,
            problems.ONE_DIE_NOT_ALLOWED,
            problems.SOLVED,
        ),
        status_code=200,
    )
    async def hint(self, request: AnyRequest, data: JSONBody[HintRequest]) -> Hint:
        rules = data.rules
        open_tiles = position(rules, data.open)
        if data.roll is not None and len(data.roll) == 1 and not rules.one_die_allowed(open_tiles):
            raise problems.ONE_DIE_NOT_ALLOWED(
                _("roll: one die is not allowed here; send both dice")
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
        responses=documented(
            problems.INVALID_REQUEST, problems.NOT_A_TILE, problems.TILE_REPEATED, problems.SOLVED
        ),
        cache_control=None,
    )
    async def solution(
        self,
        request: AnyRequest,
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
        tiles_open = [int(t) for t in open.split(",")] if open else None  # 1..12: the pattern
        open_tiles = position(rules, tiles_open)
        await held_tables(request, rules)
        return solution(rules, open_tiles)

    @get(
        "/rules",
        operation_id="listRules",
        summary="The rules variants",
        description="Every field of the rules object with its choices, each described in a line.",
        responses=documented(),  # the proxy's answers only
    )
    async def rules(self) -> RulesCatalog:
        return catalog(current())
