"""Series: a game night over several rounds behind a code, its players' seats, its rounds
(each a sequence, with the computer seats' runs) and one run per player per round."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import msgspec

from service.store.db import QUERIES, Connection, Database, row_as
from service.store.runs import StoredRun, stored_run


class SeriesRow(msgspec.Struct, frozen=True):
    """A series as stored: its rules and format as plain data (``service.usecases.series`` reads
    them)."""

    code: str
    creator_id: uuid.UUID
    rules: dict[str, Any]
    format: dict[str, Any]
    shut_wins: bool
    computers: list[str]
    finished_at: datetime | None


class Seat(msgspec.Struct, frozen=True):
    """A player's seat in a series (0: the creator's)."""

    player_id: uuid.UUID
    name: str | None
    seat: int


class IssuedRound(msgspec.Struct, frozen=True):
    """A round issued: its sequence and the computer seats' scores on it."""

    round: int
    sequence_id: str
    computer_scores: list[int]


class RoundScore(msgspec.Struct, frozen=True):
    player_id: uuid.UUID
    round: int
    score: int


class NewRound(msgspec.Struct, frozen=True):
    """A round to issue: its sequence is stored first (``sequences.create``)."""

    code: str
    round: int
    sequence_id: str
    computer_moves: list[list[object]]
    computer_scores: list[int]
    issued_at: datetime


class NewSeriesRun(msgspec.Struct, frozen=True):
    code: str
    round: int
    player_id: uuid.UUID
    moves: list[object]
    moves_digest: bytes
    score: int
    shut: bool
    submitted_at: datetime


def _series(row: Any) -> SeriesRow:
    return SeriesRow(
        code=row["code"],
        creator_id=row["creator_id"],
        rules=row["rules"],
        format=row["format"],
        shut_wins=row["shut_wins"],
        computers=list(row["computers"]),
        finished_at=row["finished_at"],
    )


async def insert(
    connection: Connection,
    code: str,
    creator_id: uuid.UUID,
    rules: dict[str, object],
    format: dict[str, object],
    shut_wins: bool,
    computers: Sequence[str],
    now: datetime,
) -> bool:
    """A new series under ``code``, its creator in seat 0; False if the code is taken."""
    created = await connection.fetchval(
        QUERIES.insert_series, code, creator_id, rules, format, shut_wins, list(computers), now
    )
    if created is None:
        return False
    await add_player(connection, code, creator_id, 0, now)
    return True


async def series(database: Database, code: str) -> SeriesRow | None:
    row = await database.fetchrow(QUERIES.series, code)
    return None if row is None else _series(row)


async def locked(connection: Connection, code: str) -> SeriesRow | None:
    """The series, locked until the transaction ends (its joins and runs one at a time)."""
    row = await connection.fetchrow(QUERIES.lock_series, code)
    return None if row is None else _series(row)


async def seats(database: Database, code: str) -> list[Seat]:
    return [row_as(Seat, row) for row in await database.fetch(QUERIES.series_seats, code)]


async def add_player(
    connection: Connection, code: str, player_id: uuid.UUID, seat: int, now: datetime
) -> None:
    await connection.execute(QUERIES.insert_series_player, code, player_id, seat, now)


async def rounds(database: Database, code: str) -> list[IssuedRound]:
    """The rounds issued so far, in order (1, 2, ...)."""
    return [
        IssuedRound(
            round=row["round"],
            sequence_id=row["sequence_id"],
            computer_scores=list(row["computer_scores"]),
        )
        for row in await database.fetch(QUERIES.series_rounds, code)
    ]


async def insert_round(connection: Connection, new: NewRound) -> None:
    await connection.execute(
        QUERIES.insert_series_round,
        new.code,
        new.round,
        new.sequence_id,
        new.computer_moves,
        new.computer_scores,
        new.issued_at,
    )


async def scores(database: Database, code: str) -> list[RoundScore]:
    """Every player's score in every round played (16 seats and a bounded number of
    rounds at most)."""
    return [
        row_as(RoundScore, row) for row in await database.fetch(QUERIES.series_run_scores, code)
    ]


async def run_of(
    database: Database, code: str, round_number: int, player_id: uuid.UUID
) -> StoredRun | None:
    row = await database.fetchrow(QUERIES.series_run, code, round_number, player_id)
    return None if row is None else stored_run(row)


async def insert_run(
    connection: Connection, run: NewSeriesRun, run_id: uuid.UUID, response: bytes
) -> None:
    """Store a run with the body it was answered with (the caller holds the series'
    lock and has seen no run of the player's in that round)."""
    stored = await connection.fetchval(
        QUERIES.insert_series_run,
        run_id,
        run.code,
        run.round,
        run.player_id,
        run.moves,
        run.moves_digest,
        run.score,
        run.shut,
        response.decode(),
        run.submitted_at,
    )
    assert stored is not None, "one run per player per round, under the series' lock"


async def finish(connection: Connection, code: str, now: datetime) -> None:
    """The series' last round is complete: its rounds' dice leave play."""
    await connection.execute(QUERIES.finish_series, code, now)


class SeriesRows(msgspec.Struct, frozen=True):
    """A series' rows: what its state is made of (``service.usecases.series.state_of``)."""

    row: SeriesRow
    seats: list[Seat]
    rounds: list[IssuedRound]
    scores: list[RoundScore]


async def codes_of_player(
    database: Database, player_id: uuid.UUID, status: str | None, limit: int, offset: int
) -> list[str]:
    """The codes of a page of the series the player is in, newest first; only those of
    ``status`` unless it is None."""
    rows = await database.fetch(QUERIES.series_of_player, player_id, status, limit, offset)
    return [row["code"] for row in rows]


async def many(database: Database, codes: Sequence[str]) -> dict[str, SeriesRows]:
    """The rows of each series of ``codes`` (a page: four queries, whatever its size)."""
    found = {
        row["code"]: SeriesRows(row=_series(row), seats=[], rounds=[], scores=[])
        for row in await database.fetch(QUERIES.series_by_codes, list(codes))
    }
    for row in await database.fetch(QUERIES.series_seats_by_codes, list(codes)):
        found[row["series_code"]].seats.append(row_as(Seat, row))
    for row in await database.fetch(QUERIES.series_rounds_by_codes, list(codes)):
        found[row["series_code"]].rounds.append(
            IssuedRound(
                round=row["round"],
                sequence_id=row["sequence_id"],
                computer_scores=list(row["computer_scores"]),
            )
        )
    for row in await database.fetch(QUERIES.series_run_scores_by_codes, list(codes)):
        found[row["series_code"]].scores.append(row_as(RoundScore, row))
    return found
