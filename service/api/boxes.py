"""Friend Box: a player creates a box, plays it, and shares its code; friends play the
same dice blind (the owner's result hidden until their own run is in) or with the
owner's final position as the target."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Final, Literal
from urllib.parse import parse_qsl
from uuid import UUID

import msgspec
from litestar import Controller, Response, get, post
from litestar.params import JSONBody, PathParameter, QueryParameter
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
from service.api.game import DealToken, dealt
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
    RunResult,
    StoredRunResult,
    move_in,
    rules_out,
    run_result,
)
from service.api.tables import held_tables
from service.rules.analysis import report
from service.rules.dice import box_sequence_id
from service.rules.ruleset import Roll, Rules
from service.store import boxes, sequences
from service.store.boxes import Box, Mode, NewBoxRun, OwnersRun
from service.store.db import Connection, Database
from service.store.players import PlayerRow
from service.store.runs import AlreadyPlayed
from service.support import codes
from service.support.i18n import _

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
        Literal["win", "tie", "loss"],
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


async def find_box(database: Database, text: str) -> Box:
    code = problems.parsed_code(text)
    found = await boxes.box(database, code)
    if found is None:
        raise problems.UNKNOWN_BOX(_("There is no box {code}.", code=codes.display(code)))
    return found


def versus(score: int, owner_score: int) -> Versus:
    outcome: Literal["win", "tie", "loss"] = (
        "win" if score < owner_score else "tie" if score == owner_score else "loss"
    )
    return Versus(owner_score=owner_score, outcome=outcome)


def box_run(
    result: RunResult,
    code: str,
    player: PlayerRow,
    mode: Mode,
    now: datetime,
    owners: boxes.BoxRun | None,
) -> tuple[NewBoxRun, Callable[[UUID], bytes]]:
    """A player's run of a box as stored, and its answer for a run id (``versus`` the
    owner's run when there is one)."""
    new_run = NewBoxRun(
        code=code,
        player_id=player.id,
        mode=mode,
        moves=msgspec.to_builtins(result.moves),
        score=result.score,
        shut=result.shut,
        open_tiles=result.open,
        submitted_at=now,
    )

    def respond(run_id: UUID) -> bytes:
        extra: dict[str, Any] = {"run_id": str(run_id), "official": True}
        if owners is not None:
            extra["versus"] = versus(result.score, owners.run.score)
        return _encoder.encode(BoxRunResult(**msgspec.structs.asdict(result) | extra))

    return new_run, respond


async def owners_run(
    scope: Scope, data: FromRun, player: PlayerRow, services: Services
) -> OwnersRun:
    """The round a box is made of, if its deal is this service's and live (its moves are
    verified and analysed, as any box run's, once the box's code is drawn)."""
    if isinstance(data.deal, UnsetType):
        raise problems.NOT_DEALT(
            _(
                "A box is made only of a round played on dice the service dealt: deal the "
                "round first (POST /v1/deals), then send its deal with the moves."
            )
        )
    if not isinstance(data.dice, UnsetType):
        raise problems.DEAL_OR_DICE(_("A deal binds its dice: send `deal` without `dice`."))
    found = dealt(services, data.deal)
    moves = [move_in(m) for m in data.moves]
    await held_tables(scope, found.rules)

    def run_of_box(code: str) -> tuple[NewBoxRun, Callable[[UUID], bytes]]:
        sequence_id = box_sequence_id(code)
        result = run_result(report(found.rules, found.dice, moves, sequence_id), sequence_id)
        return box_run(result, code, player, "blind", services.clock.now(), None)

    return OwnersRun(
        deal_id=found.id,
        rules=found.rules,
        dice=found.dice,
        hints_used=None if isinstance(data.hints_used, UnsetType) else data.hints_used,
        played=run_of_box,
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
            database = connection or services.pool
            run = None
            rules = Rules() if isinstance(data.rules, UnsetType) else data.rules
            if not isinstance(data.from_run, UnsetType):
                if not isinstance(data.rules, UnsetType):
                    raise problems.DEAL_OR_DICE(
                        _("A deal binds its rules: send `from_run` without `rules`.")
                    )
                run = await owners_run(request.scope, data.from_run, player, services)
            try:
                code, issued = await boxes.create(
                    database,
                    services.cache,
                    services.settings.secret_bytes,
                    player.id,
                    run.rules if run is not None else rules,
                    services.clock.now(),
                    run,
                )
            except boxes.DealUsed as used:
                raise problems.DEAL_USED(
                    _("That round made box {code} already.", code=codes.display(used.code)),
                    problems.DealUsedMembers(code=used.code),
                ) from None
            created = CreatedBox(
                code=code,
                display_code=codes.display(code),
                rules=rules_out(issued.rules),
                dice=list(issued.dice),
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
        found = await find_box(services.pool, code)
        issued = await sequences.stored(services.pool, services.cache, found.sequence_id)
        assert issued is not None, "a box's sequence is stored with it"
        target: Target | UnsetType = UNSET
        viewer = await optional_player(request, services) if mode == "target" else None
        if viewer is not None:
            owners = await boxes.run_of(services.pool, found.code, found.owner_id)
            if owners is not None:
                target = Target(
                    open=owners.open_tiles, score=owners.run.score, hints_used=found.hints_used
                )
                # Seen once, the owner's result makes this player's run a target run.
                await boxes.record_target_view(services.pool, found.code, viewer.id)
        return BoxOut(
            code=found.code,
            display_code=codes.display(found.code),
            rules=rules_out(issued.rules),
            dice=list(issued.dice),
            owner=Owner(name=found.owner_name),
            players=found.players,
            target=target,
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
            database = connection or services.pool
            found = await find_box(database, code)
            issued = await sequences.stored(database, services.cache, found.sequence_id)
            assert issued is not None, "a box's sequence is stored with it"
            moves = [move_in(m) for m in data.moves]
            await held_tables(request.scope, issued.rules)
            result = run_result(report(issued.rules, issued.dice, moves, issued.id), issued.id)
            owners = (
                await boxes.run_of(database, found.code, found.owner_id)
                if player.id != found.owner_id
                else None
            )
            new_run, respond = box_run(
                result, found.code, player, data.mode, services.clock.now(), owners
            )
            try:
                accepted = await boxes.submit(database, new_run, respond)
            except AlreadyPlayed as played:
                raise problems.ALREADY_PLAYED(
                    _(
                        "You already played box {code}; your run stands.",
                        code=codes.display(found.code),
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
        self, player: PlayerDep, services: ServicesDep, code: CodePath
    ) -> Response[bytes]:
        found = await find_box(services.pool, code)
        played = await boxes.run_of(services.pool, found.code, player.id)
        if played is None:
            raise problems.NO_BOX_RUN(
                _("You have not played box {code} yet.", code=codes.display(found.code))
            )
        return Response(content=played.run.response, media_type=JSON)

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
        player: PlayerDep,
        services: ServicesDep,
        code: CodePath,
        limit: LimitQuery = RESULTS_PAGE,
        offset: OffsetQuery = 0,
    ) -> list[BoxResult]:
        found = await find_box(services.pool, code)
        if (
            player.id != found.owner_id
            and await boxes.run_of(services.pool, found.code, player.id) is None
        ):
            raise problems.RESULTS_HIDDEN(
                _("The results of a box are shown to its owner and to those who have played it."),
            )
        page = await boxes.results(services.pool, found.code, limit, offset)
        return [
            BoxResult(
                name=r["name"],
                score=r["score"],
                shut=r["shut"],
                mode=r["mode"],
                submitted_at=r["submitted_at"],
                place=place,
                me=r["player_id"] == player.id,
                owner=r["player_id"] == found.owner_id,
            )
            for r, place in zip(page.rows, page.places)
        ]
