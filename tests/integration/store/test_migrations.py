"""A run stored before the compact rows still renders: migration 6 keeps the rank and
streak its stored answer showed, and the answer is rendered again with today's struct."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import secrets
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import asyncpg
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.store.db import MigrationEdited, functions, migrate, migrations
from service.support.clock import FixedClock
from service.support.settings import Settings
from tests.conftest import app_with, own_database
from tests.integration.api.helpers import auth, daily_dice, new_player
from tests.runs import legal_runs

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
DAY = "2026-11-29"
COMPACT = 6  # the migration that stores runs compactly


@pytest.fixture
def fresh_database() -> Iterator[str]:
    with own_database("shutbox_migrate") as url:
        yield url


@pytest.fixture
async def today_answer(settings: Settings) -> AsyncIterator[tuple[dict[str, object], list[object]]]:
    """A run of today as the service answers it now (in the session's database)."""
    async with AsyncTestClient(create_app(settings, FixedClock(NOW))) as client:
        player = await new_player(client)
        moves = legal_runs(await daily_dice(client, DAY), 3)[2]
        response = await client.post(
            f"/v1/daily/{DAY}/runs", json={"moves": moves}, headers=auth(player)
        )
        assert response.status_code == 201
        yield response.json(), moves


async def test_a_run_stored_in_the_old_shape_renders_after_migrating(
    fresh_database: str,
    settings: Settings,
    today_answer: tuple[dict[str, object], list[object]],
) -> None:
    answer, moves = today_answer
    token = secrets.token_urlsafe(32)
    connection = await asyncpg.connect(fresh_database)
    try:
        # The schema as it was before the compact rows, with a run stored as it was then:
        # its whole answer kept as JSON.
        await connection.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for migration in migrations()[: COMPACT - 1]:
            await connection.execute(migration.sql)
            await connection.execute(
                "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                migration.version,
                migration.name,
            )
        player_id = await connection.fetchval(
            "INSERT INTO players (id, time_zone, token_hash, created_at) "
            "VALUES (gen_random_uuid(), 'UTC', $1, $2) RETURNING id",
            hashlib.sha256(token.encode()).digest(),
            NOW,
        )
        dice = [d for roll in answer["dice"] for d in roll]  # type: ignore[attr-defined]
        await connection.execute(
            "INSERT INTO sequences (id, rules, dice, algorithm, issued_at) "
            "VALUES ($1, '{}'::jsonb, $2, 'hmac-sha256-v1', $3)",
            f"daily/{DAY}",
            dice,
            NOW,
        )
        await connection.execute(
            "INSERT INTO daily_runs (id, player_id, day, sequence_id, moves, moves_digest, score,"
            " shut, best_possible, response, submitted_at) VALUES ($1, $2, $3, $4, $5::jsonb,"
            " $6, $7, $8, $9, $10::json, $11)",
            answer["run_id"],
            player_id,
            datetime.fromisoformat(DAY).date(),
            f"daily/{DAY}",
            json.dumps(answer["moves"]),
            hashlib.sha256(msgspec.json.encode(answer["moves"])).digest(),
            answer["score"],
            answer["shut"],
            answer["analysis"]["best_possible"],  # type: ignore[index]
            json.dumps(answer),
            NOW,
        )
        assert await migrate(connection) == list(range(COMPACT, len(migrations()) + 1))
    finally:
        await connection.close()

    async with app_with(settings, database_url=fresh_database) as client:  # nothing cached
        headers = {"Authorization": f"Bearer {token}"}
        again = await client.post(f"/v1/daily/{DAY}/runs", json={"moves": moves}, headers=headers)
        assert again.status_code == 200, again.text
        assert again.json() == answer  # the answer it was first given, rendered anew
        mine = await client.get(f"/v1/daily/{DAY}/runs/me", headers=headers)
        assert mine.status_code == 200
        shown = mine.json()
        assert shown["rank"] == {"position": 1, "players": 1, "percentile": 0.0}
        assert {k: v for k, v in shown.items() if k not in ("rank", "streak")} == {
            k: v for k, v in answer.items() if k not in ("rank", "streak")
        }
        board = await client.get(f"/v1/daily/{DAY}/leaderboard", headers=headers)
        assert board.json()["histogram"] == {str(answer["score"]): 1}


async def test_an_applied_migration_that_was_edited_is_refused(
    fresh_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each applied migration keeps its checksum: the same text again applies nothing,
    an edited one stops the start-up, naming it; a database migrated before checksums
    were kept gets them."""
    connection = await asyncpg.connect(fresh_database)
    try:
        assert await migrate(connection) == [m.version for m in migrations()]
        assert await migrate(connection) == []
        kept = await connection.fetchval("SELECT checksum FROM schema_migrations WHERE version = 3")
        assert kept == hashlib.sha256(migrations()[2].sql.encode()).hexdigest()
        await connection.execute("UPDATE schema_migrations SET checksum = NULL")
        assert await migrate(connection) == []
        assert (
            await connection.fetchval(
                "SELECT count(*) FROM schema_migrations WHERE checksum IS NULL"
            )
            == 0
        )
        edited = [*migrations()]
        edited[2] = dataclasses.replace(edited[2], sql=edited[2].sql + "\n-- a late edit\n")
        monkeypatch.setattr("service.store.db.migrations", lambda: edited)
        with pytest.raises(MigrationEdited, match=r"003_boxes\.sql was changed"):
            await migrate(connection)
    finally:
        await connection.close()


async def test_a_function_is_defined_by_its_file_and_applied_again_when_it_changes(
    fresh_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``sql/functions`` holds each function's definition, applied before the migrations
    (migration 6 calls one); a changed file is applied again at the next start, an
    unchanged one is not."""
    connection = await asyncpg.connect(fresh_database)
    definition = "SELECT pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.proname = $1"
    try:
        await migrate(connection)
        names = [f.name for f in functions()]
        assert names == [
            "daily_batch_read", "daily_batch_write", "day_leaderboard",
            "make_daily_runs_partition", "player_row",
        ]  # fmt: skip
        for name in names:  # those that read tables, by key
            assert "SET enable_seqscan TO 'off'" in await connection.fetchval(definition, name) or (
                name in ("make_daily_runs_partition", "player_row")
            )
        applied = await connection.fetchval("SELECT max(applied_at) FROM schema_functions")
        await migrate(connection)  # nothing changed: nothing applied again
        assert await connection.fetchval("SELECT max(applied_at) FROM schema_functions") == applied
        changed = [
            dataclasses.replace(f, sql=f.sql.replace("LANGUAGE plpgsql AS", "LANGUAGE plpgsql STRICT AS"))
            if f.name == "make_daily_runs_partition" else f
            for f in functions()
        ]  # fmt: skip
        monkeypatch.setattr("service.store.db.functions", lambda: changed)
        await migrate(connection)
        assert "STRICT" in await connection.fetchval(definition, "make_daily_runs_partition")
    finally:
        await connection.close()
