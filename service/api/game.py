"""Stateless game services: analyse a run, hint a move, the exact solution, the variants.

Nothing is stored; no account is needed.
"""

from __future__ import annotations

import operator
import re
from datetime import datetime
from functools import reduce
from typing import Annotated, Any, Final, Literal

import msgspec
from litestar import Controller, get, post
from litestar.params import FromQuery, JSONBody, QueryParameter
from litestar.plugins.problem_details import ProblemDetailsException
from litestar.types import Scope
from msgspec import UNSET, Meta, UnsetType

from service.api import problems
from service.api.bodies import decode
from service.api.deps import AnyRequest, Services, ServicesDep
from service.api.document import documented
from service.api.front.hot import BEFORE_FRAMEWORK, Answer, ByBody
from service.api.front.ratelimit import NOT_LIMITED
from service.api.schemas import (
    DICE,
    DiceIn,
    Die,
    MovesIn,
    OpenIn,
    RollIn,
    RulesIn,
    RulesOut,
    RunResult,
    move_in,
    rules_out,
    run_result,
)
from service.api.series import SERIES_BOUNDS, SeriesBounds
from service.api.tables import held_tables
from service.caching import cached
from service.rules.analysis import report
from service.rules.dice import check_dice
from service.rules.ruleset import (
    ALL_ROLLS,
    DESCRIPTIONS,
    FIRST_MUST_CLOSE,
    START,
    STOP_ON_TOTAL,
    MoveRule,
    MoveRuleField,
    OneDie,
    OneDieChoice,
    OneDieChoiceField,
    OneDieField,
    OpenTiles,
    Roll,
    Rules,
    Scoring,
    ScoringField,
    TileCount,
    Total,
    TotalField,
    mask_of,
    tiles_of,
)
from service.rules.solver import Hint, Solution, hint, solution
from service.support.i18n import LANGUAGES, LOCALISED, N_, Language, _, current, speaking
from service.usecases import deals

DealToken = Annotated[
    str,
    Meta(
        min_length=45,
        max_length=deals.MAX_TOKEN,
        pattern=deals.TOKEN_PATTERN,
        description="A deal's token, as `POST /v1/deals` gave it: it binds the rules and the dice.",
    ),
]


class AnalyzeRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A run to verify and analyse: on dealt dice (``deal``), or on dice the client gives
    (``dice``, with ``rules``)."""

    moves: MovesIn
    deal: (
        Annotated[
            DealToken,
            Meta(
                description="The deal the run was played on (`POST /v1/deals`): the full "
                "analysis, hindsight included. Without `dice` and `rules`."
            ),
        ]
        | UnsetType
    ) = UNSET
    dice: (
        Annotated[
            DiceIn,
            Meta(
                description="Dice the client brings (without `deal`): analysed without "
                "foresight, `analysis.hindsight` false."
            ),
        ]
        | UnsetType
    ) = UNSET
    rules: RulesIn | UnsetType = UNSET


def deal_problem(error: deals.BadDeal | deals.DealExpired) -> ProblemDetailsException:
    """The 422 saying why a token is no deal (forged, or expired)."""
    if isinstance(error, deals.DealExpired):
        return problems.DEAL_EXPIRED(
            _("The deal has expired: deal a new round."),
            problems.DealExpiredMembers(expired_at=error.expired_at),
        )
    return problems.BAD_DEAL(
        _("That deal was not made by this service, or it was changed: deal a new round.")
    )


def dealt(services: Services, token: str) -> deals.Deal:
    """The deal a token carries, or the 422 saying why it is none (forged, or expired)."""
    try:
        return deals.read(services.deal_key, token, services.clock.now())
    except (deals.DealExpired, deals.BadDeal) as refused:
        raise deal_problem(refused) from None


def to_analyse(data: AnalyzeRequest, services: Services) -> tuple[Rules, tuple[Roll, ...], bool]:
    """The rules and dice of a request, and whether the service chose those dice (a deal:
    hindsight figures given) or the client brought them (none given)."""
    if isinstance(data.deal, str):
        if not isinstance(data.dice, UnsetType) or not isinstance(data.rules, UnsetType):
            raise problems.DEAL_OR_DICE(
                _("A deal binds its rules and dice: send `deal` without `dice` or `rules`.")
            )
        found = dealt(services, data.deal)
        return found.rules, found.dice, True
    if isinstance(data.dice, UnsetType):
        raise problems.DEAL_OR_DICE(_("Send `deal`, or `dice` (with `rules`) to analyse."))
    rules = Rules() if isinstance(data.rules, UnsetType) else data.rules
    return rules, check_dice(rules, data.dice), False


_WRITTEN: Final = {(a, b): f"{a}{b}" for a, b in ALL_ROLLS}


def analysed(rules: Rules, dice: tuple[Roll, ...], moves: MovesIn, *, hindsight: bool) -> RunResult:
    """The run verified and analysed on its dice (the rules' tables held in memory)."""
    seed = "dice/" + "".join(map(_WRITTEN.__getitem__, dice))  # Easy's seed: "dice/3466..."
    verified = report(rules, dice, [move_in(m) for m in moves], seed, hindsight=hindsight)
    return run_result(verified, None)


_analyze_request = msgspec.json.Decoder(AnalyzeRequest, strict=True)
_run_result = msgspec.json.Encoder()


async def analyze_run(scope: Scope, data: AnalyzeRequest, services: Services) -> RunResult:
    """``POST /v1/analyze``: the one way both take (the handler and ``analyze_answer``)."""
    rules, dice, hindsight = to_analyse(data, services)
    await held_tables(scope, rules)
    return analysed(rules, dice, data.moves, hindsight=hindsight)


async def analyze_answer(scope: Scope, body: bytes, _path: re.Match[str]) -> Answer | None:
    """``POST /v1/analyze`` before the framework (``service.api.front.hot``): ``analyze_run``,
    as the handler calls it. A problem goes on to the handler, which answers it: None."""
    try:
        data: AnalyzeRequest = decode(_analyze_request, body)
        result = await analyze_run(scope, data, scope["app"].state.services)
    except problems.ANSWERED:
        return None
    return 200, _run_result.encode(result)


class NewDeal(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The rules of a Solo round to deal."""

    rules: RulesIn = msgspec.field(default_factory=Rules)


class DealOut(msgspec.Struct, frozen=True):
    """Fresh dice for a Solo round, and the token that binds them to their rules."""

    deal: Annotated[
        str,
        Meta(
            description="The deal's signed token: send it with the run to `POST /v1/analyze` "
            "(the full analysis) or `POST /v1/boxes` (`from_run`, a box of the round). "
            "Nothing is stored; keep it to resume the round."
        ),
    ]
    rules: Annotated[RulesOut, Meta(description="The round's rules.")]
    dice: Annotated[list[Roll], Meta(description=DICE)]
    expires_at: Annotated[
        datetime, Meta(description="When the deal stops being accepted (24 hours from now).")
    ]


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


class MovesRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A position and a roll, to list the sets the rules let the player close there."""

    open: OpenIn
    roll: Annotated[
        RollIn,
        Meta(description="The roll, [d1, d2], each 1..6 (with `dice: 1`, d1 is the die rolled)."),
    ]
    rules: RulesIn = msgspec.field(default_factory=Rules)
    dice: Annotated[
        Literal[1, 2] | None,
        Meta(
            description="The dice rolled: 1 (the roll's first die counts) or 2; null or left "
            "out: the dice the rules have the player roll here (one die where the rules make "
            "it a must, else two). Dice the rules do not allow here are 422."
        ),
    ] = None


class LegalMoves(msgspec.Struct, frozen=True):
    """Every set of tiles a roll lets the player close in a position, under the rules:
    what a client offers (and the tiles it dims) without coding the rules itself."""

    sets: Annotated[
        list[list[int]],
        Meta(
            description="Every legal set for the roll, each its tiles ascending, the sets "
            "closing the highest tiles first; empty: the roll closes nothing and the turn ends."
        ),
    ]
    tiles: Annotated[
        list[int],
        Meta(
            description="The tiles any of the sets uses, ascending: the open tiles of use on "
            "this roll (a client dims the others)."
        ),
    ]
    one_die_allowed: Annotated[
        bool,
        Meta(
            description="Whether the rules allow one die in this position (where they do, "
            "`one_die_choice` says whether the player may or must roll it)."
        ),
    ]


def dice_rolled(rules: Rules, open_tiles: OpenTiles, asked: int | None, field: str) -> int:
    """The dice a roll counts in this position: ``asked`` if the rules let the player roll
    that many here (else a 422 in the rules' own words, naming the request's ``field``);
    without it, the dice the rules have the player roll (one die where it is a must)."""
    choices = rules.dice_choices(open_tiles)
    if asked is None:
        return choices[0]  # the default first: two dice, or one where it is a must
    if asked in choices:
        return asked
    # As the replay refuses a move on these dice (``OneDieNotAllowed``, ``TwoDiceNotAllowed``).
    if asked == 1:
        raise problems.ONE_DIE_NOT_ALLOWED(f"{field}: {_(rules.one_die_variant.refusal)}")
    raise problems.TWO_DICE_NOT_ALLOWED(f"{field}: {_(rules.one_die_choice_variant.refusal)}")


def legal_moves(data: MovesRequest) -> LegalMoves:
    """``POST /v1/moves``: the legal sets of the position on the roll, as the rules say
    (``Rules.legal_sets``); nothing ranked, nothing solved."""
    rules = data.rules
    open_tiles = position(rules, data.open)
    dice = dice_rolled(rules, open_tiles, data.dice, "dice")
    sets = rules.legal_sets(open_tiles, data.roll, dice)
    return LegalMoves(
        sets=[list(tiles_of(s)) for s in sets],
        tiles=list(tiles_of(reduce(operator.or_, sets, 0))),
        one_die_allowed=rules.one_die_allowed(open_tiles),
    )


class Choice(msgspec.Struct, frozen=True):
    """One value a field of the rules object takes."""

    value: Annotated[str, Meta(description="The value, as the rules object takes it.")]
    description: Annotated[str, Meta(description="What it means. " + LOCALISED)]


class Variant(msgspec.Struct, frozen=True, kw_only=True):
    """One field of the rules object."""

    field: Annotated[str, Meta(description="The field's name in the rules object.")]
    default: Annotated[
        Any,
        Meta(
            description="Its value in the standard rules (null: `start`, all tiles open; "
            "`first_must_close`, `stop_on_total`: no such rule)."
        ),
    ]
    description: Annotated[str, Meta(description="What the field decides. " + LOCALISED)]
    choices: Annotated[
        list[Choice] | None,
        Meta(
            description="The values it takes, the default first; null: it takes a number or a "
            "list of tiles (`tiles`, `start`, `first_must_close`, `stop_on_total`)."
        ),
    ]
    minimum: Annotated[
        int | None,
        Meta(
            description="The lowest value of a number (`tiles`, `first_must_close`, "
            "`stop_on_total`); null for the rest."
        ),
    ]
    maximum: Annotated[
        int | None,
        Meta(
            description="The highest value of a number (`tiles`, `first_must_close`: a tile "
            "of the box, `stop_on_total`); null for the rest."
        ),
    ]


class StandardRules(msgspec.Struct, frozen=True):
    """The standard rules, every field given."""

    tiles: TileCount
    start: Annotated[list[int] | None, Meta(description=START)]
    one_die: OneDieField
    move_rule: MoveRuleField
    scoring: ScoringField
    total: TotalField
    one_die_choice: OneDieChoiceField
    first_must_close: Annotated[int | None, Meta(description=FIRST_MUST_CLOSE)]
    stop_on_total: Annotated[int | None, Meta(description=STOP_ON_TOTAL)]


class RulesCatalog(msgspec.Struct, frozen=True):
    """The rules object's fields, each with its values and default."""

    standard: Annotated[
        StandardRules, Meta(description="The default of every field: the standard game.")
    ]
    fields: Annotated[list[Variant], Meta(description="Every field of the rules object.")]
    series: Annotated[
        SeriesBounds,
        Meta(description="What a series takes besides its rules (`POST /v1/series`)."),
    ]


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


@cached("rules_catalogs", len(LANGUAGES))
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
                standard.tiles,
                None,
                standard.one_die,
                standard.move_rule,
                standard.scoring,
                standard.total,
                standard.one_die_choice,
                standard.first_must_close,
                standard.stop_on_total,
            ),
            fields=[
                variant("tiles", N_("Tiles 1..N on the box."), minimum=2, maximum=12),
                variant("start", N_("Tiles open at the start (default: all), e.g. 4..9.")),
                variant("one_die", N_("When you may roll one die.")),
                variant("move_rule", N_("Which tiles a roll lets you close.")),
                variant("scoring", N_("How the open tiles score (lower wins).")),
                variant("total", N_("What a roll counts as.")),
                variant(
                    "one_die_choice",
                    N_("Where one die is allowed, whether you may or must roll it."),
                ),
                variant(
                    "first_must_close",
                    N_(
                        'A tile your first move must close ("2 to go"); a first roll that '
                        "cannot close it ends the turn (default: none)."
                    ),
                    minimum=1,
                    maximum=12,
                ),
                variant(
                    "stop_on_total",
                    N_(
                        "A total that ends the turn when rolled, before it is played "
                        '("Unlucky 7"; default: none).'
                    ),
                    minimum=2,
                    maximum=12,
                ),
            ],
            series=SERIES_BOUNDS,
        )


_TILE_LIST: Final = r"^([1-9]|1[0-2])(,([1-9]|1[0-2])){0,11}$"
"""Tiles 1..12 in a query parameter, comma-separated."""


POSITION_AND_ROLL: Final = (
    problems.BODY,
    problems.NOT_A_TILE,
    problems.TILE_REPEATED,
    problems.ONE_DIE_NOT_ALLOWED,
    problems.TWO_DICE_NOT_ALLOWED,
)
"""What a request naming a position and a roll can be refused for (hint, moves)."""


class GameController(Controller):
    path = "/v1"
    tags = ["Game"]

    @post(
        "/analyze",
        opt={BEFORE_FRAMEWORK: ByBody(analyze_answer)},
        operation_id="analyzeRun",
        summary="Verify and analyse a run on dealt or given dice",
        description=(
            "Replays the moves on the dice under the rules, then measures the run. Nothing is "
            "stored. Easy is seeded from the dice. With `deal` (dice the service dealt, "
            "`POST /v1/deals`): the full analysis, hindsight included; a forged deal is 422 "
            "`bad-deal`, an expired one 422 `deal-expired`. With `dice` (and `rules`) the "
            "client brings: the analysis without foresight, `analysis.hindsight` false and "
            "the figures that know the later rolls null (PRODUCT.md §6b)."
        ),
        responses=documented(
            problems.BODY,
            problems.DEAL_OR_DICE,
            problems.BAD_DEAL,
            problems.DEAL_EXPIRED,
            problems.INVALID_DICE,
            problems.ILLEGAL_RUN,
            problems.SOLVED,
        ),
        status_code=200,
    )
    async def analyze(
        self, request: AnyRequest, data: JSONBody[AnalyzeRequest], services: ServicesDep
    ) -> RunResult:
        return await analyze_run(request.scope, data, services)

    @post(
        "/deals",
        operation_id="deal",
        summary="Deal a Solo round: fresh dice and a signed token",
        description=(
            "Fresh random dice for the rules (never a challenge's: not derived from the dice "
            "secret) and a token that binds them, valid 24 hours. Nothing is stored. The "
            "token brings the full analysis of the round (`POST /v1/analyze`) and makes one "
            "Friend Box of it (`POST /v1/boxes`, `from_run`)."
        ),
        responses=documented(problems.BODY, problems.LIMITED),
        status_code=201,
    )
    async def deal(self, data: JSONBody[NewDeal], services: ServicesDep) -> DealOut:
        made = deals.deal(data.rules, services.clock.now())
        return DealOut(
            deal=deals.token(services.deal_key, made),
            rules=rules_out(made.rules),
            dice=list(made.dice),
            expires_at=made.expires_at,
        )

    @post(
        "/hint",
        operation_id="hint",
        summary="Rank the choices of a position",
        description=(
            "With `roll` (two dice, or one die after choosing one): the legal sets ranked by "
            "shut chance, then expected score. Without it, where one die is allowed: whether "
            "to roll one die or two."
        ),
        responses=documented(*POSITION_AND_ROLL, problems.SOLVED),
        status_code=200,
    )
    async def hint(self, request: AnyRequest, data: JSONBody[HintRequest]) -> Hint:
        rules = data.rules
        open_tiles = position(rules, data.open)
        if data.roll is not None:
            dice_rolled(rules, open_tiles, len(data.roll), "roll")
        roll = tuple(data.roll) if data.roll is not None else None
        await held_tables(request.scope, rules)
        return hint(rules, open_tiles, roll)

    @post(
        "/moves",
        operation_id="legalMoves",
        summary="The legal sets of a roll",
        description=(
            "Every set of tiles the roll lets the player close in the position under the "
            "rules (every variant), and the tiles any of them uses: no ranking, no figures, "
            "allowed on any dice. With `dice: 1`, only the roll's first die counts."
        ),
        responses=documented(*POSITION_AND_ROLL, problems.LIMITED),
        status_code=200,
    )
    async def moves(self, data: JSONBody[MovesRequest]) -> LegalMoves:
        return legal_moves(data)

    @get(
        "/solution",
        operation_id="solution",
        summary="The exact solution of a position",
        description=(
            "Expected score under the expected-score optimum, the best shut chance, the hint "
            "policy's figures and the final-score distribution (probabilities as fractions). "
            "Every field of the rules object is a parameter of its name (`start` and `open` "
            "as comma-separated tiles); rules that do not fit together are 400, naming the field."
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
        total: FromQuery[Total] = "sum",
        one_die_choice: FromQuery[OneDieChoice] = "optional",
        first_must_close: Annotated[
            int | None, QueryParameter(ge=1, le=12, description=FIRST_MUST_CLOSE)
        ] = None,
        stop_on_total: Annotated[
            int | None, QueryParameter(ge=2, le=12, description=STOP_ON_TOTAL)
        ] = None,
        start: Annotated[
            str | None,
            QueryParameter(
                description="The tiles open when a turn begins, comma-separated (default: all): "
                "the position `open` defaults to, and the one `first_must_close` is about.",
                pattern=_TILE_LIST,
            ),
        ] = None,
        open: Annotated[
            str | None,
            QueryParameter(
                description="Open tiles, comma-separated (default: the start, `start`).",
                pattern=_TILE_LIST,
            ),
        ] = None,
    ) -> Solution:
        fields = {
            "tiles": tiles,
            "one_die": one_die,
            "move_rule": move_rule,
            "scoring": scoring,
            "total": total,
            "one_die_choice": one_die_choice,
            "first_must_close": first_must_close,
            "stop_on_total": stop_on_total,
            "start": [int(t) for t in start.split(",")] if start else None,  # 1..12: the pattern
        }
        try:
            rules = msgspec.convert(fields, Rules)
        except msgspec.ValidationError as error:  # fields that do not fit together
            raise problems.INVALID_REQUEST(str(error)) from None
        tiles_open = [int(t) for t in open.split(",")] if open else None  # 1..12: the pattern
        open_tiles = position(rules, tiles_open)
        await held_tables(request.scope, rules)
        return solution(rules, open_tiles)

    @get(
        "/rules",
        opt={NOT_LIMITED: True},  # the same catalogue for everyone
        operation_id="listRules",
        summary="The rules variants",
        description="Every field of the rules object with its choices, each described in a line.",
        responses=documented(),  # a strange query's and the proxy's answers only
    )
    async def rules(self) -> RulesCatalog:
        return catalog(current())
