"""Friend Boxes: a sequence behind a code, and one run per player per box."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Literal

import asyncpg
import msgspec

from service.codes import new_code
from service.rules import fairplay
from service.rules.dice import BOX_ALGORITHM, box_sequence_id, derive_box_dice
from service.rules.ruleset import Rules
from service.store import sequences
from service.store.cache import Cache
from service.store.db import QUERIES, Database, connection_of, row_as
from service.store.runs import Accepted, StoredRun, moves_digest, resubmission, stored_run
from service.store.sequences import IssuedSequence

Mode = Literal["blind", "target"]
_CODE_ATTEMPTS = 5


class Box(msgspec.Struct, frozen=True):
    code: str
    owner_id: uuid.UUID
    owner_name: str | None
    sequence_id: str
    players: int


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


async def create(
    database: Database,
    cache: Cache,
    secret: bytes,
    owner_id: uuid.UUID,
    rules: Rules,
    now: datetime,
) -> tuple[str, IssuedSequence]:
    """A new box with a fresh code and sequence (a clash of random codes is retried),
    its dice marked and indexed by their key (``service.rules.fairplay``): from its
    commit on, every process refuses to analyse them."""
    async with connection_of(database) as connection:
        for _ in range(_CODE_ATTEMPTS):
            code = new_code()
            sequence_id = box_sequence_id(code)
            dice = derive_box_dice(secret, sequence_id, rules)
            key = fairplay.stored_key(
                fairplay.deciding_key(dice, sums_only=fairplay.only_sums_matter(rules))
            )
            try:
                async with connection.transaction():
                    issued = await sequences.create(
                        connection, cache, sequence_id, rules, dice, BOX_ALGORITHM, now
                    )
                    if issued is None:
                        continue
                    if (
                        await connection.fetchval(
                            QUERIES.insert_box, code, owner_id, issued.id, now, key
                        )
                        is None
                    ):
                        raise _CodeTaken  # rolls the new sequence back too
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
        run_id = uuid.uuid4()
        body = respond(run_id)
        await connection.execute(
            QUERIES.insert_box_run,
            run_id,
            run.code,
            run.player_id,
            run.mode,
            run.moves,
            digest,
            run.score,
            run.shut,
            run.open_tiles,
            body.decode(),
            run.submitted_at,
        )
    return Accepted(created=True, body=body)


async def results(database: Database, code: str) -> list[asyncpg.Record]:
    return list(await database.fetch(QUERIES.box_results, code))
