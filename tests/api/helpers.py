"""Test helpers: players, the dice of a date, and legal runs on them."""

from __future__ import annotations

from typing import Any

import httpx

from service.rules.replay import Move
from service.rules.ruleset import Roll, Rules, tiles_of
from service.rules.solver import solve
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


def json_move(move: Move) -> Any:
    """A move as the API takes it: its tiles, or with the dice when one die was thrown."""
    return {"dice": 1, "tiles": list(move.tiles)} if move.dice == 1 else list(move.tiles)


async def daily_dice(client: httpx.AsyncClient, day: str) -> tuple[Roll, ...]:
    response = await client.get(f"/v1/daily/{day}")
    assert response.status_code == 200, response.text
    return tuple((a, b) for a, b in response.json()["dice"])


def legal_runs(dice: tuple[Roll, ...], count: int, rules: Rules | None = None) -> list[list[Any]]:
    """Up to ``count`` different legal runs on ``dice`` (JSON move lists), by a walk of
    every line of play."""
    rules = rules or Rules()
    tables = solve(rules)
    found: list[list[Any]] = []

    def walk(s: int, k: int, moves: list[Any]) -> None:
        if len(found) >= count:
            return
        if s == 0:
            found.append(moves)
            return
        kids = tables.kids(s, dice[k], 2)
        if not kids:
            found.append(moves)
            return
        for kid in kids:
            walk(kid, k + 1, [*moves, list(tiles_of(s ^ kid))])

    walk(rules.start_position, 0, [])
    return found


def run_with_score(dice: tuple[Roll, ...], wanted: set[int]) -> dict[int, list[Any]]:
    """A legal run for each reachable score in ``wanted``."""
    by_score: dict[int, list[Any]] = {}
    for moves in legal_runs(dice, 20000):
        score = score_of(moves)
        if score in wanted and score not in by_score:
            by_score[score] = moves
    return by_score


def score_of(moves: list[Any]) -> int:
    """The score of a run of the standard rules (JSON move lists)."""
    rules = Rules()
    open_tiles = rules.full
    for move in moves:
        for tile in move:
            open_tiles &= ~(1 << (tile - 1))
    return rules.score(open_tiles)
