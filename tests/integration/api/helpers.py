"""Test helpers: players and the dice of a date (legal runs on them: ``tests.runs``)."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

import asyncpg
import httpx

from service.rules.ruleset import Roll
from tests.conftest import fetchval


async def new_player(client: httpx.AsyncClient, **body: Any) -> dict[str, str]:
    response = await client.post("/v1/players", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, str] = response.json()
    return created


async def fresh(url: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
    """A request to the server at ``url`` on a connection of its own, so that every
    worker takes part."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        return await client.request(method, path, **kwargs)


async def new_player_at(url: str, **body: Any) -> dict[str, str]:
    """``new_player`` on the server at ``url``, on a connection of its own."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        return await new_player(client, **body)


def auth(player: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


async def count_runs(database_url: str, player_id: str) -> int:
    """The player's daily runs stored in the database."""
    count: int = await fetchval(
        database_url, "SELECT count(*) FROM daily_runs WHERE player_id = $1", player_id
    )
    return count


async def daily_dice(client: httpx.AsyncClient, day: str) -> tuple[Roll, ...]:
    response = await client.get(f"/v1/daily/{day}")
    assert response.status_code == 200, response.text
    return tuple((a, b) for a, b in response.json()["dice"])


def problem_type(response: httpx.Response, status: int) -> str:
    """The type of the problem that ``response`` must be, with ``status``."""
    assert response.status_code == status, response.text
    problem_type: str = response.json()["type"]
    return problem_type


async def insert_run(connection: asyncpg.Connection, player_id: str, day: str, score: int) -> None:
    """A daily run of ``day`` written straight to the table, as a submission would have
    left it (for a date no client can submit to any more, or another process's run)."""
    await connection.execute(
        """INSERT INTO daily_runs (id, player_id, day, moves, score, best_possible,
               rank_better, rank_worse, rank_players, streak_current, streak_best,
               streak_last_played, played_today, submitted_at)
           VALUES ($1, $2, $3, '[]', $4, 0, 0, 0, 1, 1, 1, $3, false, now())""",
        uuid.uuid4(),
        uuid.UUID(player_id),
        date.fromisoformat(day),
        score,
    )
