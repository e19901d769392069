"""Friend Box, the use cases: make a box (fresh dice, or the dice of a Solo round the
owner has just played on a deal), show it, play it, list its results (PRODUCT.md §8).

Friends play a box blind (the owner's result hidden until their own run is in) or with
the owner's final position as the target. The rules of who sees what are here: the
target only to a player, in target mode, once the owner has played (and seen once, it
makes that player's run a target run); the results only to the owner and to those who
have played the box. The API decodes and renders; refusals are exceptions it maps.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, NamedTuple

from service.rules.analysis import Report, report
from service.rules.dice import box_sequence_id
from service.rules.replay import Move
from service.rules.ruleset import Rules, tiles_of
from service.store import boxes, sequences
from service.store.boxes import Box, NewBoxRun, OwnersRun
from service.store.boxes import DealUsed as DealUsed  # ``create``'s: one deal, one box
from service.store.boxes import Mode as Mode  # blind or target
from service.store.cache import Cache
from service.store.db import Database
from service.store.players import PlayerRow
from service.store.runs import Accepted
from service.store.sequences import IssuedSequence
from service.usecases import deals
from service.usecases.tables import HoldTables

Outcome = Literal["win", "tie", "loss"]


class BoxRefused(Exception):
    """A refusal about the box of ``code``."""

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(code)


class UnknownBox(BoxRefused):
    """No box has this code."""


class NoBoxRun(BoxRefused):
    """The player has not played the box."""


class ResultsHidden(Exception):
    """The results of a box are shown to its owner and to those who have played it."""


class Versus(NamedTuple):
    """A run against the owner's: the owner's score and this run's outcome."""

    owner_score: int
    outcome: Outcome


def versus(score: int, owner_score: int) -> Versus:
    """A run's outcome against the owner's: lower wins.

    >>> [versus(score, 7).outcome for score in (3, 7, 9)]
    ['win', 'tie', 'loss']
    """
    outcome: Outcome = "win" if score < owner_score else "tie" if score == owner_score else "loss"
    return Versus(owner_score, outcome)


class PlayedBox(NamedTuple):
    """A run of a box just verified, stored as ``run_id``: what its answer is made of
    (``versus``: against the owner's run, once the owner has played; None for the
    owner's own run)."""

    verified: Report
    sequence: str
    run_id: uuid.UUID
    versus: Versus | None


Respond = Callable[[PlayedBox], bytes]
"""The answer of a box run, made once and stored with it (the API's encoding)."""


class RunOfDeal(NamedTuple):
    """A round the owner has just played on a deal (``POST /v1/deals``): its token, its
    moves and the hints taken (None: not said)."""

    deal: str
    moves: Sequence[Move]
    hints_used: int | None


class Made(NamedTuple):
    """A box just made: its code and its sequence."""

    code: str
    issued: IssuedSequence


class Target(NamedTuple):
    """The owner's final position, for a friend in target mode to beat."""

    open: list[int]
    score: int
    hints_used: int | None


class Shown(NamedTuple):
    """A box as one caller sees it: the target only when ``show`` gives it."""

    box: Box
    issued: IssuedSequence
    target: Target | None


class Result(NamedTuple):
    """One player's run of a box, with its place on the box (ties share it)."""

    name: str | None
    score: int
    shut: bool
    mode: Mode
    submitted_at: datetime
    place: int
    me: bool
    owner: bool


def _new_run(
    verified: Report, code: str, player_id: uuid.UUID, mode: Mode, now: datetime
) -> NewBoxRun:
    run = verified.run
    return NewBoxRun(
        code=code,
        player_id=player_id,
        mode=mode,
        moves=[m.as_json() for m in run.moves],
        score=run.score,
        shut=run.shut,
        open_tiles=list(tiles_of(run.open_tiles)),
        submitted_at=now,
    )


def _answered(
    verified: Report, sequence: str, against: Versus | None, respond: Respond
) -> Callable[[uuid.UUID], bytes]:
    return lambda run_id: respond(PlayedBox(verified, sequence, run_id, against))


@dataclass(frozen=True)
class Boxes:
    """What the use cases of boxes reach: the database (a pool, or an idempotency key's
    connection), the cache, the dice secret, the deals' key; and of the request, the
    solver's tables it holds while it verifies a run (``hold``) and its moment (``now``)."""

    database: Database
    cache: Cache
    secret: bytes
    deal_key: bytes
    hold: HoldTables
    now: datetime

    async def find(self, code: str) -> Box:
        """The box of a canonical code (``codes.parse``); ``UnknownBox`` if none."""
        found = await boxes.box(self.database, code)
        if found is None:
            raise UnknownBox(code)
        return found

    async def _dice(self, found: Box) -> IssuedSequence:
        issued = await sequences.stored(self.database, self.cache, found.sequence_id)
        assert issued is not None, "a box's sequence is stored with it"
        return issued

    async def create(
        self,
        owner: PlayerRow,
        rules: Rules,
        of_deal: RunOfDeal | None,
        respond: Respond,
    ) -> Made:
        """A new box of fresh dice under ``rules``, or of a deal's rules and dice with
        the round the owner played on them as the owner's run (verified and analysed as
        any box run, once the box's code is drawn). Raises ``deals.BadDeal``,
        ``deals.DealExpired``, ``DealUsed`` (one deal makes one box), an ``IllegalRun``."""
        owners = None
        if of_deal is not None:
            found = deals.read(self.deal_key, of_deal.deal, self.now)
            rules = found.rules
            await self.hold(rules)

            def run_of_box(code: str) -> tuple[NewBoxRun, Callable[[uuid.UUID], bytes]]:
                sequence_id = box_sequence_id(code)
                verified = report(found.rules, found.dice, of_deal.moves, sequence_id)
                new_run = _new_run(verified, code, owner.id, "blind", self.now)
                return new_run, _answered(verified, sequence_id, None, respond)

            owners = OwnersRun(
                deal_id=found.id,
                rules=found.rules,
                dice=found.dice,
                hints_used=of_deal.hints_used,
                played=run_of_box,
            )
        code, issued = await boxes.create(
            self.database, self.cache, self.secret, owner.id, rules, self.now, owners
        )
        return Made(code, issued)

    async def show(
        self, code: str, viewer: Callable[[], Awaitable[PlayerRow | None]], mode: Mode
    ) -> Shown:
        """The box and its dice; in target mode, to a player (``viewer``, asked once the
        box is found), the owner's final position once the owner has played: seen once,
        it makes that player's run a target run."""
        found = await self.find(code)
        issued = await self._dice(found)
        target = None
        if mode == "target" and (player := await viewer()) is not None:
            owners = await boxes.run_of(self.database, found.code, found.owner_id)
            if owners is not None:
                target = Target(owners.open_tiles, owners.run.score, found.hints_used)
                await boxes.record_target_view(self.database, found.code, player.id)
        return Shown(found, issued, target)

    async def submit(
        self,
        code: str,
        player: PlayerRow,
        mode: Mode,
        moves: Sequence[Move],
        respond: Respond,
    ) -> Accepted:
        """Verify and store the player's run of a box: one run a player and box, the
        identical run again gives the stored answer, another raises ``AlreadyPlayed``.
        A player who has been shown the target plays a target run, whatever ``mode``
        says (the store decides). Raises ``UnknownBox``, an ``IllegalRun``."""
        found = await self.find(code)
        issued = await self._dice(found)
        await self.hold(issued.rules)
        verified = report(issued.rules, issued.dice, moves, issued.id)
        owners = (
            await boxes.run_of(self.database, found.code, found.owner_id)
            if player.id != found.owner_id
            else None
        )
        against = None if owners is None else versus(verified.run.score, owners.run.score)
        new_run = _new_run(verified, found.code, player.id, mode, self.now)
        return await boxes.submit(
            self.database, new_run, _answered(verified, issued.id, against, respond)
        )

    async def mine(self, code: str, player_id: uuid.UUID) -> bytes:
        """The answer of the player's run of a box, as it was stored; ``NoBoxRun``
        before they have played it."""
        found = await self.find(code)
        played = await boxes.run_of(self.database, found.code, player_id)
        if played is None:
            raise NoBoxRun(found.code)
        return played.run.response

    async def results(
        self, code: str, player_id: uuid.UUID, limit: int, offset: int
    ) -> list[Result]:
        """A page of everyone's runs of the box, best first; ``ResultsHidden`` unless the
        player owns the box or has played it."""
        found = await self.find(code)
        if (
            player_id != found.owner_id
            and await boxes.run_of(self.database, found.code, player_id) is None
        ):
            raise ResultsHidden(found.code)
        page = await boxes.results(self.database, found.code, limit, offset)
        return [
            Result(
                name=r["name"],
                score=r["score"],
                shut=r["shut"],
                mode=r["mode"],
                submitted_at=r["submitted_at"],
                place=place,
                me=r["player_id"] == player_id,
                owner=r["player_id"] == found.owner_id,
            )
            for r, place in zip(page.rows, page.places)
        ]
