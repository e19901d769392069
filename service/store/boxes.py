"""Friend Boxes: a sequence behind a code, and one run per player per box."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import asyncpg
import msgspec

from service.rules.dice import ALGORITHM, box_sequence_id, derive_dice
from service.rules.ruleset import Roll, Rules
from service.store import sequences
from service.store.cache import Cache
from service.store.db import QUERIES, Connection, Database, connection_of, row_as
from service.store.runs import Accepted, StoredRun, moves_digest, resubmission, stored_run
from service.store.sequences import IssuedSequence
from service.support.codes import new_code
from service.support.places import page_places

Mode = Literal["blind", "target"]
RUN_ALGORITHM = "player-run"
"""A box sequence of the dice of a round its owner played (not derived: dealt)."""
_CODE_ATTEMPTS = 5


class Box(msgspec.Struct, frozen=True):
    code: str
    owner_id: uuid.UUID
    owner_name: str | None
    sequence_id: str
    players: int
    hints_used: int | None


class BoxRun(msgspec.Struct, frozen=True):
    """A run of a box as stored, with the owner-facing details friends may compare to."""

    run: StoredRun
    mode: Mode
    open_tiles: list[int]


class NewBoxRun(msgspec.Struct, frozen=True):
    code: str
    player_id: uuid.UUID
    mode: Mode
    moves: list[object]
    score: int
    shut: bool
    open_tiles: list[int]
    submitted_at: datetime


@dataclass(frozen=True)
class OwnersRun:
    """A box of a round its owner played on a deal: the deal's id and dice, the hints the
    owner took, and the run as the box's run of the owner, for a code (``played(code)``:
    the run and its response body for a run id; raises the run's ``IllegalRun``)."""

    deal_id: uuid.UUID
    rules: Rules
    dice: tuple[Roll, ...]
    hints_used: int | None
    played: Callable[[str], tuple[NewBoxRun, Callable[[uuid.UUID], bytes]]]


class DealUsed(Exception):
    """The deal has made a box already: ``code``."""

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(f"the deal made box {code}")


async def create(
    database: Database,
    cache: Cache,
    secret: bytes,
    owner_id: uuid.UUID,
    rules: Rules,
    now: datetime,
    owners_run: OwnersRun | None = None,
) -> tuple[str, IssuedSequence]:
    """A new box with a fresh code and sequence (a clash of random codes is retried):
    fresh dice derived from the secret, or the dice of an ``owners_run``, stored with the
    run as the owner's in one transaction. Raises ``DealUsed`` when the run's deal made a
    box already."""
    async with connection_of(database) as connection:
        for _ in range(_CODE_ATTEMPTS):
            code = new_code()
            sequence_id = box_sequence_id(code)
            if owners_run is None:
                dice, algorithm = derive_dice(secret, sequence_id, rules.rolls), ALGORITHM
            else:
                dice, algorithm = owners_run.dice, RUN_ALGORITHM
                run, respond = owners_run.played(code)
            try:
                async with connection.transaction():
                    issued = await sequences.create(
                        connection, cache, sequence_id, rules, dice, algorithm, now
                    )
                    if issued is None:
                        continue
                    if owners_run is None:
                        inserted = await connection.fetchval(
                            QUERIES.insert_box, code, owner_id, issued.id, now
                        )
                    else:
                        inserted = await connection.fetchval(
                            QUERIES.insert_box_of_deal,
                            code,
                            owner_id,
                            issued.id,
                            now,
                            owners_run.deal_id,
                            owners_run.hints_used,
                        )
                    if inserted is None:
                        if owners_run is not None:
                            made = await connection.fetchval(
                                QUERIES.box_of_deal, owners_run.deal_id
                            )
                            if made is not None:
                                raise DealUsed(made)  # rolls the new sequence back too
                        raise _CodeTaken  # rolls the new sequence back too
                    if owners_run is not None:
                        await _insert_run(connection, run, respond)
                    return code, issued
            except _CodeTaken:
                continue
    raise RuntimeError("no free box code after several attempts")


class _CodeTaken(Exception):
    """A box holds the code already (its sequence was free: a box without one)."""


async def box(database: Database, code: str) -> Box | None:
    row = await database.fetchrow(QUERIES.box, code)
    if row is None:
        return None
    return row_as(Box, row)


async def run_of(database: Database, code: str, player_id: uuid.UUID) -> BoxRun | None:
    row = await database.fetchrow(QUERIES.box_run, code, player_id)
    if row is None:
        return None
    return BoxRun(run=stored_run(row), mode=row["mode"], open_tiles=list(row["open_tiles"]))


async def record_target_view(database: Database, code: str, player_id: uuid.UUID) -> None:
    """The player was shown the owner's result: their run of the box is a target run."""
    await database.execute(QUERIES.record_target_view, code, player_id)


async def submit(
    database: Database, run: NewBoxRun, respond: Callable[[uuid.UUID], bytes]
) -> Accepted:
    """Store the player's run of the box, unless one is stored: the identical run again
    gives the stored body; another run raises ``AlreadyPlayed``."""
    digest = moves_digest(run.moves)
    async with connection_of(database) as connection, connection.transaction():
        await connection.execute(QUERIES.lock_player, run.player_id)
        row = await connection.fetchrow(QUERIES.box_run, run.code, run.player_id)
        again = resubmission(None if row is None else stored_run(row), digest)
        if again is not None:
            return again
        body = await _insert_run(connection, run, respond)
    return Accepted(created=True, body=body)


async def _insert_run(
    connection: Connection, run: NewBoxRun, respond: Callable[[uuid.UUID], bytes]
) -> bytes:
    run_id = uuid.uuid4()
    body = respond(run_id)
    await connection.execute(
        QUERIES.insert_box_run,
        run_id,
        run.code,
        run.player_id,
        run.mode,
        run.moves,
        moves_digest(run.moves),
        run.score,
        run.shut,
        run.open_tiles,
        body.decode(),
        run.submitted_at,
    )
    return body


class ResultsPage(msgspec.Struct, frozen=True):
    """A page of a box's results, best first, with the places the whole board gives them."""

    rows: list[asyncpg.Record]
    places: list[int]


async def results(database: Database, code: str, limit: int, offset: int) -> ResultsPage:
    """``limit`` results of box ``code`` after the first ``offset``, best first."""
    rows = list(await database.fetch(QUERIES.box_results, code, limit, offset))
    scores = [row["score"] for row in rows]
    lower = 0
    if offset and rows:  # the first page needs no count: nothing came before it
        lower = await database.fetchval(QUERIES.box_runs_scoring_below, code, scores[0])
    return ResultsPage(rows, page_places(scores, offset, lower))
