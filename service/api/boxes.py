"""Friend Box: a player creates a box, plays it, and shares its code; friends play the
same dice blind (the owner's result hidden until their own run is in) or with the
owner's final position as the target."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Final
from urllib.parse import parse_qsl

import msgspec
from litestar import Controller, Response, get, post
from litestar.params import JSONBody, PathParameter, QueryParameter
from litestar.plugins.problem_details import ProblemDetailsException
from litestar.types import Scope
from msgspec import UNSET, Meta, UnsetType

from service.api import problems
from service.api.deps import (
    BEARER,
    MAYBE_BEARER,
    AnyRequest,
    PlayerDep,
    Services,
    ServicesDep,
    optional_player,
)
from service.api.document import created, documented, resubmitted
from service.api.front.ratelimit import OWN_LIMIT, STORES, stores_for_a_player
from service.api.game import DealToken, deal_problem
from service.api.idempotency import JSON, respond_once
from service.api.schemas import (
    CODE_TEXT,
    DICE,
    NAME,
    SCORE,
    SHUT,
    DiceIn,
    LimitQuery,
    MovesIn,
    OffsetQuery,
    RulesIn,
    RulesOut,
    StoredRunResult,
    move_in,
    rules_out,
    run_result,
)
from service.api.tables import holding
from service.rules.ruleset import Roll, Rules
from service.store.db import Connection, Database
from service.store.runs import AlreadyPlayed
from service.support import codes
from service.support.i18n import _
from service.usecases import boxes as use_cases
from service.usecases import deals
from service.usecases.boxes import Mode, Outcome

# Read by problems.parsed_code, which answers 400 invalid-code or mistyped-code.
CodePath = Annotated[
    str,
    PathParameter(
        description="A box code, e.g. 7M3Q-K2ZD2 (any case, spaces and hyphens)",
        schema_extra=CODE_TEXT,
    ),
]


class FromRun(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A round the player has just played on dealt dice (a Solo round): its deal, its
    moves and the hints taken."""

    deal: (
        Annotated[
            DealToken,
            Meta(
                description="The round's deal (`POST /v1/deals`): its rules and dice. Left "
                "out: 422 `not-dealt`."
            ),
        ]
        | UnsetType
    ) = UNSET
    dice: (
        Annotated[
            DiceIn,
            Meta(
                description="Not accepted: a box is made only of dice the service dealt "
                "(PRODUCT.md §6b). Dice without a `deal` are 422 `not-dealt`."
            ),
        ]
        | UnsetType
    ) = UNSET
    moves: MovesIn
    hints_used: (
        Annotated[
            int,
            Meta(
                ge=0,
                le=1000,
                description="The hints the player took on the round: shown with the box's "
                "target. Left out: not said.",
            ),
        ]
        | UnsetType
    ) = UNSET


class NewBox(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A box to make: fresh dice under these rules, or the dice of a round the player has
    played on a deal, that run being the owner's."""

    rules: (
        Annotated[RulesIn, Meta(description="The box's rules (not with `from_run`).")] | UnsetType
    ) = UNSET
    from_run: (
        Annotated[
            FromRun,
            Meta(
                description="A round the player has just played on a deal, and its moves: the "
                "box has the deal's rules and dice, and that run is the owner's run of it. One "
                "deal makes one box (409 `deal-used` naming it); a forged deal is 422 "
                "`bad-deal`, an expired one 422 `deal-expired`."
            ),
        ]
        | UnsetType
    ) = UNSET


class Owner(msgspec.Struct, frozen=True):
    """The player who made the box."""

    name: Annotated[str | None, Meta(description=NAME)]


class Target(msgspec.Struct, frozen=True):
    """The owner's final position: what a friend in target mode tries to beat."""

    open: Annotated[
        list[int], Meta(description="The owner's tiles left open, ascending; empty: shut.")
    ]
    score: Annotated[int, Meta(description="The owner's score: lower is better.")]
    hints_used: Annotated[
        int | None,
        Meta(
            description="The hints the owner took on the round the box was made of (a box "
            "of a Solo round, `from_run`); null: a box of fresh dice, or not said."
        ),
    ]


_CODE: Final = "The box code: 8 symbols and a check symbol (Crockford base32), e.g. 7M3QK2ZD2."
_DISPLAY_CODE: Final = "The code as people read and type it, grouped: e.g. 7M3Q-K2ZD2."
_RULES: Final = "The box's rules."
_OWNER: Final = "Who made the box."


class CreatedBox(msgspec.Struct, frozen=True):
    """A new box: its code to share, and its dice."""

    code: Annotated[str, Meta(description=_CODE)]
    display_code: Annotated[str, Meta(description=_DISPLAY_CODE)]
    rules: Annotated[RulesOut, Meta(description=_RULES)]
    dice: Annotated[list[Roll], Meta(description=DICE)]
    owner: Annotated[Owner, Meta(description=_OWNER)]


class BoxOut(msgspec.Struct, frozen=True, omit_defaults=True):
    """A box as anyone with its code sees it."""

    code: Annotated[str, Meta(description=_CODE)]
    display_code: Annotated[str, Meta(description=_DISPLAY_CODE)]
    rules: Annotated[RulesOut, Meta(description=_RULES)]
    dice: Annotated[list[Roll], Meta(description=DICE)]
    owner: Annotated[Owner, Meta(description=_OWNER)]
    players: Annotated[
        int, Meta(description="How many players have played the box (the owner among them).")
    ]
    target: (
        Annotated[
            Target,
            Meta(
                description="The owner's result to beat: only in target mode, to an "
                "authenticated player, once the owner has played. Absent otherwise."
            ),
        ]
        | UnsetType
    ) = UNSET


class BoxRunSubmission(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The player's run of a box."""

    moves: MovesIn
    mode: Annotated[
        Mode,
        Meta(
            description="`blind`: without seeing the owner's result; `target`: against it. A "
            "player who has been shown the target plays a target run, whatever this says."
        ),
    ] = "blind"


class Versus(msgspec.Struct, frozen=True):
    """The run against the owner's."""

    owner_score: Annotated[int, Meta(description="The owner's score on the box.")]
    outcome: Annotated[
        Outcome,
        Meta(
            description="This run's: `win` a lower score than the owner's, `tie` the same, "
            "`loss` a higher one."
        ),
    ]


class BoxRunResult(StoredRunResult, frozen=True, kw_only=True, omit_defaults=True):
    """A player's run of a box, verified and analysed."""

    versus: (
        Annotated[
            Versus,
            Meta(
                description="The run against the owner's, once the owner has played; absent "
                "for the owner's own run and before the owner has played."
            ),
        ]
        | UnsetType
    ) = UNSET


class BoxResult(msgspec.Struct, frozen=True):
    """One player's run of a box."""

    name: Annotated[str | None, Meta(description=NAME)]
    score: Annotated[int, Meta(description=SCORE)]
    shut: Annotated[bool, Meta(description=SHUT)]
    mode: Annotated[
        Mode,
        Meta(
            description="`target` when the player had been shown the owner's result, else `blind`."
        ),
    ]
    submitted_at: Annotated[datetime, Meta(description="When the run was stored.")]
    place: Annotated[
        int,
        Meta(
            description="The place on this box: 1 + the runs with a better score (the same "
            "score, the same place: 1, 1, 3)."
        ),
    ]
    me: Annotated[bool, Meta(description="Whether this is the caller's own run.")]
    owner: Annotated[bool, Meta(description="Whether this is the box owner's run.")]


def code_of(text: str) -> str:
    """The canonical box code a path names, else 400."""
    return problems.parsed_code(text)


def refused(error: Exception) -> ProblemDetailsException:
    """The problem of a use case's refusal."""
    if isinstance(error, use_cases.UnknownBox):
        return problems.UNKNOWN_BOX(_("There is no box {code}.", code=codes.display(error.code)))
    if isinstance(error, use_cases.NoBoxRun):
        return problems.NO_BOX_RUN(
            _("You have not played box {code} yet.", code=codes.display(error.code))
        )
    if isinstance(error, use_cases.ResultsHidden):
        return problems.RESULTS_HIDDEN(
            _("The results of a box are shown to its owner and to those who have played it."),
        )
    if isinstance(error, use_cases.DealUsed):
        return problems.DEAL_USED(
            _("That round made box {code} already.", code=codes.display(error.code)),
            problems.DealUsedMembers(code=error.code),
        )
    if isinstance(error, deals.BadDeal | deals.DealExpired):
        return deal_problem(error)
    raise error


REFUSALS: Final = (
    use_cases.UnknownBox,
    use_cases.NoBoxRun,
    use_cases.ResultsHidden,
    use_cases.DealUsed,
    deals.BadDeal,
    deals.DealExpired,
)


def of_deal(data: FromRun) -> use_cases.RunOfDeal:
    """The round a box is to be made of, as sent: its deal, never dice of the client's."""
    if isinstance(data.deal, UnsetType):
        raise problems.NOT_DEALT(
            _(
                "A box is made only of a round played on dice the service dealt: deal the "
                "round first (POST /v1/deals), then send its deal with the moves."
            )
        )
    if not isinstance(data.dice, UnsetType):
        raise problems.DEAL_OR_DICE(_("A deal binds its dice: send `deal` without `dice`."))
    hints = None if isinstance(data.hints_used, UnsetType) else data.hints_used
    return use_cases.RunOfDeal(data.deal, [move_in(m) for m in data.moves], hints)


def box_run_result(played: use_cases.PlayedBox) -> bytes:
    """A box run's answer, encoded (``versus`` once the owner has played)."""
    extra: dict[str, Any] = {"run_id": str(played.run_id), "official": True}
    if played.versus is not None:
        extra["versus"] = Versus(**played.versus._asdict())
    result = run_result(played.verified, played.sequence)
    return _encoder.encode(BoxRunResult(**msgspec.structs.asdict(result) | extra))


def boxes_of(services: Services, scope: Scope, database: Database | None = None) -> use_cases.Boxes:
    """The use cases of boxes for a request, on ``database`` (an idempotency key's
    connection) or the pool."""
    return use_cases.Boxes(
        database or services.pool,
        services.cache,
        services.settings.secret_bytes,
        services.deal_key,
        holding(scope),
        services.clock.now(),
    )


_encoder = msgspec.json.Encoder()
RESULTS_PAGE: Final = 100  # the results of a box a page shows at once (LimitQuery's most)


def target_seen(scope: Scope) -> str | None:
    """``GET /v1/boxes/{code}``'s own limit: in target mode, for a player, it stores that
    the player saw the owner's result (a row a box and player): ``STORES``."""
    query = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
    return stores_for_a_player(scope) if ("mode", "target") in query else None


class BoxesController(Controller):
    path = "/v1/boxes"
    tags = ["Friend Box"]

    @post(
        "/",
        opt={OWN_LIMIT: STORES},  # SHUTBOX_RATE_LIMIT_STORES: a box and its dice a request
        operation_id="createBox",
        summary="Create a Friend Box",
        description=(
            "A fresh sequence under any rules variant (standard by default) behind a code to "
            "share. The owner plays it like anyone else. With `from_run`, a box of a round the "
            "player has just played on a deal (`POST /v1/deals`), that run (verified and "
            "analysed as any box run) being the owner's: one deal makes one box (409 "
            "`deal-used`), a forged or expired deal is 422, an illegal run 422. Honours "
            "Idempotency-Key. Counts against the client address's limit of requests that "
            "store (429)."
        ),
        security=BEARER,
        responses={
            **documented(
                problems.CREATING,
                problems.AUTHENTICATED,
                problems.BAD_DEAL,
                problems.DEAL_EXPIRED,
                problems.DEAL_USED,
                problems.DEAL_OR_DICE,
                problems.NOT_DEALT,
                problems.ILLEGAL_RUN,
                problems.SOLVER_BUSY,
            ),
            201: created(CreatedBox, "The box"),
        },
        status_code=201,
    )
    async def create(
        self, request: AnyRequest, data: JSONBody[NewBox], player: PlayerDep, services: ServicesDep
    ) -> Response[bytes]:
        async def produce(connection: Connection | None) -> tuple[int, bytes]:
            deal = None
            rules = Rules() if isinstance(data.rules, UnsetType) else data.rules
            if not isinstance(data.from_run, UnsetType):
                if not isinstance(data.rules, UnsetType):
                    raise problems.DEAL_OR_DICE(
                        _("A deal binds its rules: send `from_run` without `rules`.")
                    )
                deal = of_deal(data.from_run)
            try:
                made = await boxes_of(services, request.scope, connection).create(
                    player, rules, deal, box_run_result
                )
            except REFUSALS as refusal:
                raise refused(refusal) from None
            created = CreatedBox(
                code=made.code,
                display_code=codes.display(made.code),
                rules=rules_out(made.issued.rules),
                dice=list(made.issued.dice),
                owner=Owner(name=player.name),
            )
            return 201, _encoder.encode(created)

        return await respond_once(request, services, f"player:{player.id}", produce)

    @get(
        "/{code:str}",
        opt={OWN_LIMIT: target_seen},  # SHUTBOX_RATE_LIMIT_STORES: in target mode
        operation_id="getBox",
        summary="A box: its rules and dice, and in target mode the owner's final position",
        description=(
            "Blind mode shows nothing of the owner's result. Target mode shows the owner's "
            "final open tiles and score once the owner has played, and only to an "
            "authenticated player, whose run of the box is a target run from then on, "
            "whatever mode it names (a request in target mode with a token counts against the "
            "client address's limit of requests that store: 429). A code whose check "
            "symbol fails is 400 (mistyped); an unknown code is 404."
        ),
        security=MAYBE_BEARER,
        responses=documented(problems.INVALID_REQUEST, problems.BOX_CODE, problems.AUTHENTICATED),
    )
    async def get_box(
        self,
        request: AnyRequest,
        services: ServicesDep,
        code: CodePath,
        mode: Annotated[Mode, QueryParameter(description="blind (default) or target")] = "blind",
    ) -> BoxOut:
        canonical = code_of(code)
        try:
            shown = await boxes_of(services, request.scope).show(
                canonical, lambda: optional_player(request, services), mode
            )
        except REFUSALS as refusal:
            raise refused(refusal) from None
        found, issued, target = shown
        return BoxOut(
            code=found.code,
            display_code=codes.display(found.code),
            rules=rules_out(issued.rules),
            dice=list(issued.dice),
            owner=Owner(name=found.owner_name),
            players=found.players,
            target=UNSET if target is None else Target(**target._asdict()),
        )

    @post(
        "/{code:str}/runs",
        opt={OWN_LIMIT: STORES},  # SHUTBOX_RATE_LIMIT_STORES: a run a request
        operation_id="submitBoxRun",
        summary="Submit the player's run of a box",
        description=(
            "Verified, scored and analysed on the box's dice and rules. One run per player "
            "per box: the identical run again is 200 with the same body, another run 409. "
            "`versus` compares with the owner's score once the owner has played. Honours "
            "Idempotency-Key. Counts against the client address's limit of requests that "
            "store (429)."
        ),
        security=BEARER,
        responses={
            **documented(
                problems.CREATING,
                problems.AUTHENTICATED,
                problems.BOX_CODE,
                problems.ALREADY_PLAYED,
                problems.ILLEGAL_RUN,
                problems.SOLVER_BUSY,
            ),
            201: created(BoxRunResult, "The run, verified and analysed"),
            200: resubmitted(BoxRunResult),
        },
        status_code=201,
    )
    async def submit(
        self,
        request: AnyRequest,
        data: JSONBody[BoxRunSubmission],
        player: PlayerDep,
        services: ServicesDep,
        code: CodePath,
    ) -> Response[bytes]:
        async def produce(connection: Connection | None) -> tuple[int, bytes]:
            canonical = code_of(code)
            moves = [move_in(m) for m in data.moves]
            try:
                accepted = await boxes_of(services, request.scope, connection).submit(
                    canonical, player, data.mode, moves, box_run_result
                )
            except REFUSALS as refusal:
                raise refused(refusal) from None
            except AlreadyPlayed as played:
                raise problems.ALREADY_PLAYED(
                    _(
                        "You already played box {code}; your run stands.",
                        code=codes.display(canonical),
                    ),
                    problems.AlreadyPlayedMembers(official_run_id=str(played.official_id)),
                ) from None
            return (201 if accepted.created else 200), accepted.body

        return await respond_once(request, services, f"player:{player.id}", produce)

    @get(
        "/{code:str}/runs/me",
        operation_id="getMyBoxRun",
        summary="The player's run of a box, as it was answered when stored",
        description="The body of the run's 201, the same bytes on every device; 404 before "
        "the player has played the box.",
        security=BEARER,
        responses={
            **documented(problems.BOX_CODE, problems.NO_BOX_RUN, problems.AUTHENTICATED),
            200: created(BoxRunResult, "The player's run of the box"),
        },
    )
    async def mine(
        self, request: AnyRequest, player: PlayerDep, services: ServicesDep, code: CodePath
    ) -> Response[bytes]:
        try:
            body = await boxes_of(services, request.scope).mine(code_of(code), player.id)
        except REFUSALS as refusal:
            raise refused(refusal) from None
        return Response(content=body, media_type=JSON)

    @get(
        "/{code:str}/results",
        operation_id="getBoxResults",
        summary="Everyone's result on a box, best first",
        description="For the owner and for players who have played the box; otherwise 403. "
        f"{RESULTS_PAGE} at a time: page on with `offset` set to the number of results read.",
        security=BEARER,
        responses=documented(
            problems.INVALID_REQUEST,
            problems.BOX_CODE,
            problems.RESULTS_HIDDEN,
            problems.AUTHENTICATED,
        ),
    )
    async def results(
        self,
        request: AnyRequest,
        player: PlayerDep,
        services: ServicesDep,
        code: CodePath,
        limit: LimitQuery = RESULTS_PAGE,
        offset: OffsetQuery = 0,
    ) -> list[BoxResult]:
        try:
            page = await boxes_of(services, request.scope).results(
                code_of(code), player.id, limit, offset
            )
        except REFUSALS as refusal:
            raise refused(refusal) from None
        return [BoxResult(**result._asdict()) for result in page]
