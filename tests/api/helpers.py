"""Test helpers: players, the dice of a date, and legal runs on them."""

from __future__ import annotations

from typing import Any

import httpx

from service.rules.ruleset import Roll, Rules, tiles_of
from service.rules.solver import solve


async def new_player(client: httpx.AsyncClient, **body: Any) -> dict[str, str]:
    response = await client.post("/v1/players", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, str] = response.json()
    return created


def auth(player: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


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
    rules = Rules()
    by_score: dict[int, list[Any]] = {}
    for moves in legal_runs(dice, 20000):
        open_tiles = rules.full
        for move in moves:
            for tile in move:
                open_tiles &= ~(1 << (tile - 1))
        score = rules.score(open_tiles)
        if score in wanted and score not in by_score:
            by_score[score] = moves
    return by_score
