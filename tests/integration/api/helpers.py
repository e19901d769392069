"""Test helpers: players and the dice of a date (legal runs on them: ``tests.runs``)."""

from __future__ import annotations

from typing import Any

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
